/**
 * `spec-review lint` checks frontmatter links to bundles among the bundles under the folder
 * it is given (slugs relative to it, as `serve` and `spec-review trace` name them): a slug
 * that names no bundle, or the doc's own, is a SHOULD finding of `links-resolve` at the
 * link; a slug that names a folder above the one linted (up to the repository's root) is
 * left alone, since that bundle was simply not part of the run.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { jsonReport } from "../../cli/lint.js";
import { lintPaths } from "../../cli/lint-fs.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "sr-lint-links-"));
  dirs.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const PRD = `---
type: prd
title: "Checkout 🛒"
owner: payments
status: Approved
---
# Checkout

## Problem
Shoppers abandon carts when the checkout asks for an account first.

## Requirements
- REQ-1: A guest MUST be able to pay without an account.
`;

// A design doc in the shape teams write: CRLF line ends, a list of targets, a URL beside slugs.
const DESIGN = [
  "---",
  "type: design",
  "title: Guest checkout design",
  "implements: shop/checkout",
  "references:",
  "  - ./shop/checkout/",
  "  - https://example.com/rfcs/0042",
  "supersedes: shop/old-checkout-design",
  "refines: shop/design",
  "---",
  "# Guest checkout design",
  "",
  "## Context",
  "Implements REQ-1 of the checkout PRD.",
  "",
].join("\r\n");

const FILES = {
  "shop/checkout/prd.md": PRD,
  "shop/design/design.md": DESIGN,
};

interface Found {
  check: string;
  level: string;
  message: string;
  start: { line: number; column: number };
}

function linkFindings(doc: { findings: Found[] }) {
  return doc.findings
    .filter((f) => f.check === "links-resolve")
    .map((f) => `${f.level} ${f.start.line}:${f.start.column} ${f.message}`);
}

describe("spec-review lint: frontmatter links to bundles", () => {
  it("reports a slug that names no bundle, and the doc's own, at the link, and counts them", async () => {
    const root = tree(FILES);
    const report = await lintPaths([root], { workers: 0 });
    const design = report.docs.find((d) => d.path.endsWith("design.md"))!;
    expect(linkFindings(design as never)).toEqual([
      "SHOULD 8:13 Link `supersedes: shop/old-checkout-design` names no bundle",
      "SHOULD 9:10 Link `refines: shop/design` names this doc's own bundle",
    ]);
    expect(design.verdict.should).toBe(design.findings.filter((f) => f.level === "SHOULD").length);
    const prd = report.docs.find((d) => d.path.endsWith("prd.md"))!;
    expect(linkFindings(prd as never)).toEqual([]);
    // The links the check read are not part of the report.
    expect(JSON.stringify(jsonReport(report))).not.toContain("bundle_links");
  });

  it("gives the same findings with worker threads", async () => {
    const root = tree({
      ...FILES,
      ...Object.fromEntries(
        Array.from({ length: 6 }, (_, i) => [`more/p${i}/prd.md`, PRD.replace("Checkout", `Part ${i}`)]),
      ),
    });
    const alone = await lintPaths([root], { workers: 0 });
    const threads = await lintPaths([root], { workers: 2 });
    const strip = (r: typeof alone) =>
      r.docs.map((d) => ({ path: d.path, links: linkFindings(d as never), should: d.verdict.should }));
    expect(strip(threads)).toEqual(strip(alone));
    expect(strip(alone).find((d) => d.path.endsWith("design.md"))!.links).toHaveLength(2);
  });

  it("leaves alone a slug that names a folder above the one linted, and still reports one that names nothing", async () => {
    const root = tree(FILES);
    const report = await lintPaths([join(root, "shop", "design")], { workers: 0 });
    expect(linkFindings(report.docs[0] as never)).toEqual([
      "SHOULD 8:13 Link `supersedes: shop/old-checkout-design` names no bundle",
    ]);
  });

  it("looks no higher than the repository's root", async () => {
    // The linked folder exists, but outside the repository the lint runs in.
    const outer = tree({ "shop/checkout/prd.md": PRD });
    const repo = join(outer, "repo");
    mkdirSync(join(repo, ".git"), { recursive: true });
    mkdirSync(join(repo, "shop", "design"), { recursive: true });
    writeFileSync(join(repo, "shop", "design", "design.md"), DESIGN);
    const report = await lintPaths([repo], { workers: 0 });
    expect(linkFindings(report.docs[0] as never)).toEqual([
      "SHOULD 4:13 Link `implements: shop/checkout` names no bundle",
      "SHOULD 6:7 Link `references: shop/checkout` names no bundle",
      "SHOULD 8:13 Link `supersedes: shop/old-checkout-design` names no bundle",
      "SHOULD 9:10 Link `refines: shop/design` names this doc's own bundle",
    ]);
  });
});
