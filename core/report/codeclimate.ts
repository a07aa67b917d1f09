/**
 * GitLab's Code Quality report (a subset of the Code Climate engine spec): a JSON array
 * with one issue per finding. GitLab compares the issues of the merge request's head with
 * its base by `fingerprint`; the fingerprint here comes from the finding's stable id (file,
 * check, heading path, quote and its paragraph, never its line) and the doc's path, so a
 * finding stays "unchanged" when lines are added above it. Pure.
 *
 * https://docs.gitlab.com/ci/testing/code_quality/#code-quality-report-format
 */
import { stableId } from "../lint/ids.js";
import type { Level } from "../lint/types.js";
import { checkName, lastLine, type ReportInput } from "./findings.js";

export type CodeQualitySeverity = "info" | "minor" | "major" | "critical" | "blocker";

export interface CodeQualityIssue {
  type: "issue";
  description: string;
  check_name: string;
  fingerprint: string;
  severity: CodeQualitySeverity;
  categories: string[];
  location: {
    path: string;
    /** Lines only: the Code Climate spec allows `lines` or `positions`, not both, and GitLab shows lines. */
    lines: { begin: number; end: number };
  };
}

/** MUST stops Build Ready, but a spec finding is not a broken build: major, minor, info. */
export const CODE_QUALITY_SEVERITY: Record<Level, CodeQualitySeverity> = {
  MUST: "major",
  SHOULD: "minor",
  INFO: "info",
};

/** 32 hex digits (the shape of the MD5 GitLab's examples use) from the doc's path and the finding's id. */
export function codeQualityFingerprint(path: string, findingId: string): string {
  return stableId(["spec-review/codeclimate/v1", path, findingId]).replace(/-/g, "");
}

/**
 * The report. Paths are used as given: GitLab resolves them from the repository's root.
 * Folders that are not valid bundles have no file to point at and are left out (the exit
 * status and the text report say them).
 */
export function toCodeQuality(input: ReportInput): CodeQualityIssue[] {
  const issues: CodeQualityIssue[] = [];
  const seen = new Set<string>();
  for (const doc of input.docs) {
    const path = doc.path.replace(/^\.\//, "");
    for (const f of doc.findings) {
      // Ids are unique within a doc; a repeat (never expected) still gets a fingerprint of its own.
      let fingerprint = codeQualityFingerprint(path, f.id);
      for (let n = 1; seen.has(fingerprint); n++) fingerprint = codeQualityFingerprint(path, `${f.id}#${n}`);
      seen.add(fingerprint);
      issues.push({
        type: "issue",
        description: `${f.message}${f.relaxed ? " (relaxed)" : ""}`,
        check_name: checkName(doc.profile_key, f.check),
        fingerprint,
        severity: CODE_QUALITY_SEVERITY[f.level],
        categories: ["Clarity"],
        location: {
          path,
          lines: { begin: f.start.line, end: lastLine(f) },
        },
      });
    }
  }
  return issues;
}
