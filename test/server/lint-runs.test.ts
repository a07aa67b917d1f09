import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdirSync, readFileSync, writeFileSync, cpSync } from "node:fs";
import { join, resolve } from "node:path";
import { DB_KINDS, json, makeTestApp, problem, type TestApp } from "../helpers/app.js";
import type { BundleList, Items, SpecDoc, WriteResult } from "../helpers/types.js";
import { eq } from "drizzle-orm";
import { docs } from "../../server/db/schema.js";

const EXAMPLES = resolve(import.meta.dirname, "../../fixtures/examples");

interface Run {
  id: string;
  kind: string;
  status: string;
  version_number: number;
  profile_key: string;
  findings: number;
  verdict?: SpecDoc["verdict"];
  stages: Array<{ name: string; duration_ms: number }>;
}
interface Finding {
  id: string;
  check_slug: string;
  level: string;
  category: string;
  message: string;
  anchor: { file: string; heading_path: string[]; quote: string; start: number; end: number };
}

async function prd(t: TestApp): Promise<SpecDoc> {
  await t.runs.idle();
  const list = await json<BundleList>(t.req("GET", "/bundles"));
  return list.items.find((b) => b.slug === "prd")!.docs[0]!;
}

async function put(t: TestApp, docId: string, path: string, body: string, base: string) {
  return t.req(
    "PUT",
    `/docs/${docId}/files/content?path=${encodeURIComponent(path)}&base_version=${base}`,
    body,
    {
      "content-type": "text/markdown",
    },
  );
}

describe.each(DB_KINDS)("lint runs and verdicts on %s", (kind) => {
  let t: TestApp;
  let text: string;
  beforeEach(async () => {
    t = await makeTestApp({ kind });
    cpSync(join(EXAMPLES, "prd"), join(t.root, "prd"), { recursive: true });
    await t.local.scanAll();
    text = readFileSync(join(t.root, "prd/saved-searches.md"), "utf8");
  });
  afterEach(async () => {
    await t.close();
  });

  it("lints every version; a filled example is Build Ready and the bundle state follows", async () => {
    const doc = await prd(t);
    expect(doc.verdict).toMatchObject({ kind: "lint", result: "build_ready", must: 0, version_number: 1 });
    expect(doc.next_action).toMatchObject({ kind: "review" });
    const list = await json<BundleList>(t.req("GET", "/bundles"));
    expect(list.items[0]!.state).toBe("build_ready");
    const runs = await json<Items<Run>>(t.req("GET", `/docs/${doc.id}/runs`));
    expect(runs.items).toHaveLength(1);
    expect(runs.items[0]).toMatchObject({
      kind: "lint",
      status: "done",
      version_number: 1,
      profile_key: "prd",
    });
    expect(runs.items[0]!.stages[0]!.name).toBe("lint");
  });

  it("a save answers with its verdict; a MUST finding makes the doc Not Build Ready, anchored in UTF-8 bytes", async () => {
    const doc = await prd(t);
    const broken = text.replace(/## Acceptance criteria[\s\S]*?(?=\n## )/, "");
    expect(broken).not.toBe(text);
    const w = await json<WriteResult & { verdict: SpecDoc["verdict"] }>(
      put(t, doc.id, "saved-searches.md", broken + "\nWe will do it etc. TBD\n", doc.current_version.id),
    );
    expect(w.verdict).toMatchObject({ result: "not_build_ready", version_number: 2 });
    expect(w.verdict!.must).toBeGreaterThan(0);

    const runs = await json<Items<Run>>(t.req("GET", `/docs/${doc.id}/runs`));
    expect(runs.items.map((r) => r.version_number)).toEqual([2, 1]);
    const run = await json<Run>(t.req("GET", `/runs/${runs.items[0]!.id}`));
    expect(run.findings).toBeGreaterThan(0);
    const findings = await json<Items<Finding>>(t.req("GET", `/runs/${run.id}/findings`));
    expect(findings.items.length).toBe(run.findings);
    const starts = findings.items.map((f) => f.anchor.start);
    expect([...starts].sort((a, b) => a - b)).toEqual(starts);
    const bytes = Buffer.from(broken + "\nWe will do it etc. TBD\n");
    for (const f of findings.items) {
      expect(f.anchor.file).toBe("saved-searches.md");
      expect(bytes.subarray(f.anchor.start, f.anchor.end).toString()).toBe(f.anchor.quote);
    }
    expect(findings.items.some((f) => f.level === "MUST")).toBe(true);
    const now = await json<SpecDoc>(t.req("GET", `/docs/${doc.id}`));
    expect(now.verdict!.result).toBe("not_build_ready");
    // The save's answer is the stored run (it is written in one statement, not read back).
    expect(now.verdict).toEqual(w.verdict);
    const bundleId = await t.store.bundleIdOfDoc(doc.id);
    const again = await t.runs.lintVersion(bundleId, doc.id, w.version.id, w.version.number, { fresh: true });
    expect(await t.runs.get(again.id)).toEqual(again);
    // The save's lint started while the file was written; a lint of the same version from
    // its stored bytes finds the same.
    expect({ ...again.verdict, run_id: undefined }).toEqual({ ...w.verdict, run_id: undefined });
    const redone = await json<Items<Finding>>(t.req("GET", `/runs/${again.id}/findings`));
    const withoutRun = (items: Finding[]) => items.map((f) => ({ ...f, run_id: undefined }));
    expect(withoutRun(redone.items)).toEqual(withoutRun(findings.items));
    expect(now.next_action).toMatchObject({ kind: "fix", finding_id: expect.any(String) });
    const list = await json<BundleList>(t.req("GET", "/bundles"));
    expect(list.items[0]!.state).toBe("not_build_ready");
  });

  it("finding ids stay the same when unrelated text changes", async () => {
    const doc = await prd(t);
    const withTodo = text.replace("## Acceptance criteria", "TODO: decide this.\n\n## Acceptance criteria");
    const a = await json<WriteResult>(put(t, doc.id, "saved-searches.md", withTodo, doc.current_version.id));
    const runA = (await json<Items<Run>>(t.req("GET", `/docs/${doc.id}/runs`))).items[0]!;
    const b = await json<WriteResult>(
      put(t, doc.id, "saved-searches.md", withTodo + "\nAn unrelated closing line.\n", a.version.id),
    );
    expect(b.version.number).toBe(3);
    const runB = (await json<Items<Run>>(t.req("GET", `/docs/${doc.id}/runs`))).items[0]!;
    const ids = async (id: string) =>
      (await json<Items<Finding>>(t.req("GET", `/runs/${id}/findings`))).items.map((f) => f.id);
    expect(await ids(runB.id)).toEqual(expect.arrayContaining(await ids(runA.id)));
  });

  it("an edit on disk is linted too, and the verdict of an older version reads as stale until then", async () => {
    const doc = await prd(t);
    writeFileSync(join(t.root, "prd/saved-searches.md"), text.replace(/## Goals/, "## Goals\n\nTBD"));
    const now = await json<SpecDoc>(t.req("GET", `/docs/${doc.id}`));
    expect(now.current_version).toMatchObject({ number: 2, created_by: "local" });
    expect(now.verdict).toMatchObject({ version_number: 2 });
    expect(now.verdict!.result).not.toBe("stale");
  });

  it("reports adoption: a doc naming no type is reviewed with a guess, relaxed, and adopt writes the guess", async () => {
    mkdirSync(join(t.root, "untyped"));
    const body = text.replace(/^---\n[\s\S]*?\n---\n/, "---\ntype: prd\n---\n");
    writeFileSync(join(t.root, "untyped/spec.md"), body);
    await t.local.scanAll();
    await t.runs.idle();
    const list = await json<BundleList>(t.req("GET", "/bundles"));
    const doc = list.items.find((b) => b.slug === "untyped")!.docs[0]!;
    expect(doc.adopt).toMatchObject({ size: expect.any(String) });
    // In the fixed priority of next actions (docs/review-status.md) a MUST finding to fix comes before adopting.
    expect(doc.verdict!.must).toBeGreaterThan(0);
    expect(doc.next_action).toMatchObject({ kind: "fix" });
    const res = await t.req("POST", `/docs/${doc.id}/adopt?base_version=${doc.current_version.id}`);
    expect(res.status).toBe(200);
    const after = readFileSync(join(t.root, "untyped/spec.md"), "utf8");
    expect(after).toMatch(/^---\ntype: prd\nsize: \w+\n---\n/);
    const again = await json<SpecDoc>(t.req("GET", `/docs/${doc.id}`));
    expect(again.adopt).toBeUndefined();
    await problem(
      await t.req("POST", `/docs/${doc.id}/adopt?base_version=${again.current_version.id}`),
      409,
      "nothing_to_adopt",
    );
  });

  it("lists the assumptions of the current main doc with anchors", async () => {
    const doc = await prd(t);
    const edited = text.replace("## Goals", "Assumption: search runs on the existing index.\n\n## Goals");
    await put(t, doc.id, "saved-searches.md", edited, doc.current_version.id);
    const res = await json<Items<{ text: string; anchor: Finding["anchor"] }>>(
      t.req("GET", `/docs/${doc.id}/assumptions`),
    );
    const mine = res.items.find((a) => a.text.includes("existing index"))!;
    expect(Buffer.from(edited).subarray(mine.anchor.start, mine.anchor.end).toString()).toBe(
      mine.anchor.quote,
    );
  });

  it("changes a doc's profile as a new version, refusing an unknown profile", async () => {
    const doc = await prd(t);
    await problem(
      await t.req("PUT", `/docs/${doc.id}/profile?base_version=${doc.current_version.id}`, {
        profile: "nope",
      }),
      400,
      "unknown_profile",
    );
    const w = await json<WriteResult>(
      t.req("PUT", `/docs/${doc.id}/profile?base_version=${doc.current_version.id}`, { profile: "design" }),
    );
    expect(w.version.number).toBe(2);
    const now = await json<SpecDoc>(t.req("GET", `/docs/${doc.id}`));
    expect(now.profile_key).toBe("design");
    expect(readFileSync(join(t.root, "prd/saved-searches.md"), "utf8")).toMatch(/\ntype: design\n/);
  });

  it("lints the docs again when their profile changes, so verdicts follow the new checks", async () => {
    const doc = await prd(t);
    expect(doc.verdict!.result).toBe("build_ready");
    const profile = await json<{ yaml: string; template: string }>(t.req("GET", "/profiles/prd"));
    const yaml = profile.yaml.replace(
      /^checks:\n/m,
      "checks:\n  - slug: cost-centre\n    kind: required-frontmatter\n    level: MUST\n    category: structure\n    params: { key: cost_centre }\n",
    );
    const saved = await t.req("PUT", "/profiles/prd", { yaml, template: profile.template });
    expect(saved.status).toBe(200);
    await t.runs.idle();
    const now = await json<SpecDoc>(t.req("GET", `/docs/${doc.id}`));
    expect(now.current_version.number).toBe(1);
    expect(now.verdict).toMatchObject({ result: "not_build_ready", must: 1 });
    const runs = await json<Items<Run>>(t.req("GET", `/docs/${doc.id}/runs`));
    expect(runs.items).toHaveLength(2);
  });

  it("a save that changes the doc's type reads the bundle its new type builds on", async () => {
    // shop/notes starts as a PRD (which builds on nothing) beside the PRD shop/prd; saved as a
    // design, it builds on shop/prd by the profile's rule, so a new PRD version makes it stale.
    cpSync(join(EXAMPLES, "prd"), join(t.root, "shop/prd"), { recursive: true });
    const notes = text.replace("title: Saved searches", "title: Notes on saved searches");
    mkdirSync(join(t.root, "shop/notes"), { recursive: true });
    writeFileSync(join(t.root, "shop/notes/notes.md"), notes);
    await t.local.scanAll();
    await t.runs.idle();
    const list = await json<BundleList>(t.req("GET", "/bundles?limit=500"));
    const doc = (slug: string) => list.items.find((b) => b.slug === slug)!.docs[0]!;
    const asDesign = notes.replace("type: prd", "type: design");
    const w = await json<WriteResult>(
      put(t, doc("shop/notes").id, "notes.md", asDesign, doc("shop/notes").current_version.id),
    );
    expect(w.version.number).toBe(2);
    const prdDoc = doc("shop/prd");
    await json(
      put(
        t,
        prdDoc.id,
        "saved-searches.md",
        `${text}
- Saved searches MUST keep their order.
`,
        prdDoc.current_version.id,
      ),
    );
    const now = await json<SpecDoc>(t.req("GET", `/docs/${doc("shop/notes").id}`));
    expect(now.profile_key).toBe("design");
    expect(now.verdict).toMatchObject({
      result: "stale",
      stale_reason: "upstream_changed",
      version_number: 2,
    });
  });

  it("a save or an edit on disk of an approved doc sends it back to review; other docs keep their status", async () => {
    const doc = await prd(t);
    const status = async () =>
      (await json<{ status: string }>(t.req("GET", `/docs/${doc.id}/status`))).status;
    const before = await status();
    expect(before).not.toBe("approved");
    const w = await json<WriteResult>(
      put(t, doc.id, "saved-searches.md", `${text}\nA first closing line.\n`, doc.current_version.id),
    );
    expect(await status()).toBe(before);
    await t.database.db.update(docs).set({ status: "approved" }).where(eq(docs.id, doc.id));
    await json(put(t, doc.id, "saved-searches.md", `${text}\nA second closing line.\n`, w.version.id));
    expect(await status()).toBe("in_review");
    await t.database.db.update(docs).set({ status: "approved" }).where(eq(docs.id, doc.id));
    writeFileSync(join(t.root, "prd/saved-searches.md"), `${text}\nAn edit on disk.\n`);
    await t.local.scanAll();
    await t.runs.idle();
    expect(await status()).toBe("in_review");
  });

  it("a listener of the save that throws does not stop it: the file and the version are written, and linted", async () => {
    const doc = await prd(t);
    const boom = () => {
      throw new Error("a broken listener");
    };
    t.store.events.on("writing", boom);
    try {
      const edited = `${text}\nA line saved past a broken listener.\n`;
      const w = await json<WriteResult & { verdict: SpecDoc["verdict"] }>(
        put(t, doc.id, "saved-searches.md", edited, doc.current_version.id),
      );
      expect(w.version.number).toBe(2);
      expect(w.verdict).toMatchObject({ version_number: 2 });
      expect(readFileSync(join(t.root, "prd/saved-searches.md"), "utf8")).toBe(edited);
    } finally {
      t.store.events.off("writing", boom);
    }
  });

  it("answers 404 problems for unknown runs", async () => {
    await problem(await t.req("GET", "/runs/00000000-0000-4000-8000-000000000000"), 404, "not_found");
    await problem(
      await t.req("GET", "/runs/00000000-0000-4000-8000-000000000000/findings"),
      404,
      "not_found",
    );
  });
});
