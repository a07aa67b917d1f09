import { describe, expect, it } from "vitest";
import { lintBundle } from "../../../core/lint/engine.js";
import { toSarif } from "../../../core/lint/sarif.js";
import { oneCheckProfile } from "./run-check.js";

describe("toSarif", () => {
  const profile = oneCheckProfile("forbidden-pattern", { phrases: ["TBD"] });
  const text = "---\ntype: test\nsize: standard\n---\n# Ü\n\nState: TBD.\n\n---\n\n- 日本 TBD\n";
  const r = lintBundle({ files: new Map([["spec.md", text]]), mainPath: "spec.md", profile });
  const log = toSarif([{ uri: "docs/a/spec.md", text, profile_key: "test", findings: r.findings }], {
    toolVersion: "0.1.0",
    profiles: [profile],
  });

  it("is SARIF 2.1.0 with a schema, a driver and its rules", () => {
    expect(log.version).toBe("2.1.0");
    expect(log.$schema).toMatch(/sarif-2\.1\.0/);
    const run = log.runs[0]!;
    expect(run.tool.driver.name).toBe("spec-review");
    expect(run.tool.driver.rules.map((x) => x.id)).toEqual(["test/the-check"]);
    expect(run.tool.driver.rules[0]!.defaultConfiguration.level).toBe("error");
  });

  it("has one result per finding, with a 1-based region", () => {
    const results = log.runs[0]!.results;
    expect(results).toHaveLength(2);
    expect(results.map((x) => x.locations[0]!.physicalLocation.region)).toEqual([
      { startLine: 7, startColumn: 8, endLine: 7, endColumn: 11, snippet: { text: "TBD" } },
      { startLine: 11, startColumn: 6, endLine: 11, endColumn: 9, snippet: { text: "TBD" } },
    ]);
    expect(results[0]!.locations[0]!.physicalLocation.artifactLocation.uri).toBe("docs/a/spec.md");
    expect(results[0]).toMatchObject({ ruleId: "test/the-check", ruleIndex: 0, level: "error" });
    expect(results[0]!.partialFingerprints["specReviewFindingId/v1"]).toBe(r.findings[0]!.id);
  });

  it("maps levels: MUST error, SHOULD warning, INFO note", () => {
    const findings = r.findings.map((f, i) => ({ ...f, level: (["SHOULD", "INFO"] as const)[i]! }));
    const levels = toSarif([{ uri: "a.md", text, profile_key: "test", findings }], {
      toolVersion: "1",
    }).runs[0]!.results.map((x) => x.level);
    expect(levels).toEqual(["warning", "note"]);
  });
});
