import { describe, expect, it } from "vitest";
import { FM, hits, runCheck } from "../run-check.js";

const cases: { name: string; doc: string; params: object; expected: [number, string][] }[] = [
  {
    name: "present with enough words",
    doc: `${FM}# T\n\n## Goals\n\nShip the thing to users by May.\n`,
    params: { section: "Goals", min_words: 5 },
    expected: [],
  },
  {
    name: "missing: anchored at the first line of the body",
    doc: `${FM}# T\n\n## Other\n\ntext\n`,
    params: { section: "Goals" },
    expected: [[5, "# T"]],
  },
  {
    name: "too short: anchored at its heading",
    doc: `${FM}# T\n\n## Goals\n\nShip it.\n`,
    params: { section: "Goals", min_words: 5 },
    expected: [[7, "## Goals"]],
  },
  {
    name: "alternatives, numbering and case are ignored",
    doc: `${FM}# T\n\n## 2. OBJECTIVES:\n\nOne two three.\n`,
    params: { section: "Goals|Objectives", min_words: 3 },
    expected: [],
  },
  {
    name: "a path pattern needs the parent",
    doc: `${FM}# T\n\n## Requirements\n\n### Functional\n\nThe system MUST log in users.\n\n## Functional\n\nx\n`,
    params: { section: "Requirements > Functional", min_words: 5 },
    expected: [],
  },
  {
    name: "HTML comments are not content; subsections are",
    doc: `${FM}# T\n\n## Goals\n\n<!-- fill me in with many many words here -->\n\n### Sub\n\nOne two three.\n`,
    params: { section: "Goals", min_words: 3 },
    expected: [],
  },
  {
    name: "only a comment",
    doc: `${FM}# T\n\n## Goals\n\n<!-- fill me in with many many words here -->\n`,
    params: { section: "Goals", min_words: 1 },
    expected: [[7, "## Goals"]],
  },
  {
    name: "min_words 0 only needs the heading",
    doc: `${FM}## Goals\n`,
    params: { section: "Goals", min_words: 0 },
    expected: [],
  },
];

describe("required-section", () => {
  it.each(cases)("$name", ({ doc, params, expected }) => {
    expect(hits(doc, runCheck("required-section", doc, params))).toEqual(expected);
  });

  it("says what is missing", () => {
    const r = runCheck("required-section", `${FM}# T\n`, { section: "Goals|Objectives" });
    expect(r.findings[0]!.message).toBe("Section 'Goals' is missing");
  });
});
