/**
 * Issue 9, "4xx for every bad input": inputs that gave 500s (or wrong 404s) before.
 */
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, makeTestApp, problem, type TestApp } from "../../helpers/app.js";
import type { BundleList } from "../../helpers/types.js";
import { renderMarkdown, safeUrl } from "../../../core/render/html.js";
import { parseFrontmatter } from "../../../core/markdown/frontmatter.js";

const DEMO = resolve(import.meta.dirname, "../../../fixtures/demo");

/** YAML whose expansion needs more than 100 aliases. */
const ALIAS_BOMB =
  "type: prd\na: &a [x, x, x, x, x, x, x, x, x, x]\n" +
  Array.from(
    { length: 12 },
    (_, i) =>
      `b${i}: [${Array(10)
        .fill(i === 0 ? "*a" : `*b${i - 1}`)
        .join(", ")}]`,
  )
    .map((line, i) => line.replace(/^b(\d+): \[/, `b${i}: &b${i} [`))
    .join("\n");

describe("bad inputs answer 4xx", () => {
  let t: TestApp;
  let docId: string;
  let base: string;
  beforeAll(async () => {
    t = await makeTestApp({ fixture: DEMO });
    const list = await json<BundleList>(t.req("GET", "/bundles"));
    const doc = list.items.find((b) => b.slug === "checkout")!.docs[0]!;
    docId = doc.id;
    base = doc.current_version.id;
  });
  afterAll(async () => {
    await t.close();
  });

  it("refuses version numbers past int64 (and past 2^53) on files, export and diff with 400", async () => {
    for (const v of ["99999999999999999999", "9223372036854775808", "9007199254740993"]) {
      for (const path of [
        `/docs/${docId}/files?version=${v}`,
        `/docs/${docId}/files/content?path=prd.md&version=${v}`,
        `/docs/${docId}/export?version=${v}`,
        `/docs/${docId}/diff?from=1&to=${v}`,
        `/docs/${docId}/diff?from=${v}&to=1`,
      ]) {
        const res = await t.req("GET", path);
        const body = await problem(res, 400, "validation_failed");
        expect(String(body.detail), path).toMatch(/at most/);
      }
    }
    // A number in range that names no version is bad_version, as before.
    await problem(await t.req("GET", `/docs/${docId}/files?version=123456`), 400, "bad_version");
  });

  it("refuses a NUL where the database cannot store one, and a cursor past 2^53, with 400 (found by the fuzz test)", async () => {
    const nul = await t.req("POST", "/admin/backends", { kind: "provider_1", name: "a\u0000b" });
    await problem(nul, 400, "validation_failed");
    for (const path of ["/profiles/a%00b", "/profiles/prd%00/diff?from=1&to=1"])
      await problem(await t.req("GET", path), 400, "validation_failed");
    await problem(
      await t.req("GET", `/docs/${docId}/versions?cursor=99999999999999999999`),
      400,
      "validation_failed",
    );
    // An escaped backslash before "u0000" is ordinary text.
    const fine = await t.req("POST", "/render", { markdown: "C:\\u0000 is a path" });
    expect(fine.status).toBe(200);
  });

  it("treats an upper-case UUID as the same resource", async () => {
    const upper = docId.toUpperCase();
    const doc = await t.req("GET", `/docs/${upper}`);
    expect(doc.status).toBe(200);
    expect(((await doc.json()) as { id: string }).id).toBe(docId);
    const files = await t.req("GET", `/docs/${upper}/files?version=${base.toUpperCase()}`);
    expect(files.status).toBe(200);
    const put = await t.req(
      "PUT",
      `/docs/${upper}/files/content?path=notes.md&base_version=${base.toUpperCase()}`,
      "# Notes\n",
      { "content-type": "application/octet-stream" },
    );
    expect(put.status, await put.clone().text()).toBe(200);
    const runs = await t.req("GET", `/docs/${upper}/runs`);
    expect(runs.status).toBe(200);
  });

  it("reports frontmatter with an alias bomb as a frontmatter problem, never a 500", async () => {
    const fm = parseFrontmatter(`---\n${ALIAS_BOMB}\n---\n# Doc\n`);
    expect(fm.error?.message).toMatch(/frontmatter cannot be read/);
    expect(fm.error?.message).toMatch(/alias/i);
    const deep = parseFrontmatter(`---\na: ${"[".repeat(50_000)}\n---\n`);
    expect(deep.error).toBeDefined();

    const body = `---\n${ALIAS_BOMB}\n---\n# Checkout\n\nText.\n`;
    const put = await t.req(
      "PUT",
      `/docs/${docId}/files/content?path=aliases.md&base_version=${(await json<{ current_version: { id: string } }>(t.req("GET", `/docs/${docId}`))).current_version.id}`,
      body,
      { "content-type": "application/octet-stream" },
    );
    expect(put.status, await put.clone().text()).toBeLessThan(500);
    const rendered = await t.req("POST", "/render", { markdown: body });
    expect(rendered.status).toBe(200);
    const guessed = await t.req("POST", "/profiles/guess", { text: body });
    expect(guessed.status).toBeLessThan(500);
  });

  it("drops javascript:, vbscript: and non-image data: addresses from rendered links and images", async () => {
    const md = [
      "[a](javascript:alert(1)) [b](JaVaScRiPt:alert(2)) [c](vbscript:msgbox(3))",
      "[d](data:text/html;base64,PHNjcmlwdD5hbGVydCg0KTwvc2NyaXB0Pg==) <javascript:alert(5)>",
      "[e](java&#x09;script:alert(6)) [ref][r]",
      "![img](data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=) ![ok](data:image/png;base64,iVBORw0KGgo=)",
      "[fine](https://example.com/x) [rel](./other.md#part) [mail](mailto:a@example.com) [frag](#top)",
      "",
      "[r]: javascript:alert(7)",
    ].join("\n");
    const res = await t.req("POST", "/render", { markdown: md });
    const { html } = (await res.json()) as { html: string };
    const addresses = [...html.matchAll(/(?:href|src)="([^"]*)"/g)].map((m) => m[1]!.toLowerCase());
    expect(addresses.filter((a) => /^(javascript|vbscript|data:text|data:image\/svg)/.test(a))).toEqual([]);
    expect(html).toContain("<a>a</a>");
    expect(html).toContain('href="https://example.com/x"');
    expect(html).toContain('href="./other.md#part"');
    expect(html).toContain('href="mailto:a@example.com"');
    expect(html).toContain('href="#top"');
    expect(html).toContain('src="data:image/png;base64,iVBORw0KGgo="');
    expect(renderMarkdown("[x](javascript:void(0))")).toContain("<a>x</a>");
    expect(safeUrl(" \u0000javascript:x", "href")).toBe(false);
    expect(safeUrl("folder/file.md", "href")).toBe(true);
  });
});
