/**
 * `npm run eval:review` end to end, as CI runs it: the scripted test model behind a real
 * local OpenAI-compatible server, the app and worker on an embedded PGlite, every bundle
 * through POST /docs/{docId}/runs, scored against its expected.yaml, reports written.
 * A small corpus keeps it quick: one clean control of fixtures/eval, and one bundle whose
 * planted ambiguity the scripted readers do read differently.
 */
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const TSX = fileURLToPath(import.meta.resolve("tsx"));
const run = promisify(execFile);

describe("eval:review", { timeout: 180_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), "sr-eval-test-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reviews the corpus through the service, scores it and writes both reports", async () => {
    const corpus = join(dir, "corpus");
    cpSync(join(ROOT, "fixtures/eval/prd-clean-dark-mode"), join(corpus, "prd-clean-dark-mode"), {
      recursive: true,
    });
    mkdirSync(join(corpus, "prd-retries"));
    writeFileSync(
      join(corpus, "prd-retries", "spec.md"),
      [
        "---",
        "type: prd",
        "size: small",
        "title: Payment retries",
        "owner: Kim Lee",
        "---",
        "",
        "# Payment retries",
        "",
        "## Problem",
        "",
        "Card payments fail for short network errors and shoppers give up.",
        "",
        "## Requirements",
        "",
        "- REQ-001 A failed payment is retried a few times (ambiguous).",
        "",
        "## Acceptance criteria",
        "",
        "- A payment that fails once and then succeeds is charged once.",
        "",
      ].join("\n"),
    );
    writeFileSync(
      join(corpus, "prd-retries", "expected.yaml"),
      [
        "profile: prd",
        "clean: false",
        "defects:",
        "  - kind: ambiguity",
        "    path: [Payment retries, Requirements]",
        "    quote: retried a few times",
        "  - kind: unsupported-claim",
        "    path: [Payment retries, Problem]",
      ].join("\n"),
    );
    const out = join(dir, "out");
    const { stdout } = await run(
      process.execPath,
      ["--import", TSX, join(ROOT, "eval/review.ts"), "--corpus", corpus, "--out", out, "--parallel", "2"],
      { cwd: ROOT },
    );
    expect(stdout).toMatch(/2 bundles, model scripted/);
    expect(stdout).toMatch(/\| ambiguity \| 1 \| 1 \| 100% \|/);
    const report = JSON.parse(readFileSync(join(out, "eval-report.json"), "utf8")) as {
      summary: {
        overall: { planted: number; caught: number };
        false_must_per_clean_doc: number;
        clean_bundles: number;
      };
      totals: { calls: number; tokens_in: number; failed_runs: number };
      bundles: Array<{ bundle: string; status: string; defects: Array<{ caught: boolean }> }>;
    };
    expect(report.summary.overall).toMatchObject({ planted: 2, caught: 1 });
    expect(report.summary.clean_bundles).toBe(1);
    expect(report.summary.false_must_per_clean_doc).toBe(0);
    expect(report.totals.failed_runs).toBe(0);
    expect(report.totals.calls).toBeGreaterThan(0);
    expect(report.totals.tokens_in).toBeGreaterThan(0);
    expect(report.bundles.map((b) => [b.bundle, b.status])).toEqual([
      ["prd-clean-dark-mode", "done"],
      ["prd-retries", "done"],
    ]);
    const md = readFileSync(join(out, "eval-report.md"), "utf8");
    expect(md).toContain("| **overall** | 2 | 1 | 50% |");
    expect(md).toContain("- prd-retries: unsupported-claim in Payment retries > Problem");
  });

  it("refuses a kind it does not know, with exit code 2", async () => {
    const err = await run(
      process.execPath,
      ["--import", TSX, join(ROOT, "eval/review.ts"), "--only", "typo"],
      {
        cwd: ROOT,
      },
    ).catch((e: { code: number; stderr: string }) => e);
    expect(err).toMatchObject({ code: 2 });
    expect((err as { stderr: string }).stderr).toMatch(/--only must be one of ambiguity/);
  });
});
