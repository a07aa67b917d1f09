import { describe, expect, it } from "vitest";
import { hits, runCheck } from "../run-check.js";

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

describe("required-frontmatter", () => {
  it.each(cases)("$name", ({ doc, params, expected }) => {
    expect(hits(doc, runCheck("required-frontmatter", doc, params))).toEqual(expected);
  });
});
