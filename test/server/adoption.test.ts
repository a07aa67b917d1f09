import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { DB_KINDS, json, makeTestApp, problem, type TestApp } from "../helpers/app.js";
import type { BundleList, Items } from "../helpers/types.js";

const DEMO = resolve(import.meta.dirname, "../../fixtures/demo");

describe.each(DB_KINDS)("skipped and dismissed docs on %s", (kind) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await makeTestApp({ kind, fixture: DEMO });
  });
  afterEach(async () => {
    await t.close();
  });

  it("writes the picked types in one request, keeping the rest of the frontmatter, and the docs become bundles", async () => {
    mkdirSync(join(t.root, "legacy/billing"), { recursive: true });
    writeFileSync(join(t.root, "legacy/billing/spec.md"), "---\nowner: ana # keep me\n---\n# Billing\n");
    writeFileSync(join(t.root, "legacy/notes.md"), "# Notes\n");
    await t.local.scanAll();
    const res = await t.req("POST", "/skipped", {
      docs: [
        { path: "legacy/billing/spec.md", profile: "design" },
        { path: "notes/meeting-2026-10-01.md", profile: "prd" },
      ],
    });
    expect(res.status).toBe(200);
    const body = await json<BundleList>(res);
    expect(body.items.map((b) => [b.slug, b.docs[0]!.profile_key]).sort()).toEqual([
      ["legacy/billing", "design"],
      ["notes", "prd"],
    ]);
    expect(readFileSync(join(t.root, "legacy/billing/spec.md"), "utf8")).toBe(
      "---\nowner: ana # keep me\ntype: design\n---\n# Billing\n",
    );
    expect(readFileSync(join(t.root, "notes/meeting-2026-10-01.md"), "utf8")).toMatch(
      /^---\ntype: prd\n---\n\n# Checkout sync/,
    );
    const skipped = await json<Items<{ path: string }>>(t.req("GET", "/skipped"));
    expect(skipped.items.map((i) => i.path)).toEqual(["README.md", "legacy/notes.md"]);
  });

  it("refuses picks that would put two spec docs in one folder, or a file that is not skipped, writing nothing", async () => {
    mkdirSync(join(t.root, "pair"));
    writeFileSync(join(t.root, "pair/a.md"), "# A\n");
    writeFileSync(join(t.root, "pair/b.md"), "# B\n");
    await t.local.scanAll();
    await problem(
      await t.req("POST", "/skipped", {
        docs: [
          { path: "pair/a.md", profile: "prd" },
          { path: "pair/b.md", profile: "prd" },
        ],
      }),
      409,
      "two_spec_docs",
    );
    expect(readFileSync(join(t.root, "pair/a.md"), "utf8")).toBe("# A\n");
    await problem(
      await t.req("POST", "/skipped", { docs: [{ path: "checkout/prd.md", profile: "prd" }] }),
      400,
      "validation_failed",
    );
    await problem(
      await t.req("POST", "/skipped", { docs: [{ path: "pair/a.md", profile: "Bad Key" }] }),
      400,
      "validation_failed",
    );
    await problem(
      await t.req("POST", "/skipped", { docs: [{ path: "../x.md", profile: "prd" }] }),
      400,
      "bad_path",
    );
    await problem(
      await t.req("POST", "/skipped", "{not json", { "content-type": "application/json" }),
      400,
      "invalid_json",
    );
  });

  it("dismisses a file so it is no longer offered, and takes the mark off again", async () => {
    const add = await t.req("POST", "/dismissed-docs", { path: "README.md" });
    expect(add.status).toBe(200);
    expect(await add.json()).toMatchObject({ path: "README.md", created_by: "admin" });
    const list = await json<Items<{ path: string }>>(t.req("GET", "/dismissed-docs"));
    expect(list.items.map((i) => i.path)).toEqual(["README.md"]);
    const skipped = await json<Items<{ path: string }>>(t.req("GET", "/skipped"));
    expect(skipped.items.map((i) => i.path)).toEqual(["notes/meeting-2026-10-01.md"]);
    const del = await t.req("DELETE", "/dismissed-docs?path=README.md");
    expect(del.status).toBe(200);
    await problem(await t.req("DELETE", "/dismissed-docs?path=README.md"), 404, "not_found");
    await problem(await t.req("POST", "/dismissed-docs", { path: "nope.md" }), 404, "file_not_found");
    await problem(await t.req("POST", "/dismissed-docs", {}), 400, "validation_failed");
  });
});

describe("meta, me and render", () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await makeTestApp({ fixture: DEMO });
  });
  afterEach(async () => {
    await t.close();
  });

  it("says the API version and mode, and that the local caller is the signed-in admin", async () => {
    expect(await (await t.req("GET", "/meta")).json()).toEqual({
      api_version: "0.1.0",
      server_version: "0.0.0-test",
      mode: "local",
    });
    expect(await (await t.req("GET", "/me")).json()).toMatchObject({
      signed_in: true,
      user: { role: "admin" },
    });
  });

  it("renders markdown with each block's source position in UTF-8 bytes, frontmatter included", async () => {
    const markdown =
      "---\ntype: prd\n---\n# Größe\n\nA paragraph.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n<script>alert(1)</script>\n";
    const res = await t.req("POST", "/render", { markdown });
    expect(res.status).toBe(200);
    const { html } = (await res.json()) as { html: string };
    const bytes = Buffer.from(markdown);
    const h1 = /<h1 data-source-start="(\d+)" data-source-end="(\d+)" data-source-line="(\d+)"/.exec(html)!;
    expect(bytes.subarray(Number(h1[1]), Number(h1[2])).toString()).toBe("# Größe");
    expect(h1[3]).toBe("4");
    const p = /<p data-source-start="(\d+)" data-source-end="(\d+)"/.exec(html)!;
    expect(bytes.subarray(Number(p[1]), Number(p[2])).toString()).toBe("A paragraph.");
    expect(html).toContain("<table");
    expect(html).not.toContain("<script>");
    await problem(await t.req("POST", "/render", { text: "x" }), 400, "validation_failed");
    await problem(
      await t.req("POST", "/render", "# x", { "content-type": "text/plain" }),
      415,
      "unsupported_media_type",
    );
  });
});
