import { describe, expect, it } from "vitest";
import { lintBundle } from "../../../../core/lint/engine.js";
import { parseProfile } from "../../../../core/profile/load.js";
import { FM, hits, oneCheckProfile, runCheck } from "../run-check.js";

/** Lint an adopted doc (no frontmatter) with one profile entry as given. */
function runWithEntry(entry: object, doc: string) {
  const r = parseProfile(
    JSON.stringify({ key: "test", title: "T", radar: [{ key: "structure", title: "S" }], checks: [entry] }),
  );
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return lintBundle({ files: new Map([["doc.md", doc]]), mainPath: "doc.md", profile: r.profile });
}

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

const UNDECIDED = { phrases: ["TBD", "TODO", "FIXME", "to be determined", "to be decided", "to be defined"] };

describe("forbidden-pattern reads undecided words in context", () => {
  it.each([
    [
      "plain English",
      "A method like this needs to be defined on a type, and the rest is to be determined differently.",
    ],
    [
      "a link target and a badge",
      "See [the spec](TODO.md) ![status: TBD](https://img.shields.io/badge/status-TBD-grey).",
    ],
    ["the word spoken of", 'Developers leave TODO comments, and the "TBD" marker is searched for.'],
    ["an explicitly deferred point", "The exact format is TBD and out of scope for this proposal."],
    ["a sample value", "Fields hold sample values, e.g. TBD, until the owner fills them."],
    ["an UNRESOLVED block", "<<[UNRESOLVED naming @alice]>>\nThe flag name is TBD.\n<<[/UNRESOLVED]>>"],
  ])("%s: no finding", (_, text) => {
    const doc = `${FM}# KEP-1\n\n## Design details\n\n${text}\n`;
    expect(hits(doc, runCheck("forbidden-pattern", doc, UNDECIDED))).toEqual([]);
  });

  it("an open-questions list under a lead-in is deferred; a TODO handed to someone is SHOULD", () => {
    const doc = `${FM}# RFC\n\n## Detailed design\n\nThe cache is shared per node.\n\nOpen questions:\n\n- Eviction order: TBD.\n\nTODO(alice): add the sequence diagram. The cache is warmed at start.\n`;
    const r = runCheck("forbidden-pattern", doc, UNDECIDED);
    expect(r.findings.map((f) => [f.anchor.quote, f.level])).toEqual([["TODO", "SHOULD"]]);
  });

  it("a requirement left open stays at the profile's level even in adoption mode", () => {
    const entry = {
      slug: "the-check",
      kind: "forbidden-pattern",
      level: "MUST",
      category: "structure",
      relaxed: true,
      params: UNDECIDED,
    };
    const doc = `# 🚀 Proposal\r\n\r\n## Design\r\n\r\nThe client MUST retry TBD times.\r\n\r\nThe wire format is TBD.\r\n`;
    const r = runWithEntry(entry, doc);
    expect(r.adopt).toBeDefined();
    expect(r.findings.map((f) => [f.anchor.quote, f.level, f.relaxed])).toEqual([
      ["TBD", "MUST", false],
      ["TBD", "SHOULD", true],
    ]);
  });

  it("a design subsection holding nothing but a TODO is at the profile's level, owner or not", () => {
    const doc = `${FM}# P\n\n## Design\n\nThe service has two parts.\n\n### Storage\n\nTODO for SIG Storage\n\n### API\n\nTODO(bob): describe\n`;
    const r = runCheck("forbidden-pattern", doc, UNDECIDED);
    expect(r.findings.map((f) => [f.anchor.heading_path.at(-1), f.level])).toEqual([
      ["Storage", "MUST"],
      ["API", "MUST"],
    ]);
  });

  it("a withdrawn doc reports open points at INFO, except a requirement left open", () => {
    const doc = `---\ntype: test\nsize: standard\nstatus: withdrawn\n---\n# P\n\n## Design\n\nThe format is TBD.\n\nClients MUST retry TBD times.\n`;
    const r = runCheck("forbidden-pattern", doc, UNDECIDED);
    expect(r.findings.map((f) => f.level)).toEqual(["INFO", "MUST"]);
  });

  it("a section the process asks for at a later stage is INFO before that stage (stage from kep.yaml)", () => {
    const params = {
      ...UNDECIDED,
      metadata_files: ["kep.yaml"],
      stages: { order: ["alpha", "beta", "stable"], sections: { Scalability: "beta" } },
    };
    const doc = `${FM}# KEP-2\n\n## PRR\n\n### Scalability\n\nTBD\n\n### Troubleshooting\n\n<!-- This section must be completed when targeting beta to a release. -->\n\nTBD\n\n### Feature enablement\n\nTBD\n`;
    const lintWith = (stage: string) => {
      const profile = oneCheckProfile("forbidden-pattern", params);
      return lintBundle({
        files: new Map([
          ["README.md", doc],
          ["kep.yaml", `stage: ${stage}\n`],
        ]),
        mainPath: "README.md",
        profile,
      }).findings.map((f) => [f.anchor.heading_path.at(-1), f.level]);
    };
    expect(lintWith("alpha")).toEqual([
      ["Scalability", "INFO"],
      ["Troubleshooting", "INFO"],
      ["Feature enablement", "MUST"],
    ]);
    expect(lintWith("beta").map((x) => x[1])).toEqual(["MUST", "MUST", "MUST"]);
  });
});

describe("forbidden-pattern placeholders", () => {
  const params = { placeholders: true };
  it("finds every form a template leaves, the HTML-looking one included", () => {
    const doc = `${FM}# {{Feature name}}\n\n## Design\n\nThe API is [TODO: describe the endpoints] and {Describe the data model}.\n\n<insert description here>\n\n| Option | Notes |\n|---|---|\n| A | {title of option 1} |\n`;
    expect(hits(doc, runCheck("forbidden-pattern", doc, params))).toEqual([
      [5, "{{Feature name}}"],
      [9, "[TODO: describe the endpoints]"],
      [9, "{Describe the data model}"],
      [11, "<insert description here>"],
      [15, "{title of option 1}"],
    ]);
  });

  it("leaves set notation, paths, code, parentheticals, real tags, autolinks and links alone", () => {
    const doc = `${FM}# T\n\n## Design\n\nThe states are {a, b} and u32::{MAX, MIN} is used; \`{{.Name}}\` is Go syntax.\nIt replaces \`Old\` (replaces the flag) and struct{A, B int}{1, 2} prints.\n<details open><summary>More</summary>text</details>\nMail <https://example.com/a> or <ops@example.com>; see [Describe it][ref] and [list of options].\n\n[ref]: https://example.com\n[list of options]: https://example.com/opts\n`;
    expect(hits(doc, runCheck("forbidden-pattern", doc, params))).toEqual([]);
  });
});
