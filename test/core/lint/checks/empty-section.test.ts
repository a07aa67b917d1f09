import { describe, expect, it } from "vitest";
import { FM, hits, runCheck } from "../run-check.js";

const cases: { name: string; doc: string; params: object; expected: [number, string][] }[] = [
  { name: "filled", doc: `${FM}# T\n\nIntro.\n\n## A\n\nText.\n`, params: {}, expected: [] },
  { name: "empty leaf", doc: `${FM}# T\n\n## A\n\n## B\n\nText.\n`, params: {}, expected: [[7, "## A"]] },
  {
    name: "a parent with subsections is fine",
    doc: `${FM}## A\n\n### B\n\nText.\n`,
    params: {},
    expected: [],
  },
  { name: "comment only", doc: `${FM}## A\n\n<!-- guidance -->\n`, params: {}, expected: [[5, "## A"]] },
  { name: "code counts", doc: `${FM}## A\n\n\`\`\`json\n{}\n\`\`\`\n`, params: {}, expected: [] },
  {
    name: "ignored sections",
    doc: `${FM}## Open questions\n`,
    params: { ignore: ["Open questions"] },
    expected: [],
  },
  { name: "min_words", doc: `${FM}## A\n\nOne two.\n`, params: { min_words: 3 }, expected: [[5, "## A"]] },
];

describe("empty-section", () => {
  it.each(cases)("$name", ({ doc, params, expected }) => {
    expect(hits(doc, runCheck("empty-section", doc, params))).toEqual(expected);
  });
});
