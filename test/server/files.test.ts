import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync, existsSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { unzipSync } from "fflate";
import { DB_KINDS, json, makeTestApp, problem, type TestApp } from "../helpers/app.js";
import { SETTING_DEFAULTS } from "../../server/settings.js";
import type { BundleList, Diff, FileList, Items, SpecDoc, Version, WriteResult } from "../helpers/types.js";

const DEMO = resolve(import.meta.dirname, "../../fixtures/demo");

async function checkoutDoc(t: TestApp): Promise<{ id: string; base: string }> {
  const list = await json<BundleList>(t.req("GET", "/bundles"));
  const doc = list.items.find((b) => b.slug === "checkout")!.docs[0]!;
  return { id: doc.id, base: doc.current_version.id };
}

async function put(
  t: TestApp,
  docId: string,
  path: string,
  body: string | Uint8Array,
  base: string,
  extra = "",
) {
  return t.req(
    "PUT",
    `/docs/${docId}/files/content?path=${encodeURIComponent(path)}&base_version=${base}${extra}`,
    body,
    { "content-type": "application/octet-stream" },
  );
}

describe.each(DB_KINDS)("files and versions on %s", (kind) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await makeTestApp({ kind, fixture: DEMO });
  });
  afterEach(async () => {
    await t.close();
  });

  it("writes a file as a new version, on disk and in the version record, and reads old versions exactly", async () => {
    const { id, base } = await checkoutDoc(t);
    const original = readFileSync(join(t.root, "checkout/prd.md"), "utf8");
    const edited = original.replace("38%", "41%");
    const res = await put(t, id, "prd.md", edited, base, "&message=Fix%20the%20figure");
    expect(res.status).toBe(200);
    const w = await json<WriteResult>(res);
    expect(w.changed).toBe(true);
    expect(w.version).toMatchObject({ number: 2, created_by: "admin", message: "Fix the figure" });
    expect(readFileSync(join(t.root, "checkout/prd.md"), "utf8")).toBe(edited);

    const now = await t.req("GET", `/docs/${id}/files/content?path=prd.md`);
    expect(now.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    expect(now.headers.get("x-version-id")).toBe(w.version.id);
    expect(await now.text()).toBe(edited);
    const old = await t.req("GET", `/docs/${id}/files/content?path=prd.md&version=${base}`);
    expect(await old.text()).toBe(original);
    const byNumber = await t.req("GET", `/docs/${id}/files/content?path=prd.md&version=1`);
    expect(await byNumber.text()).toBe(original);

    const versions = await json<Items<Version>>(t.req("GET", `/docs/${id}/versions`));
    expect(versions.items.map((v) => [v.number, v.created_by])).toEqual([
      [2, "admin"],
      [1, "local"],
    ]);
    const doc = await json<SpecDoc>(t.req("GET", `/docs/${id}`));
    expect(doc.current_version.id).toBe(w.version.id);
  });

  it("creates no version for a write that changes nothing", async () => {
    const { id, base } = await checkoutDoc(t);
    const same = readFileSync(join(t.root, "checkout/prd.md"));
    const w = await json<WriteResult>(put(t, id, "prd.md", same, base));
    expect(w).toMatchObject({ changed: false, version: { id: base, number: 1 } });
    const versions = await json<Items<Version>>(t.req("GET", `/docs/${id}/versions`));
    expect(versions.items).toHaveLength(1);
  });

  it("refuses a stale base_version with 409 version_conflict and changes nothing", async () => {
    const { id, base } = await checkoutDoc(t);
    await put(t, id, "notes.txt", "first", base);
    const before = readFileSync(join(t.root, "checkout/prd.md"), "utf8");
    const body = await problem(
      await put(t, id, "prd.md", "---\ntype: prd\n---\n# lost\n", base),
      409,
      "version_conflict",
    );
    expect(body.current_version).toMatchObject({ number: 2 });
    expect(readFileSync(join(t.root, "checkout/prd.md"), "utf8")).toBe(before);
  });

  it("lets exactly one of 50 concurrent writers on the same base win", async () => {
    const { id, base } = await checkoutDoc(t);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => put(t, id, "race.txt", `writer ${i}\n`, base)),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(49);
    const winner = await json<WriteResult>(results[statuses.indexOf(200)]!);
    const onDisk = readFileSync(join(t.root, "checkout/race.txt"), "utf8");
    expect(onDisk).toMatch(/^writer \d+\n$/);
    const stored = await t.req("GET", `/docs/${id}/files/content?path=race.txt&version=${winner.version.id}`);
    expect(await stored.text()).toBe(onDisk);
    expect(readdirSync(join(t.root, "checkout")).filter((f) => f.startsWith(".sr-tmp"))).toEqual([]);
  });

  it("records edits made on disk as versions by local, and a write based on the old version conflicts", async () => {
    const { id, base } = await checkoutDoc(t);
    writeFileSync(
      join(t.root, "checkout/prd.md"),
      readFileSync(join(t.root, "checkout/prd.md"), "utf8") + "\nEdited in vim.\n",
    );
    const versions = await json<Items<Version>>(t.req("GET", `/docs/${id}/versions`));
    expect(versions.items[0]).toMatchObject({ number: 2, created_by: "local" });
    await problem(await put(t, id, "prd.md", "---\ntype: prd\n---\n", base), 409, "version_conflict");
  });

  it("lists the files of a version with sizes, hashes and media types; non-UTF-8 files are bytes", async () => {
    const { id, base } = await checkoutDoc(t);
    const bin = new Uint8Array([0xff, 0xfe, 0x00, 0x81, 0x41]);
    const w = await json<WriteResult>(put(t, id, "data/blob.md", bin, base));
    const files = await json<FileList>(t.req("GET", `/docs/${id}/files`));
    expect(files.version.id).toBe(w.version.id);
    expect(files.items.map((f) => f.path)).toEqual(["data/blob.md", "flow.svg", "prd.md"]);
    expect(files.items[0]).toMatchObject({ size: 5, text: false, media_type: "application/octet-stream" });
    expect(files.items[2]).toMatchObject({ text: true, media_type: "text/markdown; charset=utf-8" });
    const raw = await t.req("GET", `/docs/${id}/files/content?path=data/blob.md`);
    expect(new Uint8Array(await raw.arrayBuffer())).toEqual(bin);
    const v1 = await json<FileList>(t.req("GET", `/docs/${id}/files?version=1`));
    expect(v1.items.map((f) => f.path)).toEqual(["flow.svg", "prd.md"]);
  });

  it("deletes and renames files as versions; the spec doc cannot be deleted or untyped", async () => {
    const { id, base } = await checkoutDoc(t);
    const del = await json<WriteResult>(
      t.req("DELETE", `/docs/${id}/files?path=flow.svg&base_version=${base}`),
    );
    expect(del).toMatchObject({ changed: true, version: { number: 2, message: "Delete flow.svg" } });
    expect(existsSync(join(t.root, "checkout/flow.svg"))).toBe(false);
    await problem(
      await t.req("DELETE", `/docs/${id}/files?path=flow.svg&base_version=${del.version.id}`),
      404,
      "file_not_found",
    );

    const ren = await t.req("POST", `/docs/${id}/files/rename?base_version=${del.version.id}`, {
      from: "prd.md",
      to: "requirements.md",
    });
    expect(ren.status).toBe(200);
    const r = await json<WriteResult>(ren);
    expect(r.version.number).toBe(3);
    expect(existsSync(join(t.root, "checkout/requirements.md"))).toBe(true);
    expect(existsSync(join(t.root, "checkout/prd.md"))).toBe(false);
    const doc = await json<SpecDoc>(t.req("GET", `/docs/${id}`));
    expect(doc.path).toBe("requirements.md");

    await problem(
      await t.req("DELETE", `/docs/${id}/files?path=requirements.md&base_version=${r.version.id}`),
      409,
      "main_doc_required",
    );
    await problem(await put(t, id, "requirements.md", "# no type\n", r.version.id), 409, "main_doc_required");
    await problem(
      await put(t, id, "second.md", "---\ntype: adr\n---\n# Two\n", r.version.id),
      409,
      "two_spec_docs",
    );
    await problem(
      await t.req("POST", `/docs/${id}/files/rename?base_version=${r.version.id}`, {
        from: "nope.md",
        to: "x.md",
      }),
      404,
      "file_not_found",
    );
  });

  it.each([
    ["../escape.md", "leads outside"],
    ["/etc/passwd", "absolute"],
    ["a\\b.md", "backslash"],
    ["dir/./x.md", ". segment"],
    [".git/config", "hidden"],
    ["ok%00.md", "NUL"],
  ])("refuses the path %s with 400 bad_path and touches nothing", async (path, why) => {
    const { id, base } = await checkoutDoc(t);
    const body = await problem(await put(t, id, decodeURIComponent(path), "x", base), 400, "bad_path");
    expect(String(body.detail)).toContain(why);
    const versions = await json<Items<Version>>(t.req("GET", `/docs/${id}/versions`));
    expect(versions.items).toHaveLength(1);
  });

  it.each([
    ["a 256-character name", `${"n".repeat(256)}.md`, "longer than 255 bytes"],
    ["a long folder name", `${"d".repeat(300)}/x.txt`, "longer than 255 bytes"],
    ["the spec doc used as a folder", "prd.md/x", "as a folder"],
    ["an asset used as a folder", "flow.svg/deeper/x.txt", "as a folder"],
    ["a bidirectional override", "invoice\u202Egpj.md", "bidirectional"],
    ["a bidirectional isolate", "a\u2067b.txt", "bidirectional"],
    ["a C1 control character", "a\u009bb.txt", "control character"],
  ])("refuses %s with 400 bad_path, nothing written", async (_what, path, why) => {
    const { id, base } = await checkoutDoc(t);
    const body = await problem(await put(t, id, path, "x", base), 400, "bad_path");
    expect(String(body.detail)).toContain(why);
    const versions = await json<Items<Version>>(t.req("GET", `/docs/${id}/versions`));
    expect(versions.items).toHaveLength(1);
    expect(readdirSync(join(t.root, "checkout")).sort()).toEqual(["api", "design", "flow.svg", "prd.md"]);
  });

  it("treats names that differ only in Unicode normalization as one file (NFC)", async () => {
    const { id, base } = await checkoutDoc(t);
    const nfd = "notes/cafe\u0301.md";
    const nfc = nfd.normalize("NFC");
    const first = await json<WriteResult>(put(t, id, nfd, "first", base));
    const second = await json<WriteResult>(put(t, id, nfc, "second", first.version.id));
    expect(second.version.message).toBe(`Update ${nfc}`);
    const files = await json<FileList>(t.req("GET", `/docs/${id}/files`));
    expect(files.items.filter((f) => f.path.startsWith("notes/")).map((f) => f.path)).toEqual([nfc]);
    const raw = await t.req("GET", `/docs/${id}/files/content?path=${encodeURIComponent(nfd)}`);
    expect(await raw.text()).toBe("second");
    expect(readdirSync(join(t.root, "checkout/notes"))).toEqual([nfc.slice("notes/".length)]);
  });

  it("answers a stale-base DELETE or rename of a file already gone with 409 version_conflict", async () => {
    const { id, base } = await checkoutDoc(t);
    const del = await json<WriteResult>(
      t.req("DELETE", `/docs/${id}/files?path=flow.svg&base_version=${base}`),
    );
    expect(del.changed).toBe(true);
    const again = await problem(
      await t.req("DELETE", `/docs/${id}/files?path=flow.svg&base_version=${base}`),
      409,
      "version_conflict",
    );
    expect(again.current_version).toMatchObject({ id: del.version.id, number: 2 });
    await problem(
      await t.req("POST", `/docs/${id}/files/rename?base_version=${base}`, { from: "flow.svg", to: "f.svg" }),
      409,
      "version_conflict",
    );
    await problem(
      await t.req("POST", `/docs/${id}/files/rename?base_version=${del.version.id}`, {
        from: "flow.svg",
        to: "f.svg",
      }),
      404,
      "file_not_found",
    );
  });

  it("answers 400 for a version number past bigint (the query schema refuses it), and reads an upper-case version id", async () => {
    const { id, base } = await checkoutDoc(t);
    for (const v of ["99999999999999999999", "9223372036854775808"]) {
      await problem(await t.req("GET", `/docs/${id}/files?version=${v}`), 400, "validation_failed");
      await problem(await t.req("GET", `/docs/${id}/diff?from=${v}`), 400, "validation_failed");
    }
    const upper = await json<FileList>(t.req("GET", `/docs/${id}/files?version=${base.toUpperCase()}`));
    expect(upper.version.id).toBe(base);
  });

  it("refuses to write through a symlink that leads outside the bundle", async () => {
    const { id, base } = await checkoutDoc(t);
    const outside = join(t.root, "..", `outside-${Date.now()}`);
    mkdirSync(outside);
    symlinkSync(outside, join(t.root, "checkout/link"));
    await problem(await put(t, id, "link/evil.txt", "x", base), 400, "bad_path");
    expect(existsSync(join(outside, "evil.txt"))).toBe(false);
  });

  it("refuses a file over max_file_mb and a bundle over max_bundle_mb with 413", async () => {
    const { id, base } = await checkoutDoc(t);
    const set = await t.req("PUT", "/admin/settings", {
      ...SETTING_DEFAULTS,
      max_file_mb: 1,
      max_bundle_mb: 2,
    });
    expect(set.status, await set.clone().text()).toBe(200);
    const big = new Uint8Array(1024 * 1024 + 1);
    await problem(await put(t, id, "big.bin", big, base), 413, "file_too_large");
    const ok = await json<WriteResult>(put(t, id, "a.bin", new Uint8Array(1024 * 1024 - 10), base));
    await problem(
      await put(t, id, "b.bin", new Uint8Array(1024 * 1024 - 10), ok.version.id),
      413,
      "bundle_too_large",
    );
    expect(existsSync(join(t.root, "checkout/b.bin"))).toBe(false);
  });

  it("validates queries: a missing base_version or a version of another bundle is a 400", async () => {
    const { id } = await checkoutDoc(t);
    const missing = await problem(await put(t, id, "x.txt", "x", ""), 400, "validation_failed");
    expect(JSON.stringify(missing.errors)).toContain("query.base_version");
    const list = await json<BundleList>(t.req("GET", "/bundles"));
    const other = list.items.find((b) => b.slug === "checkout/api")!.docs[0]!.current_version.id;
    await problem(await t.req("GET", `/docs/${id}/files?version=${other}`), 400, "bad_version");
    await problem(await t.req("GET", `/docs/${id}/files/content?path=nope.md`), 404, "file_not_found");
    await problem(await t.req("GET", `/docs/00000000-0000-4000-8000-000000000000/files`), 404, "not_found");
  });

  it("diffs two versions by file and by section of the main doc", async () => {
    const { id, base } = await checkoutDoc(t);
    const text = readFileSync(join(t.root, "checkout/prd.md"), "utf8");
    const edited = text.replace(
      "Signed-in shoppers on web and mobile web.",
      "Signed-in shoppers on web, mobile web and the app.",
    );
    const w = await json<WriteResult>(put(t, id, "prd.md", edited, base));
    await put(t, id, "extra.txt", "new", w.version.id);
    const diff = await json<Diff>(t.req("GET", `/docs/${id}/diff?from=1&to=${w.version.id}`));
    expect(diff.from.number).toBe(1);
    expect(diff.to.number).toBe(2);
    expect(diff.files).toHaveLength(1);
    expect(diff.files[0]).toMatchObject({ path: "prd.md", change: "modified", additions: 1, deletions: 1 });
    expect(diff.files[0]!.patch).toContain("+Signed-in shoppers on web, mobile web and the app.");
    expect(diff.sections).toEqual([
      expect.objectContaining({
        heading_path: ["One-page checkout", "Users"],
        change: "modified",
        additions: 1,
        deletions: 1,
      }),
    ]);
    const latest = await json<Diff>(t.req("GET", `/docs/${id}/diff`));
    expect(latest.files.map((f) => [f.path, f.change])).toEqual([["extra.txt", "added"]]);
    expect(latest.sections).toEqual([]);
  });

  it("exports any version as a zip of the bundle folder", async () => {
    const { id, base } = await checkoutDoc(t);
    await put(t, id, "later.txt", "later", base);
    const res = await t.req("GET", `/docs/${id}/export?version=1`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/zip");
    const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
    expect(Object.keys(files).sort()).toEqual(["checkout/flow.svg", "checkout/prd.md"]);
    expect(new TextDecoder().decode(files["checkout/prd.md"])).toBe(
      readFileSync(join(DEMO, "checkout/prd.md"), "utf8"),
    );
  });
});
