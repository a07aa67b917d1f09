import { describe, expect, it } from "vitest";
import { FM, hits, runCheck } from "../run-check.js";

const req = { format: "\\d{3}", sections: ["Requirements"] };
const cases: { name: string; doc: string; params: object; expected: [number, string][] }[] = [
  {
    name: "every requirement has a unique, well-formed ID",
    doc: `${FM}## Requirements\n\n- **REQ-001** The system MUST x.\n- REQ-002 It MUST y, like REQ-001.\n`,
    params: req,
    expected: [],
  },
  {
    name: "malformed ID",
    doc: `${FM}## Requirements\n\n- REQ-01 It MUST x.\n`,
    params: req,
    expected: [[7, "REQ-01"]],
  },
  {
    name: "defined twice; references are fine",
    doc: `${FM}## Requirements\n\n- REQ-001 It MUST x.\n- REQ-001 It MUST y.\n\nSee REQ-001.\n`,
    params: req,
    expected: [[8, "REQ-001"]],
  },
  {
    name: "a requirement without an ID",
    doc: `${FM}## Requirements\n\n- REQ-001 It MUST x.\n- It MUST y.\n`,
    params: req,
    expected: [[8, "- It MUST y."]],
  },
  {
    name: "table rows are statements",
    doc: `${FM}## Requirements\n\n| ID | Text |\n|---|---|\n| REQ-001 | MUST x |\n| | MUST y |\n`,
    params: req,
    expected: [[10, "| | MUST y |"]],
  },
  {
    name: "a heading opening with an ID makes a statement",
    doc: `${FM}## Requirements\n\n### REQ-001 Login\n\nUsers MUST log in.\n\n- detail one\n`,
    params: req,
    expected: [],
  },
  {
    name: "a prose section: paragraphs are statements",
    doc: `${FM}## Requirements\n\nThe system MUST x.\n`,
    params: req,
    expected: [[7, "The system MUST x."]],
  },
  {
    name: "intro paragraph next to a list is not a statement",
    doc: `${FM}## Requirements\n\nThese apply:\n\n- REQ-001 It MUST x.\n`,
    params: req,
    expected: [],
  },
  {
    name: "custom prefixes",
    doc: `${FM}Text NFR-9 and REQ-9.\n`,
    params: { prefixes: ["NFR"], format: "\\d{2}" },
    expected: [[5, "NFR-9"]],
  },
];

describe("trace-id", () => {
  it.each(cases)("$name", ({ doc, params, expected }) => {
    expect(hits(doc, runCheck("trace-id", doc, params))).toEqual(expected);
  });

  it("names the first definition's line", () => {
    const doc = `${FM}## Requirements\n\n- REQ-001 It MUST x.\n- REQ-001 It MUST y.\n`;
    expect(runCheck("trace-id", doc, req).findings[0]!.message).toBe(
      "Trace ID 'REQ-001' is already defined at line 7",
    );
  });
});
