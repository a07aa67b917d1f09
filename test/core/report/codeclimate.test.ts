/**
 * `--format codeclimate` against what GitLab's Code Quality reader documents:
 * https://docs.gitlab.com/ci/testing/code_quality/#code-quality-report-format
 * (a JSON array; each issue has `description`, `check_name`, `fingerprint` (unique),
 * `severity` one of info, minor, major, critical, blocker, `location.path` relative to the
 * repository and `location.lines.begin`), and the Code Climate spec it is a subset of
 * (https://github.com/codeclimate/platform/blob/master/spec/analyzers/SPEC.md: `type`
 * "issue", `categories`, `location` with `lines` or `positions`, not both).
 */
import { describe, expect, it } from "vitest";
import { CODE_QUALITY_SEVERITY, toCodeQuality } from "../../../core/report/codeclimate.js";
import { DOC, lintFixture, where } from "./lint-fixture.js";

const SEVERITIES = ["info", "minor", "major", "critical", "blocker"];

describe("toCodeQuality", () => {
  it("has the fields GitLab reads, one issue per finding", async () => {
    const { report, text } = await lintFixture();
    const issues = toCodeQuality(report);
    const findings = report.docs[0]!.findings;
    expect(issues).toHaveLength(findings.length);
    expect(findings.map((f) => f.level).sort()).toEqual(["MUST", "SHOULD", "SHOULD"]);
    for (const issue of issues) {
      expect(issue.type).toBe("issue");
      expect(typeof issue.description).toBe("string");
      expect(issue.description.length).toBeGreaterThan(0);
      expect(issue.check_name).toMatch(/^prd\/[a-z-]+$/);
      expect(issue.fingerprint).toMatch(/^[0-9a-f]{32}$/);
      expect(SEVERITIES).toContain(issue.severity);
      expect(issue.location.path).toBe(DOC);
      expect(Number.isInteger(issue.location.lines.begin)).toBe(true);
      expect(issue.location.lines.end).toBeGreaterThanOrEqual(issue.location.lines.begin);
      expect(issue.categories.length).toBeGreaterThan(0);
      expect(issue.location).not.toHaveProperty("positions");
    }
    expect(new Set(issues.map((i) => i.fingerprint)).size).toBe(issues.length);
    const tbd = issues.find((i) => i.check_name === "prd/undecided")!;
    expect(tbd.severity).toBe(CODE_QUALITY_SEVERITY.MUST);
    expect(tbd.severity).toBe("major");
    expect(tbd.location.lines.begin).toBe(where(text, "TBD").line);
    expect(issues.find((i) => i.check_name === "prd/vague-wording")!.severity).toBe("minor");
  });

  it("keeps every fingerprint when lines are added above the findings; CRLF moves no line", async () => {
    const before = toCodeQuality((await lintFixture()).report);
    const moved = await lintFixture({
      edit: (t) =>
        t.replace(
          "## Goals\n",
          "Supervisors 🧑‍💼 asked for this in the 2024 survey.\n\nSee also the paper form FN-2.\n\n## Goals\n",
        ),
    });
    const after = toCodeQuality(moved.report);
    expect(after.map((i) => i.fingerprint)).toEqual(before.map((i) => i.fingerprint));
    expect(after.map((i) => i.location.lines.begin)).toEqual(before.map((i) => i.location.lines.begin + 4));
    const crlf = toCodeQuality((await lintFixture({ crlf: true })).report);
    // (Finding ids take the quote's context, CR included: a CRLF checkout has fingerprints of its own.)
    expect(crlf.map((i) => [i.check_name, i.location.lines.begin])).toEqual(
      before.map((i) => [i.check_name, i.location.lines.begin]),
    );
  });

  it("gives a finding a new fingerprint when its text changes, and two docs' equal findings two", async () => {
    const before = toCodeQuality((await lintFixture()).report);
    const changed = toCodeQuality(
      (await lintFixture({ edit: (t) => t.replace("is TBD.", "is TBD (ask Ops).") })).report,
    );
    const tbd = (list: typeof before) => list.find((i) => i.check_name === "prd/undecided")!.fingerprint;
    expect(tbd(changed)).not.toBe(tbd(before));
    const { report } = await lintFixture();
    const doc = report.docs[0]!;
    const twice = toCodeQuality({ docs: [doc, { ...doc, path: "other/prd.md" }] });
    expect(new Set(twice.map((i) => i.fingerprint)).size).toBe(twice.length);
  });

  it("is an empty array when nothing is found", () => {
    expect(toCodeQuality({ docs: [] })).toEqual([]);
  });
});
