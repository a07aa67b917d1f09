import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { DB_KINDS, json, makeTestApp, type TestApp } from "../helpers/app.js";
import type { BundleList } from "../helpers/types.js";

const DEMO = resolve(import.meta.dirname, "../../fixtures/demo");

/** A design doc a team wrote before adopting spec-review: a type, no size, no goals or risks sections. */
const ADOPTED = `---
type: design
---
# Search indexer

## Context

Search results lag behind edits by up to an hour because the indexer runs as a nightly batch.

## Proposed design

The indexer consumes the change feed and updates the index within 5 seconds of a commit.
`;

async function reportOf(t: TestApp, slug: string): Promise<string> {
  await t.local.scanAll();
  const list = await json<BundleList>(t.req("GET", "/bundles"));
  const doc = list.items.find((b) => b.slug === slug)?.docs[0];
  if (!doc) throw new Error(`no bundle ${slug}`);
  await t.runs.idle();
  const res = await t.req("GET", `/docs/${doc.id}/export?format=html`);
  expect(res.status).toBe(200);
  return res.text();
}

describe.each(DB_KINDS)("the HTML report says what adoption did, on %s", (kind) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await makeTestApp({ kind, fixture: DEMO });
  });
  afterEach(async () => {
    await t.close();
  });

  it("names the guessed size and how many findings of how many checks were lowered, as the CLI does", async () => {
    mkdirSync(join(t.root, "indexer"), { recursive: true });
    writeFileSync(join(t.root, "indexer/design.md"), ADOPTED);
    const html = await reportOf(t, "indexer");
    const note = /<p class="adoption">([^<]*)<\/p>/.exec(html)?.[1];
    expect(note).toBeDefined();
    expect(note).toMatch(/^Adoption: the doc names no size, so it was read at &#39;\w+&#39;\. /);
    const relaxed = (html.match(/<span class="relaxed"/g) ?? []).length;
    expect(relaxed).toBeGreaterThan(0);
    expect(note).toContain(`${relaxed} finding${relaxed === 1 ? " " : "s "}of `);
    expect(note).toContain("Add `size: ");
  });

  it("says nothing of adoption when the doc names its type and size", async () => {
    mkdirSync(join(t.root, "indexer"), { recursive: true });
    writeFileSync(
      join(t.root, "indexer/design.md"),
      ADOPTED.replace("type: design\n", "type: design\nsize: small\n"),
    );
    const html = await reportOf(t, "indexer");
    expect(html).not.toContain('class="adoption"');
    expect(html).not.toContain("Adoption:");
  });
});
