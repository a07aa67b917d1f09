/**
 * What the report formats for other tools (codeclimate, junit, github, rdjson) read: the
 * linted docs with their positioned findings, and the folders that are not valid bundles.
 * `spec-review lint`'s report (node/lint.ts `LintReport`) has this shape. Pure.
 */
import { ENGINE_CHECKS } from "../lint/engine.js";
import type { Finding, Level } from "../lint/types.js";
import type { LineCol } from "../markdown/text.js";

/** A replacement that fixes a finding: UTF-8 byte offsets `[start, end)` of the doc, like an anchor's. */
export interface ReportEdit {
  start: number;
  end: number;
  text: string;
}

export interface ReportFinding extends Finding {
  /** 1-based line and UTF-16 column of the anchor's start and end. */
  start: LineCol;
  end: LineCol;
  /** Edits that fix the finding, when its check knows them. */
  fixes?: readonly ReportEdit[];
}

export interface ReportDoc {
  /** The doc's path as the reader resolves it (relative to the repository root, posix). */
  path: string;
  profile_key: string;
  findings: readonly ReportFinding[];
  verdict?: { result: string; score: number; must: number; should: number; info: number };
}

/** A folder that is not a valid bundle (two spec docs in it): no file to point at. */
export interface ReportProblem {
  path: string;
  message: string;
}

export interface ReportInput {
  docs: readonly ReportDoc[];
  problems?: readonly ReportProblem[];
}

/** A check's name across reports: `<profile>/<slug>`, engine checks `spec-review/<slug>` (as SARIF's rule ids). */
export function checkName(profileKey: string, check: string): string {
  return check in ENGINE_CHECKS ? `spec-review/${check}` : `${profileKey}/${check}`;
}

/** The end of a finding's range, never before its start. */
export function rangeEnd(f: { start: LineCol; end: LineCol }): LineCol {
  if (f.end.line > f.start.line) return f.end;
  return { line: f.start.line, column: Math.max(f.start.column, f.end.column) };
}

/** The most serious level among the findings, or undefined when there are none. */
export function worstLevel(findings: Iterable<{ level: Level }>): Level | undefined {
  let worst: Level | undefined;
  for (const f of findings) {
    if (f.level === "MUST") return "MUST";
    if (f.level === "SHOULD" || worst === undefined) worst = f.level;
  }
  return worst;
}

/** The last line a finding's text is on (an end exclusive at a line's first column is on the line before). */
export function lastLine(f: { start: LineCol; end: LineCol }): number {
  return f.end.line > f.start.line && f.end.column === 1
    ? f.end.line - 1
    : Math.max(f.start.line, f.end.line);
}
