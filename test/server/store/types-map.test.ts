/**
 * `serve` on a folder whose `.spec-review/config.yaml` types markdown that names none:
 * by path or glob, a doc the map names is a spec doc, linted as that type.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { json, makeTestApp, type TestApp } from "../../helpers/app.js";
import type { BundleList } from "../../helpers/types.js";

const fixtures: string[] = [];
afterAll(() => {
  for (const d of fixtures) rmSync(d, { recursive: true, force: true });
});
function folder(files: Record<string, string>): string {
  const d = mkdtempSync(join(tmpdir(), "sr-types-serve-"));
  fixtures.push(d);
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(join(d, p, ".."), { recursive: true });
    writeFileSync(join(d, p), text);
  }
  return d;
}

// An enhancement-proposal README without frontmatter, and Nygard records.
const kep = `# KEP-1234: Pod resize without restart

<!-- toc -->
- [Summary](#summary)
<!-- /toc -->

## Summary

Containers can change their CPU and memory requests while the pod keeps running.

## Motivation

Restarting a pod to resize it drops connections and warm caches.

## Proposal

The kubelet applies a new resize field to the running container through the runtime.
`;
const record = (n: number, title: string) => `# ${n}. ${title}

Date: 2024-02-0${n}

## Status

Accepted

## Context

Exports time out when a tenant has more than a million rows.

## Decision

We stream exports in pages of 10,000 rows from a read replica.

## Consequences

Exports take longer to start; replicas carry the load.
`;

describe("serve: types from the served folder's .spec-review/config.yaml", () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it("serves the docs the map names (glob and exact path) as bundles of that type; others stay skipped", async () => {
    const root = folder({
      ".spec-review/config.yaml":
        'types:\n  "keps/*/README.md": kep\n  "decisions/*/record.md": madr\n  decisions/0002-pages/record.md: nygard\n',
      "keps/1234-resize/README.md": kep,
      "decisions/0001-streams/record.md": record(1, "Stream exports"),
      "decisions/0002-pages/record.md": record(2, "Pages of exports"),
      "notes/README.md": "# Notes\n\nJust notes.\n",
    });
    t = await makeTestApp({ kind: "pglite", fixture: root });
    await t.runs.idle();
    const body = await json<BundleList>(t.req("GET", "/bundles"));
    const bySlug = Object.fromEntries(body.items.map((b) => [b.slug, b.docs[0]!.profile_key]));
    expect(bySlug).toEqual({
      "decisions/0001-streams": "madr",
      "decisions/0002-pages": "nygard",
      "keps/1234-resize": "kep",
    });
    const skipped = await json<{ items: { path: string }[] }>(t.req("GET", "/skipped"));
    expect(skipped.items.map((s) => s.path)).toEqual(["notes/README.md"]);
  });
});
