import { describe, expect, it } from "vitest";
import { resolveInBundle } from "../../../../core/lint/checks/links-resolve.js";
import { FM, hits, runCheck } from "../run-check.js";

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
    name: "outside the bundle",
    doc: `${FM}[up](../other/x.md)\n`,
    params: {},
    expected: [[5, "../other/x.md"]],
  },
  { name: "absolute path", doc: `${FM}[abs](/etc/passwd)\n`, params: {}, expected: [[5, "/etc/passwd"]] },
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

  it("resolves against the doc's folder", () => {
    expect(resolveInBundle("specs/doc.md", "../img/a.png")).toBe("img/a.png");
    expect(resolveInBundle("doc.md", "../x")).toBeUndefined();
    expect(resolveInBundle("doc.md", "./a/./b/../c")).toBe("a/c");
  });
});
