/**
 * The report formats' input, made the way `spec-review lint` makes it: the PRD in
 * fixtures/report/offline-sync (emoji, CJK and a ✅ before its findings), copied into a
 * temporary folder with LF or CRLF line ends, and linted from that folder.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lintPaths } from "../../../cli/lint-fs.js";
import { packageRoot } from "../../../node/package.js";

export const FIXTURE = join(packageRoot(), "fixtures", "report", "offline-sync");
export const DOC = "offline-sync/prd.md";

export interface LintedFixture {
  report: Awaited<ReturnType<typeof lintPaths>>;
  /** The doc's text as linted. */
  text: string;
  dir: string;
}

/** Lint the fixture; `edit` changes its text first (after the line ends are set). */
export async function lintFixture(
  options: { crlf?: boolean; edit?: (text: string) => string } = {},
): Promise<LintedFixture> {
  const dir = mkdtempSync(join(tmpdir(), "report-fixture-"));
  try {
    cpSync(FIXTURE, join(dir, "offline-sync"), { recursive: true });
    let text = readFileSync(join(FIXTURE, "prd.md"), "utf8");
    if (options.crlf) text = text.replace(/\n/g, "\r\n");
    if (options.edit) text = options.edit(text);
    writeFileSync(join(dir, DOC), text);
    const report = await lintPaths(["offline-sync"], { cwd: dir, workers: 0 });
    return { report, text, dir };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** 1-based line and UTF-16 column of the first `needle` in `text` at or after `from`. */
export function where(text: string, needle: string, from = 0): { line: number; column: number } {
  const i = text.indexOf(needle, from);
  if (i < 0) throw new Error(`'${needle}' not in the fixture`);
  const before = text.slice(0, i);
  const line = before.split("\n").length;
  return { line, column: i - (before.lastIndexOf("\n") + 1) + 1 };
}
