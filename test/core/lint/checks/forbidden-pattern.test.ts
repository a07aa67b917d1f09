import { describe, expect, it } from "vitest";
import { FM, hits, runCheck } from "../run-check.js";

const cases: { name: string; doc: string; params: object; expected: [number, string][] }[] = [
  {
    name: "phrases as whole words, any case",
    doc: `${FM}# T\n\nThe limit is tbd. Stable TBDs are fine; TODO later.\n`,
    params: { phrases: ["TBD", "TODO"] },
    expected: [
      [7, "tbd"],
      [7, "TODO"],
    ],
  },
  {
    name: "a phrase ending in punctuation",
    doc: `${FM}Apples, pears, etc. and etcetera.\n`,
    params: { phrases: ["etc."] },
    expected: [[5, "etc."]],
  },
  {
    name: "code blocks, code spans and comments are skipped",
    doc: `${FM}Use \`TODO\` here <!-- TODO --> now.\n\n\`\`\`\nTODO\n\`\`\`\n`,
    params: { phrases: ["TODO"] },
    expected: [],
  },
  {
    name: "include_code looks in code too",
    doc: `${FM}text\n\n\`\`\`\nTODO\n\`\`\`\n`,
    params: { phrases: ["TODO"], include_code: true },
    expected: [[8, "TODO"]],
  },
  {
    name: "patterns",
    doc: `${FM}# {{Title}}\n\nHello {{name}}.\n`,
    params: { patterns: ["\\{\\{[^}]*\\}\\}"] },
    expected: [
      [5, "{{Title}}"],
      [7, "{{name}}"],
    ],
  },
  {
    name: "restricted to sections",
    doc: `${FM}## Problem\n\nIt is fast.\n\n## Requirements\n\n- It MUST be fast.\n`,
    params: { phrases: ["fast"], sections: ["Requirements"] },
    expected: [[11, "fast"]],
  },
  {
    name: "case sensitive",
    doc: `${FM}Use Some and some.\n`,
    params: { phrases: ["some"], case_sensitive: true },
    expected: [[5, "some"]],
  },
  {
    name: "tables are prose",
    doc: `${FM}| a | b |\n|---|---|\n| TBD | x |\n`,
    params: { phrases: ["TBD"] },
    expected: [[7, "TBD"]],
  },
];

describe("forbidden-pattern", () => {
  it.each(cases)("$name", ({ doc, params, expected }) => {
    expect(hits(doc, runCheck("forbidden-pattern", doc, params))).toEqual(expected);
  });

  it("fills {match} in the message", () => {
    const r = runCheck("forbidden-pattern", `${FM}It is TBD.\n`, { phrases: ["TBD"] });
    expect(r.findings[0]!.message).toBe("'TBD' is not allowed here");
  });

  it("an invalid pattern is a finding, not a throw", () => {
    // The schema accepts any string; the regex only fails when compiled.
    const r = runCheck("forbidden-pattern", `${FM}text\n`, { patterns: ["(unclosed"] });
    expect(r.findings).toHaveLength(1);
    expect(r.findings[0]!.message).toMatch(/invalid pattern/);
  });

  it("leaves out excluded sections: undecided words are expected under open questions", () => {
    const doc = `${FM}# T\n\n## Design\n\nThe cache is TBD.\n\n## Unresolved questions\n\n- TBD: which region?\n\n### Later\n\nTODO\n`;
    const r = runCheck("forbidden-pattern", doc, {
      phrases: ["TBD", "TODO"],
      exclude_sections: ["Unresolved questions|Open questions"],
    });
    expect(hits(doc, r)).toEqual([[9, "TBD"]]);
  });
});

describe("forbidden-pattern scope", () => {
  it("the innermost section named decides", () => {
    const doc = `${FM}# T\n\n## Summary\n\nTBD a\n\n## Design details\n\nTBD b\n\n### Test plan\n\nTBD c\n\n### Graduation criteria\n\nTBD d\n`;
    const must = runCheck("forbidden-pattern", doc, {
      phrases: ["TBD"],
      sections: ["Design details"],
      exclude_sections: ["Graduation criteria"],
    });
    expect(hits(doc, must).map(([l]) => l)).toEqual([13, 17]);
    const should = runCheck("forbidden-pattern", doc, {
      phrases: ["TBD"],
      sections: ["*", "Graduation criteria"],
      exclude_sections: ["Design details"],
    });
    expect(hits(doc, should).map(([l]) => l)).toEqual([9, 21]);
  });
});
