/**
 * Hosted mode through the HTTP app: bundles held in the database (source kind `db`). What
 * works on a local bundle works on a db bundle: POST /bundles, import, the files API,
 * versions, diff, export, lint on every save, the full review (against a real local
 * OpenAI-compatible server), delete. Sign-in is not built on this branch, so the caller is
 * injected (`makeTestApp({ mode: "hosted", actor })`).
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { unzipSync, zipSync } from "fflate";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Actor } from "../../server/auth/actor.js";
import { DB_KINDS, json, makeTestApp, problem, type TestApp } from "../helpers/app.js";
import { startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { answerFor, configureModels, settle } from "../core/review/e2e-helpers.js";
import type {
  Bundle,
  BundleList,
  Diff,
  FileList,
  Items,
  SpecDoc,
  Version,
  WriteResult,
} from "../helpers/types.js";

const MIA: Actor = { id: "mia", name: "Mia", kind: "user", role: "member" };
const ADMIN: Actor = { id: "ada", name: "Ada", kind: "user", role: "admin" };
const enc = new TextEncoder();
const CHECKOUT = readFileSync(resolve(import.meta.dirname, "../../fixtures/review/checkout/spec.md"), "utf8");

/** A Nygard-shaped ADR with CRLF line ends and an emoji, as teams paste them. */
const ADR = [
  "---",
  "type: adr",
  "---",
  "# 7. Keep specs in Postgres 🐘",
  "",
  "## Status",
  "",
  "Accepted",
  "",
  "## Context",
  "",
  "Specs are edited by many people at once.",
  "",
  "## Decision",
  "",
  "We keep every version in the database.",
  "",
  "## Consequences",
  "",
  "Backups cover the specs.",
  "",
].join("\r\n");

function form(parts: Record<string, string | Blob>): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(parts)) f.append(k, v);
  return f;
}

describe.each(DB_KINDS)("hosted mode, bundles in the database, on %s", (kind) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await makeTestApp({ kind, mode: "hosted", actor: MIA });
    // The first opens the test file's database (PGlite: seconds, more on a busy machine).
  }, 180_000);
  afterEach(async () => {
    await t.close();
  });

  async function create(name: string, profile = "prd", title?: string): Promise<SpecDoc> {
    const res = await t.req("POST", "/bundles", { profile, name, ...(title ? { title } : {}) });
    expect(res.status, await res.clone().text()).toBe(201);
    return json<SpecDoc>(res);
  }

  it("creates a bundle with POST /bundles: source kind db, internal, version 1 by the caller, linted", async () => {
    const doc = await create("payments/refunds", "prd", "Partial refunds");
    expect(doc).toMatchObject({
      slug: "payments/refunds",
      title: "refunds",
      source_kind: "db",
      path: "refunds.md",
      profile_key: "prd",
      current_version: { number: 1, created_by: "mia", message: "Created" },
      verdict: { kind: "lint", version_number: 1 },
    });
    const list = await json<BundleList>(t.req("GET", "/bundles"));
    expect(list.problems).toEqual([]);
    expect(list.items.map((b) => [b.slug, b.source_kind, b.visibility])).toEqual([
      ["payments/refunds", "db", "internal"],
    ]);
    const one = await json<Bundle>(t.req("GET", `/bundles/${doc.bundle_id}`));
    expect(one.visibility).toBe("internal");
    const text = await (await t.req("GET", `/docs/${doc.id}/files/content?path=refunds.md`)).text();
    expect(text).toMatch(/^---\ntype: prd$/m);
    expect(text).toMatch(/^title: "?Partial refunds"?$/m);
    expect(text).toMatch(/^# Partial refunds$/m);
    // Nothing was written to a folder: the app serves none.
    expect(t.services.local).toBeUndefined();
  });

  it("refuses a taken name in any letter case, and a name a bundle lies under, with nothing written", async () => {
    await create("payments/refunds");
    await problem(
      await t.req("POST", "/bundles", { profile: "prd", name: "Payments/Refunds" }),
      409,
      "bundle_exists",
    );
    await problem(
      await t.req("POST", "/bundles", { profile: "prd", name: "payments" }),
      409,
      "bundle_exists",
    );
    await problem(await t.req("POST", "/bundles", { profile: "prd", name: "../x" }), 400, "bad_path");
    await problem(await t.req("POST", "/bundles", { profile: "nope", name: "x" }), 400, "unknown_profile");
    expect((await json<BundleList>(t.req("GET", "/bundles"))).items).toHaveLength(1);
    // A bundle beside, or inside the name of, another is its own bundle.
    await create("payments/refunds/appeals");
    expect((await json<BundleList>(t.req("GET", "/bundles"))).items.map((b) => b.slug)).toEqual([
      "payments/refunds",
      "payments/refunds/appeals",
    ]);
  });

  it("saves, renames and deletes files as versions, lints each save, diffs and exports any version", async () => {
    const doc = await create("refunds");
    const v1 = doc.current_version;
    const text = (await (await t.req("GET", `/docs/${doc.id}/files/content?path=refunds.md`)).text()).concat(
      "\n## Out of scope\n\nGift cards.[^1]\n\n[^1]: Handled by the wallet team.\n",
    );
    const saved = await json<WriteResult>(
      t.req("PUT", `/docs/${doc.id}/files/content?path=refunds.md&base_version=${v1.id}`, text),
    );
    expect(saved.version).toMatchObject({ number: 2, created_by: "mia" });
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 255]);
    const img = await json<WriteResult>(
      t.req("PUT", `/docs/${doc.id}/files/content?path=img/flow.png&base_version=${saved.version.id}`, png),
    );
    // A stale base is refused and changes nothing.
    const conflict = await problem(
      await t.req("PUT", `/docs/${doc.id}/files/content?path=refunds.md&base_version=${v1.id}`, "# lost\n"),
      409,
      "version_conflict",
    );
    expect(conflict.current_version).toEqual({ id: img.version.id, number: 3 });
    // A second spec doc at the top is refused.
    await problem(
      await t.req(
        "PUT",
        `/docs/${doc.id}/files/content?path=other.md&base_version=${img.version.id}`,
        "---\ntype: adr\n---\n# Other\n",
      ),
      409,
      "two_spec_docs",
    );
    const moved = await json<WriteResult>(
      t.req("POST", `/docs/${doc.id}/files/rename?base_version=${img.version.id}`, {
        from: "img/flow.png",
        to: "assets/flow.png",
      }),
    );
    expect(moved.version.message).toBe("Rename img/flow.png to assets/flow.png");
    const files = await json<FileList>(t.req("GET", `/docs/${doc.id}/files`));
    expect(files.items.map((f) => [f.path, f.text])).toEqual([
      ["assets/flow.png", false],
      ["refunds.md", true],
    ]);
    const back = await t.req("GET", `/docs/${doc.id}/files/content?path=assets/flow.png`);
    expect([...new Uint8Array(await back.arrayBuffer())]).toEqual([...png]);
    // Every version reads back exactly; the first still has only the template.
    const old = await json<FileList>(t.req("GET", `/docs/${doc.id}/files?version=1`));
    expect(old.items.map((f) => f.path)).toEqual(["refunds.md"]);

    const versions = await json<Items<Version>>(t.req("GET", `/docs/${doc.id}/versions`));
    expect(versions.items.map((v) => v.number)).toEqual([4, 3, 2, 1]);
    const diff = await json<Diff>(t.req("GET", `/docs/${doc.id}/diff?from=1&to=2`));
    expect(diff.files).toMatchObject([{ path: "refunds.md", change: "modified" }]);
    expect(diff.sections.some((s) => s.heading_path.includes("Out of scope") && s.change === "added")).toBe(
      true,
    );

    // Lint ran on every save: the doc's verdict is on the current version.
    const after = await json<SpecDoc>(t.req("GET", `/docs/${doc.id}`));
    await t.runs.settled(doc.id);
    const runs = await json<Items<{ version_number: number; kind: string }>>(
      t.req("GET", `/docs/${doc.id}/runs`),
    );
    expect(new Set(runs.items.map((r) => r.version_number))).toEqual(new Set([1, 2, 3, 4]));
    expect(after.current_version.number).toBe(4);

    const zip = unzipSync(
      new Uint8Array(await (await t.req("GET", `/docs/${doc.id}/export?version=2`)).arrayBuffer()),
    );
    const names = Object.keys(zip).filter((n) => !n.endsWith("/"));
    expect(names.some((n) => n.endsWith("refunds.md"))).toBe(true);
    expect(names.some((n) => n.includes("flow.png"))).toBe(false);
    const exported = new TextDecoder().decode(zip[names.find((n) => n.endsWith("refunds.md"))!]);
    expect(exported).toBe(text);

    const del = await json<{ files_removed: number }>(t.req("DELETE", `/bundles/${doc.bundle_id}`));
    expect(del.files_removed).toBe(2);
    await problem(await t.req("GET", `/docs/${doc.id}`), 404, "not_found");
    expect((await json<BundleList>(t.req("GET", "/bundles"))).items).toEqual([]);
  });

  it("imports pasted markdown and a zip of several bundles; a file outside every bundle refuses the zip whole", async () => {
    const pasted = await t.req(
      "POST",
      "/bundles/import",
      form({ text: ADR, name: "decisions/0007-postgres" }),
    );
    expect(pasted.status, await pasted.clone().text()).toBe(201);
    const got = await json<{ items: Bundle[]; problems: unknown[] }>(pasted);
    expect(got.items.map((b) => [b.slug, b.source_kind, b.visibility, b.docs[0]!.profile_key])).toEqual([
      ["decisions/0007-postgres", "db", "internal", "adr"],
    ]);
    expect(got.items[0]!.docs[0]!.current_version.created_by).toBe("mia");

    const zip = zipSync({
      "specs/checkout/spec.md": enc.encode(CHECKOUT),
      "specs/checkout/img/cart.bin": new Uint8Array([1, 2, 3]),
      "specs/wallet/adr.md": enc.encode(ADR),
    });
    const imported = await t.req(
      "POST",
      "/bundles/import",
      form({ file: new File([zip], "specs.zip", { type: "application/zip" }) }),
    );
    expect(imported.status, await imported.clone().text()).toBe(201);
    const both = await json<{ items: Bundle[] }>(imported);
    expect(both.items.map((b) => b.slug)).toEqual(["specs/checkout", "specs/wallet"]);
    const checkout = both.items[0]!.docs[0]!;
    const files = await json<FileList>(t.req("GET", `/docs/${checkout.id}/files`));
    expect(files.items.map((f) => f.path)).toEqual(["img/cart.bin", "spec.md"]);

    const loose = zipSync({
      "more/a/spec.md": enc.encode(CHECKOUT),
      "more/NOTES.txt": enc.encode("kept nowhere"),
    });
    const refused = await problem(
      await t.req("POST", "/bundles/import", form({ file: new File([loose], "more.zip") })),
      400,
      "bad_path",
    );
    expect(String(refused.detail)).toMatch(/NOTES\.txt.*outside every bundle/);
    expect((await json<BundleList>(t.req("GET", "/bundles"))).items).toHaveLength(3);
    // Nothing is skipped or dismissed: there is no served folder.
    expect(await json(t.req("GET", "/skipped"))).toEqual({ items: [] });
  });
});

describe.each(DB_KINDS)("hosted mode: the full review of a db bundle, on %s", (kind) => {
  let fake: FakeOpenAI;
  let t: TestApp;
  beforeAll(async () => {
    fake = await startFakeOpenAI({ handler: answerFor });
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(async () => {
    t = await makeTestApp({ kind, mode: "hosted", actor: ADMIN, worker: { pollMs: 20 } });
    // The first opens the test file's database (PGlite: seconds, more on a busy machine).
  }, 180_000);
  afterEach(async () => {
    await t.close();
  });

  it("runs every stage on the version held in the database and gives a full verdict", async () => {
    const res = await t.req("POST", "/bundles/import", form({ text: CHECKOUT, name: "checkout" }));
    expect(res.status, await res.clone().text()).toBe(201);
    const doc = (await json<{ items: Bundle[] }>(res)).items[0]!.docs[0]!;
    await configureModels(t, fake.baseUrl);
    const started = await t.req("POST", `/docs/${doc.id}/runs`);
    expect(started.status, await started.clone().text()).toBe(202);
    const run = await settle(t, ((await started.json()) as { id: string }).id);
    expect(run.status, run.error).toBe("done");
    expect(fake.completions.length).toBeGreaterThan(0);
    const after = await json<SpecDoc>(t.req("GET", `/docs/${doc.id}`));
    expect(after.verdict).toMatchObject({ kind: "full", run_id: run.id, version_number: 1 });
  });
});
