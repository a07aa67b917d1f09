import { describe, expect, it } from "vitest";
import { FM, hits, runCheck } from "../run-check.js";

const cases: { name: string; doc: string; params: object; expected: [number, string][] }[] = [
  {
    name: "enough examples",
    doc: `${FM}## Endpoints\n\n### GET /x\n\n\`\`\`http\nGET /x\n\`\`\`\n\n\`\`\`json\n{}\n\`\`\`\n`,
    params: { section: "Endpoints", min: 2 },
    expected: [],
  },
  {
    name: "too few",
    doc: `${FM}## Endpoints\n\n\`\`\`json\n{}\n\`\`\`\n`,
    params: { section: "Endpoints", min: 2 },
    expected: [[5, "## Endpoints"]],
  },
  {
    name: "language filter; unlabelled fences do not count",
    doc: `${FM}## Endpoints\n\n\`\`\`python\nx\n\`\`\`\n\n\`\`\`\ny\n\`\`\`\n`,
    params: { section: "Endpoints", languages: ["json"] },
    expected: [[5, "## Endpoints"]],
  },
  {
    name: "missing section is not this check's",
    doc: `${FM}# T\n`,
    params: { section: "Endpoints" },
    expected: [],
  },
  { name: "whole doc", doc: `${FM}# T\n\ntext\n`, params: {}, expected: [[5, "# T"]] },
];

describe("code-example", () => {
  it.each(cases)("$name", ({ doc, params, expected }) => {
    expect(hits(doc, runCheck("code-example", doc, params))).toEqual(expected);
  });
});
