/** One defect is reported once: the same span flagged by two checks of one family, or by one check twice. */
import { describe, expect, it } from "vitest";
import { lintBundle } from "../../../core/lint/engine.js";
import { parseProfile } from "../../../core/profile/load.js";

const r = parseProfile(`key: kep
title: KEP
radar: [{ key: structure, title: S }, { key: clarity, title: C }]
checks:
  - { slug: design, kind: required-section, level: MUST, category: structure, params: { section: "Proposal|Design details" } }
  - { slug: summary, kind: required-section, level: SHOULD, category: structure, params: { section: Summary } }
  - { slug: motivation, kind: required-section, level: SHOULD, category: structure, params: { section: Motivation } }
  - { slug: undecided-elsewhere, kind: forbidden-pattern, level: SHOULD, category: clarity, params: { phrases: [TBD] } }
  - { slug: undecided, kind: forbidden-pattern, level: MUST, category: clarity, params: { phrases: [TBD], sections: [Proposal] } }
  - { slug: links-resolve, kind: links-resolve, level: MUST, category: structure }
  - { slug: empty-section, kind: empty-section, level: INFO, category: structure }
`);
if (!r.ok) throw new Error(JSON.stringify(r.errors));
const profile = r.profile;
const FM = "---\ntype: kep\nsize: standard\n---\n";

const lint = (text: string) =>
  lintBundle({ files: new Map([["README.md", text]]), mainPath: "README.md", profile }).findings.map((f) => [
    f.check,
    f.level,
    f.anchor.quote,
  ]);

describe("one defect, one finding", () => {
  it("a TBD two forbidden-pattern entries match is reported once, at the higher level, by that check", () => {
    expect(lint(`${FM}# KEP-1: Pod checkpoints 📦\n\n## Proposal\n\nThe timeout is TBD.\n`)).toEqual([
      ["summary", "SHOULD", "# KEP-1: Pod checkpoints 📦"],
      ["motivation", "SHOULD", "# KEP-1: Pod checkpoints 📦"],
      ["undecided", "MUST", "TBD"],
    ]);
  });

  it("an empty design section is one finding, not a required-section and an empty-section one", () => {
    expect(
      lint(
        `${FM}# T\r\n\r\n## Summary\r\n\r\nCheckpoint running pods.\r\n\r\n## Motivation\r\n\r\nNode drains lose state.\r\n\r\n## Design details\r\n\r\n<!-- describe -->\r\n`,
      ),
    ).toEqual([["design", "MUST", "## Design details"]]);
  });

  it("a broken reference definition used twice is one finding; sections missing at the first line stay apart", () => {
    const doc = `${FM}# T\n\n## Proposal\n\nSee [the API][api] and again [the API][api].\n\n[api]: api/missing.md\n`;
    expect(lint(doc)).toEqual([
      ["summary", "SHOULD", "# T"],
      ["motivation", "SHOULD", "# T"],
      ["links-resolve", "MUST", "api/missing.md"],
    ]);
  });

  it("two pieces of metadata missing are two findings, though both sit at the doc's title", () => {
    const meta = parseProfile(`key: api
title: API
radar: [{ key: structure, title: S }]
checks:
  - { slug: owner, kind: required-frontmatter, level: SHOULD, category: structure, params: { key: owner } }
  - { slug: api-version, kind: required-frontmatter, level: INFO, category: structure, params: { key: api_version } }
`);
    if (!meta.ok) throw new Error(JSON.stringify(meta.errors));
    const found = lintBundle({
      files: new Map([["api.md", "---\ntype: api\n---\n\n# Orders quote API\n\nReturns a total.\n"]]),
      mainPath: "api.md",
      profile: meta.profile,
    }).findings.map((f) => [f.check, f.level]);
    expect(found).toEqual([
      ["owner", "SHOULD"],
      ["api-version", "INFO"],
    ]);
  });
});
