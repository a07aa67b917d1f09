import { describe, expect, it } from "vitest";
import { resolveInBundle } from "../../../../core/lint/checks/links-resolve.js";
import { lintBundle } from "../../../../core/lint/engine.js";
import { parseMarkdown } from "../../../../core/markdown/document.js";
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

/** [quote, level, message] of each finding of the check under test. */
function said(doc: string, bundle: string[] = files): [string, string, string][] {
  return runCheck("links-resolve", doc, {}, bundle).findings.map((f) => [f.anchor.quote, f.level, f.message]);
}

describe("links-resolve: heading ids written as attributes", () => {
  it("honours `{#id}` (mdBook, kramdown, Pandoc) as the heading's anchor, and keeps it out of the title", () => {
    const doc = `${FM}# Loop variables 🔁\r\n\r\n### It fixes buggy code far more often than it breaks correct code {#fixes}\r\n\r\n## Rollout {#rollout .unnumbered}\r\n\r\nSee [the fixes](#fixes), [rollout](#rollout) and [gone](#transition).\r\n`;
    expect(said(doc)).toEqual([
      ["#transition", "MUST", "Link '#transition' names no heading or anchor of this doc"],
    ]);
    const titles = parseMarkdown(doc).sections.map((s) => [s.title, s.slug]);
    expect(titles).toContainEqual([
      "It fixes buggy code far more often than it breaks correct code",
      "fixes",
    ]);
    expect(titles).toContainEqual(["Rollout", "rollout"]);
  });

  it("leaves a title ending in braces that are not attributes alone", () => {
    const doc = `${FM}## Set notation {a, b}\n\n[x](#set-notation-a-b)\n`;
    expect(said(doc)).toEqual([]);
  });
});

describe("links-resolve: the plainer cause", () => {
  it.each([
    [
      "a TODO target",
      "[the API](TODO)",
      ["TODO", "MUST", "Link target 'TODO' is a placeholder: link the real target"],
    ],
    [
      "a template's numbered name",
      "[next](nnnn-shared-storage.md)",
      [
        "nnnn-shared-storage.md",
        "MUST",
        "Link target 'nnnn-shared-storage.md' is a placeholder: link the real target",
      ],
    ],
    [
      "a heading named without its '#'",
      "[the model](data-model)",
      [
        "data-model",
        "MUST",
        "Link 'data-model' names a heading of this doc without its '#': write '#data-model'",
      ],
    ],
    [
      "a web address without its scheme",
      "[issue](golang.org/issue/4242)",
      [
        "golang.org/issue/4242",
        "SHOULD",
        "Link 'golang.org/issue/4242' is a web address without its scheme: write 'https://golang.org/issue/4242'",
      ],
    ],
    [
      "www. without a scheme",
      "[site](www.example.com/docs)",
      [
        "www.example.com/docs",
        "SHOULD",
        "Link 'www.example.com/docs' is a web address without its scheme: write 'https://www.example.com/docs'",
      ],
    ],
    [
      "an e-mail address without mailto:",
      "[Ian](ian@example.org)",
      [
        "ian@example.org",
        "SHOULD",
        "Link 'ian@example.org' is an e-mail address: write 'mailto:ian@example.org'",
      ],
    ],
    [
      "a file named in another case",
      "[notes](Notes/B.md)",
      [
        "Notes/B.md",
        "MUST",
        "Link 'Notes/B.md' differs in case from the file 'notes/b.md': it breaks on case-sensitive hosts such as GitHub",
      ],
    ],
    [
      "a doc named without its .md",
      "[notes](notes/b)",
      [
        "notes/b",
        "SHOULD",
        "Link 'notes/b' names 'notes/b.md' without its extension: sites that drop '.md' resolve it, GitHub does not",
      ],
    ],
    [
      "a fragment with two '#'",
      "[model](##Data-model)",
      ["##Data-model", "SHOULD", "Link '##Data-model' has 2 '#': write '#data-model'"],
    ],
    [
      "a fragment another renderer's slugs find",
      "[model](#datamodel)",
      [
        "#datamodel",
        "INFO",
        "Link '#datamodel' finds heading '#data-model' only as other renderers spell slugs: write '#data-model'",
      ],
    ],
  ])("%s", (_name, link, expected) => {
    expect(said(`${FM}# T\n\n## Data model\n\nSee ${link}.\n`)).toEqual([expected]);
  });

  it("a path written from the folder above (a doc rendered there) is not a broken link of the repository", () => {
    const repoFiles = new Set(["44167/plots/old.png", "44167/doc.src.md"]);
    const profile = oneCheckProfile("links-resolve", {});
    const doc = `${FM}![old](44167/plots/old.png) ![gone](44167/plots/new.png)\n`;
    const r = lintBundle({
      files: new Map([["doc.src.md", doc]]),
      mainPath: "doc.src.md",
      profile,
      repo: { bundlePath: "44167", exists: (p) => repoFiles.has(p) },
    });
    expect(r.findings.map((f) => [f.anchor.quote, f.level])).toEqual([
      ["44167/plots/old.png", "SHOULD"],
      ["44167/plots/new.png", "MUST"],
    ]);
    expect(r.findings[0]!.message).toBe(
      "Image '44167/plots/old.png' resolves from the repository's root, not from this doc's folder: the doc may be rendered there",
    );
  });

  it("a root-absolute link resolves when the linted folder is itself a folder of the repository", () => {
    const repoFiles = new Set(["0411-isolated-defaults.md", "0500-doc.md"]);
    const profile = oneCheckProfile("links-resolve", {});
    const doc = `${FM}[SE-0411](/proposals/0411-isolated-defaults.md) [gone](/proposals/0412-gone.md)\n`;
    const r = lintBundle({
      files: new Map([["0500-doc.md", doc]]),
      mainPath: "0500-doc.md",
      profile,
      repo: { bundlePath: "", exists: (p) => repoFiles.has(p) },
    });
    expect(r.findings.map((f) => f.anchor.quote)).toEqual(["/proposals/0412-gone.md"]);
  });

  it("a root-absolute link the linted folder lacks is a broken link only when that folder is known to be the repository's root", () => {
    const profile = oneCheckProfile("links-resolve", {});
    const doc = `${FM}* Vision: [approachable concurrency](/visions/approachable.md)\n[here](./gone.md)\n`;
    const lint = (rootKnown?: boolean) =>
      lintBundle({
        files: new Map([["0461-doc.md", doc]]),
        mainPath: "0461-doc.md",
        profile,
        repo: { bundlePath: "", exists: () => false, ...(rootKnown === undefined ? {} : { rootKnown }) },
      }).findings.map((f) => [f.anchor.quote, f.level]);
    // A checkout (a .git marks the root): both are broken.
    expect(lint()).toEqual([
      ["/visions/approachable.md", "MUST"],
      ["./gone.md", "MUST"],
    ]);
    // A folder copied out of a larger repository: the root-absolute one cannot be judged.
    expect(lint(false)).toEqual([
      ["/visions/approachable.md", "SHOULD"],
      ["./gone.md", "MUST"],
    ]);
  });
});
