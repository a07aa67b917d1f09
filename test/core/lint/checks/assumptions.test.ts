import { describe, expect, it } from "vitest";
import { findAssumptions } from "../../../../core/lint/checks/assumptions.js";
import { parseMarkdown } from "../../../../core/markdown/document.js";
import { FM, hits, runCheck } from "../run-check.js";

const doc = `${FM}# T

Assumption: users have accounts. They log in daily. Assumption: the API is up.

- **Assumption:** traffic stays under 100 rps.
- Not an Assumption: here, mid-sentence.

\`\`\`
Assumption: in code
\`\`\`

| Assumption: in a table | x |
|---|---|
`;

describe("assumptions", () => {
  it("finds the sentences that open with the label", () => {
    expect(findAssumptions(parseMarkdown(doc)).map((a) => a.text)).toEqual([
      "users have accounts.",
      "the API is up.",
      "traffic stays under 100 rps.",
      "in a table",
    ]);
  });

  const cases: { name: string; params: object; expected: [number, string][] }[] = [
    { name: "within the maximum", params: { max: 4 }, expected: [] },
    {
      name: "over the maximum: at the first one too many",
      params: { max: 2 },
      expected: [[9, "**Assumption:** traffic stays under 100 rps."]],
    },
    {
      name: "each",
      params: { each: true },
      expected: [
        [7, "Assumption: users have accounts."],
        [7, "Assumption: the API is up."],
        [9, "**Assumption:** traffic stays under 100 rps."],
        [16, "Assumption: in a table"],
      ],
    },
    { name: "counting only", params: {}, expected: [] },
  ];
  it.each(cases)("$name", ({ params, expected }) => {
    expect(hits(doc, runCheck("assumptions", doc, params))).toEqual(expected);
  });

  it("the lint result exposes them with anchors", () => {
    const r = runCheck("assumptions", doc, {});
    expect(r.assumptions).toHaveLength(4);
    expect(r.assumptions[0]!.anchor.quote).toBe("Assumption: users have accounts.");
    expect(r.assumptions[0]!.anchor.heading_path).toEqual(["T"]);
  });
});
