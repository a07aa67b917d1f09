import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { randomBytes } from "node:crypto";
import { zipSync, type Zippable } from "fflate";
import { DB_KINDS, json, makeTestApp, problem, type TestApp } from "../helpers/app.js";
import { SETTING_DEFAULTS } from "../../server/settings.js";
import type { BundleList } from "../helpers/types.js";

const FIXTURE = resolve(import.meta.dirname, "../../fixtures/import/saved-searches");
const FIXTURE_FILES = ["prd.md", "design.md", "notes.md", "search-bar.png", "components.svg"];

interface Preview {
  name: string;
  name_exists: boolean;
  items: Array<{
    path: string;
    title?: string;
    profile: string;
    profile_source: string;
    spec: boolean;
    bundle?: string;
  }>;
  links: Array<{ from: string; to: string; kind: string }>;
}

type Part = string | { name: string; bytes: Uint8Array | string };

function form(parts: Record<string, Part | Part[]>): FormData {
  const fd = new FormData();
  for (const [key, value] of Object.entries(parts))
    for (const v of Array.isArray(value) ? value : [value]) {
      if (typeof v === "string") fd.append(key, v);
      else
        fd.append(key, new Blob([typeof v.bytes === "string" ? v.bytes : new Uint8Array(v.bytes)]), v.name);
    }
  return fd;
}

function fixtureTree(prefix = ""): Zippable {
  const tree: Zippable = {};
  for (const f of FIXTURE_FILES) tree[prefix + f] = new Uint8Array(readFileSync(join(FIXTURE, f)));
  return tree;
}

const PRD = readFileSync(join(FIXTURE, "prd.md"), "utf8");

/** Files and folders under the served folder, without hidden ones. */
function listing(root: string): string[] {
  const out: string[] = [];
  const visit = (dir: string, rel: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.name.startsWith(".")) continue;
      const p = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) visit(join(dir, e.name), p);
      else out.push(p);
    }
  };
  visit(root, "");
  return out.sort();
}

/** Set the declared uncompressed size of every entry (central directory and local header). */
function lieAboutSizes(zip: Uint8Array, size: number): Uint8Array {
  const out = zip.slice();
  const view = new DataView(out.buffer);
  for (let i = 0; i + 4 <= out.length; i++) {
    const sig = view.getUint32(i, true);
    if (sig === 0x02014b50) view.setUint32(i + 24, size, true);
    if (sig === 0x04034b50) view.setUint32(i + 22, size, true);
  }
  return out;
}

describe.each(DB_KINDS)("POST /bundles/import on %s", (kind) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await makeTestApp({ kind });
  });
  afterEach(async () => {
    await t.close();
  });

  const importing = (parts: Record<string, Part | Part[]>) => t.req("POST", "/bundles/import", form(parts));
  const previewing = (parts: Record<string, Part | Part[]>) =>
    t.req("POST", "/bundles/import/preview", form(parts));

  /** Nothing but the hidden staging folder is under the served folder, and staging is empty. */
  function nothingWritten(): void {
    expect(listing(t.root)).toEqual([]);
    const staging = join(t.root, ".spec-review", "import");
    if (existsSync(staging)) expect(readdirSync(staging)).toEqual([]);
  }

  it("imports one .md file: the name defaults to the file name; answers a bundle list with 201", async () => {
    const res = await importing({ file: { name: "Saved Searches.md", bytes: PRD } });
    expect(res.status).toBe(201);
    const list = await json<BundleList>(res);
    expect(list.problems).toEqual([]);
    expect(list.items).toHaveLength(1);
    expect(list.items[0]).toMatchObject({
      slug: "saved-searches",
      title: "saved-searches",
      source_kind: "local",
    });
    expect(list.items[0]!.docs[0]).toMatchObject({ path: "Saved Searches.md", profile_key: "prd" });
    expect(list.items[0]!.docs[0]!.verdict?.kind).toBe("lint");
    expect(readFileSync(join(t.root, "saved-searches/Saved Searches.md"), "utf8")).toBe(PRD);
  });

  it("imports pasted text with `profile`, writing the type line; the name defaults to the title", async () => {
    const text = "# Checkout redesign\n\n## Summary\n\nWe rebuild checkout.\n";
    const list = await json<BundleList>(importing({ text, profile: "prd" }));
    expect(list.items.map((b) => b.slug)).toEqual(["checkout-redesign"]);
    const written = readFileSync(join(t.root, "checkout-redesign/checkout-redesign.md"), "utf8");
    expect(written).toBe(`---\ntype: prd\n---\n\n${text}`);
    // A given name wins, and names the file.
    const named = await json<BundleList>(importing({ text, profile: "design", name: "payments" }));
    expect(named.items[0]!.docs[0]).toMatchObject({ path: "payments.md", profile_key: "design" });
  });

  it("guesses the profile of one markdown file that names none; no guess is no_spec_doc", async () => {
    const design = readFileSync(join(FIXTURE, "design.md"), "utf8");
    const list = await json<BundleList>(importing({ text: design, name: "svc" }));
    expect(list.items[0]!.docs[0]!.profile_key).toBe("design");
    await problem(await importing({ text: "just words\n", name: "plain" }), 400, "no_spec_doc");
    expect(existsSync(join(t.root, "plain"))).toBe(false);
  });

  it("imports a zipped folder with two spec docs as one bundle per doc, each with the assets it links", async () => {
    const zip = zipSync(fixtureTree("saved-searches/"));
    const links = JSON.stringify([{ from: "design.md", to: "prd.md", kind: "implements" }]);
    const docs = JSON.stringify([
      { path: "design.md", profile: "design" },
      { path: "notes.md", profile: "" },
    ]);
    const res = await importing({ file: { name: "upload.zip", bytes: zip }, docs, links });
    expect(res.status).toBe(201);
    const list = await json<BundleList>(res);
    expect(list.items.map((b) => [b.slug, b.docs[0]!.path, b.docs[0]!.profile_key])).toEqual([
      ["saved-searches/design", "design.md", "design"],
      ["saved-searches/prd", "prd.md", "prd"],
    ]);
    expect(listing(t.root)).toEqual([
      "saved-searches/components.svg",
      "saved-searches/design/components.svg",
      "saved-searches/design/design.md",
      "saved-searches/notes.md",
      "saved-searches/prd/prd.md",
      "saved-searches/prd/search-bar.png",
      "saved-searches/search-bar.png",
    ]);
    const design = readFileSync(join(t.root, "saved-searches/design/design.md"), "utf8");
    expect(design).toMatch(/^---\nsize: standard\n/);
    expect(design).toContain("type: design");
    // The confirmed link is held by the service, not written into the file.
    expect(design).not.toContain("links:");
    const designDoc = list.items.find((b) => b.slug === "saved-searches/design")!.docs[0]!;
    const view = await json<{ links: { kind: string; origin: string; target_ref: string }[] }>(
      t.req("GET", `/docs/${designDoc.id}/trace`),
    );
    expect(view.links).toContainEqual(
      expect.objectContaining({ kind: "implements", origin: "adopted", target_ref: "saved-searches/prd" }),
    );
    expect(readFileSync(join(t.root, "saved-searches/prd/search-bar.png"))).toEqual(
      readFileSync(join(FIXTURE, "search-bar.png")),
    );
    // The copied image resolves: no links-resolve finding on the prd.
    const prd = list.items.find((b) => b.slug === "saved-searches/prd")!.docs[0]!;
    const runs = await t.runs.latestRuns([prd.id]);
    const findings = await t.runs.findings(runs.get(prd.id)!.id);
    expect(findings.filter((f) => f.checkSlug.includes("link"))).toEqual([]);
  });

  it("imports a dropped folder (`files`, each file name its path)", async () => {
    const files = FIXTURE_FILES.map((f) => ({
      name: `drop/${f}`,
      bytes: new Uint8Array(readFileSync(join(FIXTURE, f))),
    }));
    const list = await json<BundleList>(
      importing({ files, docs: JSON.stringify([{ path: "drop/design.md", profile: "design" }]) }),
    );
    expect(list.items.map((b) => b.slug)).toEqual(["drop/design", "drop/prd"]);
    // Without picks, markdown that names no type stays an asset: one bundle.
    const one = await json<BundleList>(importing({ files, name: "solo" }));
    expect(one.items.map((b) => b.slug)).toEqual(["solo"]);
    expect(existsSync(join(t.root, "solo/design.md"))).toBe(true);
  });

  it("previews the markdown files with their profile and the links offered, writing nothing", async () => {
    const res = await previewing({
      file: { name: "upload.zip", bytes: zipSync(fixtureTree("saved-searches/")) },
    });
    expect(res.status).toBe(200);
    const p = await json<Preview>(res);
    expect(p.name).toBe("saved-searches");
    expect(p.name_exists).toBe(false);
    const byPath = new Map(p.items.map((i) => [i.path, i]));
    expect([...byPath.keys()].sort()).toEqual(["design.md", "notes.md", "prd.md"]);
    expect(byPath.get("prd.md")).toMatchObject({
      profile: "prd",
      profile_source: "frontmatter",
      spec: true,
      bundle: "saved-searches",
      title: "Saved searches",
    });
    expect(byPath.get("design.md")).toMatchObject({
      profile: "design",
      profile_source: "guess",
      spec: false,
    });
    expect(byPath.get("notes.md")).toMatchObject({ profile: "", profile_source: "none", spec: false });
    expect(p.links).toEqual([{ from: "design.md", to: "prd.md", kind: "implements" }]);
    nothingWritten();

    // With the picks, the preview says where each doc goes.
    const picked = await json<Preview>(
      previewing({
        file: { name: "upload.zip", bytes: zipSync(fixtureTree()) },
        docs: JSON.stringify([{ path: "design.md", profile: "design" }]),
        name: "ss",
      }),
    );
    expect(picked.items.find((i) => i.path === "design.md")).toMatchObject({
      profile_source: "docs",
      spec: true,
      bundle: "ss/design",
    });
    nothingWritten();
  });

  it("needs exactly one of file, text or files (rule 7)", async () => {
    await problem(await importing({ name: "x" }), 400, "import_source");
    await problem(await importing({ text: "# A", file: { name: "a.md", bytes: PRD } }), 400, "import_source");
    await problem(
      await importing({ file: { name: "a.md", bytes: PRD }, files: [{ name: "b/b.md", bytes: PRD }] }),
      400,
      "import_source",
    );
    await problem(
      await previewing({ text: "# A", files: [{ name: "b/b.md", bytes: PRD }] }),
      400,
      "import_source",
    );
    nothingWritten();
  });

  it("refuses a file that is neither .md nor .zip, and a body that is not multipart", async () => {
    await problem(
      await importing({ file: { name: "spec.docx", bytes: "PK" } }),
      415,
      "unsupported_file_type",
    );
    await problem(await t.req("POST", "/bundles/import", { text: "# A" }), 415, "unsupported_media_type");
    nothingWritten();
  });

  it("refuses zip slip, absolute paths and backslashes in zip entries and dropped files", async () => {
    for (const bad of ["../evil.md", "a/../../evil.md", "/etc/evil.md", "C:/evil.md", "a\\..\\evil.md"]) {
      const zip = zipSync({ "prd.md": new TextEncoder().encode(PRD), [bad]: new Uint8Array([1]) });
      await problem(await importing({ file: { name: "x.zip", bytes: zip }, name: "x" }), 400, "bad_path");
      await problem(await previewing({ file: { name: "x.zip", bytes: zip }, name: "x" }), 400, "bad_path");
    }
    await problem(
      await importing({
        files: [
          { name: "d/prd.md", bytes: PRD },
          { name: "d/../../evil.txt", bytes: "x" },
        ],
      }),
      400,
      "bad_path",
    );
    nothingWritten();
    expect(existsSync(join(t.root, "..", "evil.md"))).toBe(false);
  });

  it("refuses symlink entries in a zip (by their external attributes)", async () => {
    const zip = zipSync({
      "prd.md": new TextEncoder().encode(PRD),
      "link.md": [new TextEncoder().encode("/etc/passwd"), { os: 3, attrs: (0o120777 << 16) >>> 0 }],
    });
    await problem(await importing({ file: { name: "x.zip", bytes: zip }, name: "x" }), 400, "zip_symlink");
    // The same entry as a regular file is fine.
    const ok = zipSync({
      "prd.md": new TextEncoder().encode(PRD),
      "link.md": [new TextEncoder().encode("/etc/passwd"), { os: 3, attrs: (0o100644 << 16) >>> 0 }],
    });
    expect((await importing({ file: { name: "x.zip", bytes: ok }, name: "x" })).status).toBe(201);
  });

  it("refuses zip bombs: an absurd ratio, or an entry inflating past what it declares", async () => {
    const zeros = zipSync({
      "prd.md": new TextEncoder().encode(PRD),
      "zeros.bin": new Uint8Array(5 * 1024 * 1024),
    });
    const body = await problem(
      await importing({ file: { name: "x.zip", bytes: zeros }, name: "x" }),
      413,
      "zip_bomb",
    );
    expect(String(body.detail)).toContain("zeros.bin");
    const text = new TextEncoder().encode("a".repeat(100_000));
    const lying = lieAboutSizes(zipSync({ "big.md": text }), 1000);
    await problem(await importing({ file: { name: "x.zip", bytes: lying }, name: "x" }), 413, "zip_bomb");
    nothingWritten();
  });

  it("refuses declared sizes over max_bundle_mb or max_file_mb before inflating", async () => {
    const set = await t.req("PUT", "/admin/settings", {
      ...SETTING_DEFAULTS,
      max_file_mb: 1,
      max_bundle_mb: 2,
    });
    expect(set.status, await set.clone().text()).toBe(200);
    const noise = (n: number) => new Uint8Array(randomBytes(n));
    const total = zipSync({
      "prd.md": new TextEncoder().encode(PRD),
      "a.bin": noise(900_000),
      "b.bin": noise(900_000),
      "c.bin": noise(900_000),
    });
    await problem(
      await importing({ file: { name: "x.zip", bytes: total }, name: "x" }),
      413,
      "bundle_too_large",
    );
    const one = zipSync({ "prd.md": new TextEncoder().encode(PRD), "a.bin": noise(1024 * 1024 + 1) });
    await problem(await importing({ file: { name: "x.zip", bytes: one }, name: "x" }), 413, "file_too_large");
    await problem(
      await importing({ file: { name: "big.md", bytes: noise(1024 * 1024 + 1) } }),
      413,
      "file_too_large",
    );
    nothingWritten();
  });

  it("refuses two entries that normalize to the same path, case-insensitively", async () => {
    const enc = (s: string) => new TextEncoder().encode(s);
    const zip = zipSync({ "prd.md": enc(PRD), "img/Logo.png": enc("a"), "img/logo.PNG": enc("b") });
    await problem(await importing({ file: { name: "x.zip", bytes: zip }, name: "x" }), 400, "duplicate_path");
    const nfc = zipSync({ "prd.md": enc(PRD), "caf\u00e9.txt": enc("a"), "cafe\u0301.txt": enc("b") });
    await problem(await importing({ file: { name: "x.zip", bytes: nfc }, name: "x" }), 400, "duplicate_path");
    await problem(
      await importing({
        files: [
          { name: "d/prd.md", bytes: PRD },
          { name: "d/PRD.md", bytes: PRD },
        ],
      }),
      400,
      "duplicate_path",
    );
    nothingWritten();
  });

  it("refuses a name that exists, and an unsafe name", async () => {
    await json<BundleList>(importing({ text: PRD, name: "taken" }));
    const before = listing(t.root);
    await problem(await importing({ text: PRD, name: "taken" }), 409, "bundle_exists");
    await problem(await importing({ text: PRD, name: "TAKEN" }), 409, "bundle_exists");
    for (const name of ["../x", "/x", ".x", "a//b"])
      await problem(await importing({ text: PRD, name }), 400, "bad_path");
    expect(listing(t.root)).toEqual(before);
    const p = await json<Preview>(previewing({ text: PRD, name: "taken" }));
    expect(p.name_exists).toBe(true);
  });

  it("refuses invalid JSON or shapes in `docs` and `links`, and unknown profiles", async () => {
    const zip = { name: "x.zip", bytes: zipSync(fixtureTree()) };
    await problem(await importing({ file: zip, name: "x", docs: "[{" }), 400, "invalid_json");
    await problem(await importing({ file: zip, name: "x", links: "nope" }), 400, "invalid_json");
    await problem(await previewing({ file: zip, name: "x", docs: "{]" }), 400, "invalid_json");
    await problem(await importing({ file: zip, name: "x", docs: '[{"path": 1}]' }), 400, "validation_failed");
    await problem(
      await importing({ file: zip, name: "x", links: '[{"from":"design.md","to":"prd.md","kind":"likes"}]' }),
      400,
      "validation_failed",
    );
    await problem(
      await importing({
        file: zip,
        name: "x",
        links: '[{"from":"notes.md","to":"prd.md","kind":"implements"}]',
      }),
      400,
      "validation_failed",
    );
    await problem(
      await importing({ file: zip, name: "x", docs: '[{"path":"missing.md","profile":"prd"}]' }),
      400,
      "validation_failed",
    );
    await problem(
      await importing({ file: zip, name: "x", docs: '[{"path":"design.md","profile":"nope"}]' }),
      400,
      "unknown_profile",
    );
    await problem(await importing({ text: "# A\n", profile: "nope", name: "x" }), 400, "unknown_profile");
    nothingWritten();
  });

  it("refuses a .zip that is not one", async () => {
    await problem(
      await importing({ file: { name: "x.zip", bytes: "not a zip at all, really not" } }),
      400,
      "bad_zip",
    );
    nothingWritten();
  });
});
