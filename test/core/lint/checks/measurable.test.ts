import { describe, expect, it } from "vitest";
import { lintBundle } from "../../../../core/lint/engine.js";
import { parseProfile } from "../../../../core/profile/load.js";
import { FM, hits, runCheck } from "../run-check.js";

const params = { sections: ["Constraints|Non-functional requirements"] };
const cases: { name: string; doc: string; expected: [number, string][] }[] = [
  {
    name: "numbers given",
    doc: `${FM}# T\n\n## Constraints\n\n- p99 latency MUST stay under 200 ms.\n- At most 3 retries.\n- Availability of 99.9% per month.\n`,
    expected: [],
  },
  {
    name: "a quantity without a number",
    doc: `${FM}# T\n\n## Constraints\n\n- p99 latency MUST stay low.\n- The service MUST be stateless.\n- Responses MUST return within a short time.\n`,
    expected: [
      [9, "- p99 latency MUST stay low."],
      [11, "- Responses MUST return within a short time."],
    ],
  },
  {
    name: "number words count; other sections are not looked at",
    doc: `${FM}# T\n\n## Non-functional requirements\n\nThe job MUST run at most once per day.\n\n## Design\n\n- It is fast.\n`,
    expected: [],
  },
  {
    name: "table rows are statements",
    doc: `${FM}# T\n\n## Constraints\n\n| ID | Constraint |\n|---|---|\n| C-1 | Timeout of 30 s |\n| C-2 | Timeout must be reasonable |\n`,
    expected: [[12, "| C-2 | Timeout must be reasonable |"]],
  },
];

describe("measurable", () => {
  it.each(cases)("$name", ({ doc, expected }) => {
    expect(hits(doc, runCheck("measurable", doc, params))).toEqual(expected);
  });

  it("says which word asked for a number", () => {
    const doc = `${FM}## Constraints\n\n- Latency MUST be low.\n`;
    expect(runCheck("measurable", doc, params).findings[0]!.message).toMatch(/quantity \('Latency'\)/);
  });
});

describe("measurable numbers", () => {
  it.each([
    ["- Deliveries MUST time out within 10 seconds.", 0],
    ["- Deliveries MUST time out within 10s.", 0],
    ["- Lag MUST stay under the 99th percentile of 5ms.", 0],
    ["- A 2xx status within that time counts as delivered.", 1],
    ["- Latency of REQ-001 MUST stay low.", 1],
  ])("%s", (line, n) => {
    const doc = `${FM}## Constraints\n\n${line}\n`;
    expect(runCheck("measurable", doc, params).findings).toHaveLength(n);
  });
});

describe("measurable beside vague-quantity", () => {
  it("a vague quantity is reported once, at its words, by vague-quantity", () => {
    const r = parseProfile(
      JSON.stringify({
        key: "test",
        title: "T",
        radar: [{ key: "structure", title: "S" }],
        checks: [
          { slug: "measurable", kind: "measurable", level: "SHOULD", category: "structure", params },
          { slug: "vague", kind: "vague-quantity", level: "SHOULD", category: "structure" },
        ],
      }),
    );
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    const doc = `${FM}## Constraints\n\n- Responses MUST return within a reasonable time.\n- p99 latency MUST stay low.\n`;
    const found = lintBundle({ files: new Map([["doc.md", doc]]), mainPath: "doc.md", profile: r.profile });
    expect(found.findings.map((f) => [f.check, f.anchor.quote])).toEqual([
      ["vague", "within a reasonable time"],
      ["measurable", "- p99 latency MUST stay low."],
    ]);
  });
});
