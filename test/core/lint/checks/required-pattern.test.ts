import { describe, expect, it } from "vitest";
import { FM, hits, runCheck } from "../run-check.js";

const ISSUE = {
  patterns: ["github\\.com/[\\w.-]+/[\\w.-]+/issues/\\d+"],
  what: "a link to the tracking issue",
};
const cases: { name: string; doc: string; params: object; expected: [number, string][] }[] = [
  {
    name: "found anywhere in the doc",
    doc: `${FM}# KEP-1234: Thing\n\n- Tracking issue: https://github.com/acme/enhancements/issues/1234\n`,
    params: ISSUE,
    expected: [],
  },
  {
    name: "found in the frontmatter",
    doc: "---\ntype: test\nsize: standard\nissue: https://github.com/acme/x/issues/9\n---\n# T\n",
    params: ISSUE,
    expected: [],
  },
  {
    name: "missing: anchored at the doc's first line",
    doc: `${FM}# KEP-1234: Thing\n\nNo link here.\n`,
    params: ISSUE,
    expected: [[5, "# KEP-1234: Thing"]],
  },
  {
    name: "only in given sections: elsewhere does not count",
    doc: `${FM}# T\n\n## Summary\n\nhttps://github.com/a/b/issues/1\n\n## Release Signoff Checklist\n\n- [ ] approved\n`,
    params: { ...ISSUE, sections: ["Release signoff checklist"] },
    expected: [[11, "## Release Signoff Checklist"]],
  },
  {
    name: "phrases, case-insensitive",
    doc: `${FM}# T\n\nsigned off by the API reviewers.\n`,
    params: { phrases: ["Signed off by"] },
    expected: [],
  },
];

describe("required-pattern", () => {
  it.each(cases)("$name", ({ doc, params, expected }) => {
    expect(hits(doc, runCheck("required-pattern", doc, params))).toEqual(expected);
  });

  it("says what it looked for", () => {
    const r = runCheck("required-pattern", `${FM}# T\n`, ISSUE);
    expect(r.findings[0]!.message).toBe("The doc does not give a link to the tracking issue");
  });

  it("an invalid pattern is a finding, not an error", () => {
    const r = runCheck("required-pattern", `${FM}# T\n`, { patterns: ["(unclosed"] });
    expect(r.findings[0]!.message).toMatch(/pattern is invalid/);
  });
});
