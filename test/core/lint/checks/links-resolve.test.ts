import { describe, expect, it } from "vitest";
import { resolveInBundle } from "../../../../core/lint/checks/links-resolve.js";
import { lintBundle } from "../../../../core/lint/engine.js";
import { FM, hits, oneCheckProfile, runCheck } from "../run-check.js";

const files = ["img/a.png", "notes/b.md", "doc.md"];
const cases: { name: string; doc: string; params: object; expected: [number, string][] }[] = [
  {
    name: "files that exist, external links and folders",
    doc: `${FM}[b](notes/b.md) ![a](./img/a.png) [x](https://example.com) [m](mailto:a@b.c) [f](notes/) [q](notes/b.md#part)\n`,
    params: {},
    expected: [],
  },
  {
    name: "missing file and image",
    doc: `${FM}See [c](notes/c.md) and ![z](img/z.png).\n`,
    params: {},
    expected: [
      [5, "notes/c.md"],
      [5, "img/z.png"],
    ],
  },
  {
    name: "outside the bundle, with no view of the repository: not judged",
    doc: `${FM}[up](../other/x.md) [abs](/docs/x.md)\n`,
    params: {},
    expected: [],
  },
  {
    name: "outside the bundle, reported when the profile asks",
    doc: `${FM}[up](../other/x.md)\n`,
    params: { outside: "report" },
    expected: [[5, "../other/x.md"]],
  },
  {
    name: "GitHub heading slugs: punctuation, emoji, code and repeats",
    doc: `${FM}# Top\n\n## What's new? 🚀\n\n## \`spec-review\` CLI\n\n## Notes\n\n## Notes\n\n[a](#whats-new-) [b](#spec-review-cli) [c](#notes-1) [d](#notes-2)\n`,
    params: {},
    expected: [[15, "#notes-2"]],
  },
  {
    name: "HTML anchors: <a id>, <a name>, ids on other elements",
    doc: `${FM}<a id="prr-questionnaire"></a>\n\nText <a name="Legacy-Anchor"></a> here.\n\n<div id='box'>x</div>\n\n[a](#prr-questionnaire) [b](#legacy-anchor) [c](#box) [d](#user-content-box) [e](#gone)\n`,
    params: {},
    expected: [[11, "#gone"]],
  },
  {
    name: "footnotes are notes, not links",
    doc: `${FM}A claim.[^1] Another.[^note]\n\n[^1]: https://example.com/paper\n[^note]: see-the-appendix\n`,
    params: {},
    expected: [],
  },
  {
    name: "a reference link is anchored at its destination, not the paragraph's first line",
    doc: `${FM}First line of the paragraph.\nSee [the notes][n] for more.\n\n[n]: notes/missing.md\n`,
    params: {},
    expected: [[8, "notes/missing.md"]],
  },
  {
    name: "fragments name headings of the doc",
    doc: `${FM}# Top\n\n## Data model\n\n[ok](#data-model) [bad](#nope)\n`,
    params: {},
    expected: [[9, "#nope"]],
  },
  {
    name: "images can be switched off",
    doc: `${FM}![z](img/z.png)\n`,
    params: { images: false },
    expected: [],
  },
  { name: "percent-encoded names", doc: `${FM}[s](notes/b%2Emd)\n`, params: {}, expected: [] },
  {
    name: "links in tables",
    doc: `${FM}| a |\n|---|\n| [x](nope.md) |\n`,
    params: {},
    expected: [[7, "nope.md"]],
  },
];

describe("links-resolve", () => {
  it.each(cases)("$name", ({ doc, params, expected }) => {
    expect(hits(doc, runCheck("links-resolve", doc, params, files))).toEqual(expected);
  });

  it("resolves links that leave the bundle in the repository around it", () => {
    const repoFiles = new Set([
      "docs/shared/glossary.md",
      "keps/sig-x/1234-thing/README.md",
      "keps/sig-x/1234-thing/kep.yaml",
      "README.md",
      "docs/shared",
    ]);
    const doc = `${FM}[ok](../../../docs/shared/glossary.md) [gone](../9999-other/README.md) [root](/README.md) [out](../../../../x.md) [dir](../../../docs/shared/)\n`;
    const profile = oneCheckProfile("links-resolve", {});
    const r = lintBundle({
      files: new Map([
        ["README.md", doc],
        ["kep.yaml", ""],
      ]),
      mainPath: "README.md",
      profile,
      repo: { bundlePath: "keps/sig-x/1234-thing", exists: (p) => repoFiles.has(p) },
    });
    expect(r.findings.map((f) => [f.anchor.quote, f.message])).toEqual([
      [
        "../9999-other/README.md",
        "Link '../9999-other/README.md' does not resolve to a file of the repository",
      ],
      ["../../../../x.md", "Link '../../../../x.md' points outside the repository"],
    ]);
  });

  it("resolves against the doc's folder", () => {
    expect(resolveInBundle("specs/doc.md", "../img/a.png")).toBe("img/a.png");
    expect(resolveInBundle("doc.md", "../x")).toBeUndefined();
    expect(resolveInBundle("doc.md", "./a/./b/../c")).toBe("a/c");
  });
});

describe("links-resolve anchors", () => {
  it("anchors at the destination even when the label repeats it", () => {
    const doc = `${FM}See [notes/c.md](notes/c.md) and [<x>](<notes/d.md>).\n`;
    const r = runCheck("links-resolve", doc, {}, files);
    const text = Buffer.from(doc);
    expect(
      r.findings.map((f) => [f.anchor.quote, text.subarray(f.anchor.start - 1, f.anchor.start).toString()]),
    ).toEqual([
      ["notes/c.md", "("],
      ["notes/d.md", "<"],
    ]);
  });
});
