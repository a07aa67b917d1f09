import { describe, expect, it } from "vitest";
import { FM, hits, runCheck } from "../run-check.js";

const params = { sections: ["Requirements"] };
const cases: { name: string; doc: string; params: object; expected: [number, string][] }[] = [
  {
    name: "each item has a keyword",
    doc: `${FM}## Requirements\n\n- It MUST x.\n- It SHOULD NOT y.\n- It MAY z.\n`,
    params,
    expected: [],
  },
  {
    name: "no keyword",
    doc: `${FM}## Requirements\n\n- It MUST x.\n- It does y.\n`,
    params,
    expected: [[8, "- It does y."]],
  },
  {
    name: "lowercase keyword",
    doc: `${FM}## Requirements\n\n- It should y.\n`,
    params,
    expected: [[7, "- It should y."]],
  },
  {
    name: "keyword inside a code span does not count",
    doc: `${FM}## Requirements\n\n- Returns \`MUST\`.\n`,
    params,
    expected: [[7, "- Returns `MUST`."]],
  },
  {
    name: "subsections are in scope; other sections are not",
    doc: `${FM}## Requirements\n\n### Login\n\n- It logs in.\n\n## Notes\n\n- It is nice.\n`,
    params,
    expected: [[9, "- It logs in."]],
  },
  {
    name: "nested items belong to their top-level item",
    doc: `${FM}## Requirements\n\n- It MUST x:\n  - detail\n  - detail\n`,
    params,
    expected: [],
  },
];

describe("rfc2119", () => {
  it.each(cases)("$name", ({ doc, params: p, expected }) => {
    expect(hits(doc, runCheck("rfc2119", doc, p))).toEqual(expected);
  });

  it("suggests the capital form", () => {
    const r = runCheck("rfc2119", `${FM}## Requirements\n\n- It should y.\n`, params);
    expect(r.findings[0]!.message).toMatch(/'should' in lowercase: write SHOULD/);
  });

  it("a lead-in with a keyword and a colon covers the list under it", () => {
    const doc = `${FM}# T\n\n## Requirements\n\nThe client MUST:\n\n- retry on 503\n- give up after 3 tries\n\nThe server:\n\n- logs each retry\n\nThe client SHOULD log. Then:\n\n- back off\n`;
    const r = runCheck("rfc2119", doc, { sections: ["Requirements"] });
    expect(hits(doc, r)).toEqual([[16, "- logs each retry"]]);
  });
});
