import { describe, expect, it } from "vitest";
import { lintBundle } from "../../../../core/lint/engine.js";
import { hits, oneCheckProfile, runCheck } from "../run-check.js";

const cases: { name: string; doc: string; params: object; expected: [number, string][] }[] = [
  { name: "present", doc: "---\ntype: test\nowner: Ann\n---\n# T\n", params: { key: "owner" }, expected: [] },
  {
    name: "missing: anchored at the opening fence",
    doc: "---\ntype: test\n---\n# T\n",
    params: { key: "owner" },
    expected: [[1, "---"]],
  },
  {
    name: "empty value: anchored at its line",
    doc: '---\ntype: test\nowner: ""\n---\n# T\n',
    params: { key: "owner" },
    expected: [[3, 'owner: ""']],
  },
  {
    name: "no frontmatter: the first line",
    doc: "# T\n\ntext\n",
    params: { key: "owner" },
    expected: [[1, "# T"]],
  },
  {
    name: "value not allowed",
    doc: "---\nstatus: maybe\n---\n",
    params: { key: "status", values: ["proposed", "accepted"] },
    expected: [[2, "status: maybe"]],
  },
  {
    name: "pattern",
    doc: "---\ndate: 2026-1-2\n---\n",
    params: { key: "date", pattern: "\\d{4}-\\d{2}-\\d{2}" },
    expected: [[2, "date: 2026-1-2"]],
  },
  {
    name: "pattern met",
    doc: "---\ndate: 2026-01-02\n---\n",
    params: { key: "date", pattern: "\\d{4}-\\d{2}-\\d{2}" },
    expected: [],
  },
  { name: "a list counts", doc: "---\nauthors: [a, b]\n---\n", params: { key: "authors" }, expected: [] },
  {
    name: "an empty list does not",
    doc: "---\nauthors: []\n---\n",
    params: { key: "authors" },
    expected: [[2, "authors: []"]],
  },
  {
    name: "broken frontmatter is left to the engine",
    doc: "---\nowner: [unclosed\n---\n",
    params: { key: "owner" },
    expected: [],
  },
];

const metadata: { name: string; doc: string; params: object; expected: [number, string][] }[] = [
  {
    name: "a Status: line in the body (Nygard)",
    doc: "# 7. Use Postgres\n\nDate: 2024-03-01\n\n## Status\n\nAccepted\n",
    params: { key: "date", pattern: "\\d{4}-\\d{2}-\\d{2}" },
    expected: [],
  },
  {
    name: "a ## Status section",
    doc: "# 7. Use Postgres\n\n## Status\n\nSuperseded by [ADR-0009](0009-x.md)\n",
    params: { key: "status", values: ["proposed", "accepted", "superseded"] },
    expected: [],
  },
  {
    name: "a ## Status section with a value not allowed: anchored at the value",
    doc: "# 7. Use Postgres\n\n## Status\n\nPondering\n",
    params: { key: "status", values: ["proposed", "accepted"] },
    expected: [[5, "Pondering"]],
  },
  {
    name: "bold and list forms of a line",
    doc: "# ADR\n\n* **Status:** accepted ✅\n* **Deciders**: Ann, Bo\n",
    params: { key: "status", values: ["accepted"] },
    expected: [],
  },
  {
    name: "a table row",
    doc: "# RFC\n\n| Field | Value |\n|---|---|\n| Status | Implemented |\n",
    params: { key: "status", values: ["implemented"] },
    expected: [],
  },
  {
    name: "an alias: MADR's decision-makers beside deciders",
    doc: "---\nstatus: accepted\ndecision-makers: [Ann, Bo]\n---\n# ADR\n",
    params: { key: "deciders", aliases: ["decision-makers"] },
    expected: [],
  },
  {
    name: "superseded by ADR-0005 is superseded",
    doc: '---\nstatus: "superseded by ADR-0005"\n---\n# ADR\n',
    params: { key: "status", values: ["accepted", "superseded"] },
    expected: [],
  },
  {
    name: "body lookup can be switched off",
    doc: "# ADR\n\nStatus: accepted\n",
    params: { key: "status", body: false },
    expected: [[1, "# ADR"]],
  },
  {
    name: "a line inside a code block does not count",
    doc: "# ADR\n\n```\nStatus: accepted\n```\n",
    params: { key: "status" },
    expected: [[1, "# ADR"]],
  },
];

describe("required-frontmatter", () => {
  it.each(metadata)("metadata where teams keep it: $name", ({ doc, params, expected }) => {
    expect(hits(doc, runCheck("required-frontmatter", doc, params))).toEqual(expected);
  });

  it("reads a sibling metadata file the profile names (kep.yaml beside the README)", () => {
    const profile = oneCheckProfile("required-frontmatter", {
      key: "status",
      values: ["provisional", "implementable", "implemented"],
      files: ["kep.yaml"],
    });
    const doc = "# KEP-1: Thing\n\n## Summary\n\nText.\n";
    const lint = (kep: string | undefined, readFile?: (p: string) => string | undefined) =>
      lintBundle({
        files: new Map(
          kep === undefined
            ? [["README.md", doc]]
            : [
                ["README.md", doc],
                ["kep.yaml", kep],
              ],
        ),
        mainPath: "README.md",
        profile,
        ...(readFile ? { readFile } : {}),
      }).findings.map((f) => f.message);
    expect(lint("title: Thing\nstatus: implementable\n")).toEqual([]);
    expect(lint("status: dreaming\n")).toEqual([
      "Metadata 'status' is 'dreaming'; expected one of provisional, implementable, implemented",
    ]);
    expect(lint(undefined)[0]).toMatch(/is missing or empty/);
    // Files handed in by name only: the reader gives their content.
    expect(lint("", (p) => (p === "kep.yaml" ? "status: implemented\n" : undefined))).toEqual([]);
  });

  it.each(cases)("$name", ({ doc, params, expected }) => {
    expect(hits(doc, runCheck("required-frontmatter", doc, params))).toEqual(expected);
  });
});
