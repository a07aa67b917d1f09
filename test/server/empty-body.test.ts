/** PUT /docs/{docId}/files/content with an empty body: its own 400, nothing written. */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, makeTestApp, problem, type TestApp } from "../helpers/app.js";
import type { BundleList, Items, Version } from "../helpers/types.js";

const DEMO = resolve(import.meta.dirname, "../../fixtures/demo");

describe("an empty file write", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp({ fixture: DEMO });
  });
  afterAll(async () => {
    await t.close();
  });

  it("answers 400 empty_body, not a misleading code, and changes nothing", async () => {
    const list = await json<BundleList>(t.req("GET", "/bundles"));
    const doc = list.items.find((b) => b.slug === "checkout")!.docs[0]!;
    const before = readFileSync(join(t.root, "checkout", doc.path), "utf8");
    for (const path of [doc.path, "notes/new.md"]) {
      const res = await t.req(
        "PUT",
        `/docs/${doc.id}/files/content?path=${encodeURIComponent(path)}&base_version=${doc.current_version.id}`,
        "",
        { "content-type": "application/octet-stream" },
      );
      const body = await problem(res, 400, "empty_body");
      expect(body.detail).toMatch(/has no body: send the new bytes of/);
    }
    expect(readFileSync(join(t.root, "checkout", doc.path), "utf8")).toBe(before);
    const versions = await json<Items<Version>>(t.req("GET", `/docs/${doc.id}/versions`));
    expect(versions.items).toHaveLength(1);
  });
});
