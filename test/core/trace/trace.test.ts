/** core/trace: frontmatter links, external targets, and the edits the trace view makes. */
import { describe, expect, it } from "vitest";
import { parseMarkdown } from "../../../core/markdown/document.js";
import {
  appendCover,
  externalTargets,
  frontmatterLinks,
  removeFrontmatterLink,
} from "../../../core/trace/index.js";

describe("frontmatter links", () => {
  it("reads link keys, lists and the adopted `links`, and reports values of the wrong type", () => {
    const { links, problems } = frontmatterLinks({
      implements: "./shop/prd/",
      references: ["decisions/adr-0007", "https://github.com/acme/shop/issues/812", 42],
      links: [
        { kind: "refines", target: "shop/design" },
        { kind: "depends-on", target: "x" },
      ],
      supersedes: { slug: "nope" },
    });
    expect(links.map((l) => [l.kind, l.target, l.origin, l.external])).toEqual([
      ["implements", "shop/prd", "frontmatter", false],
      ["references", "decisions/adr-0007", "frontmatter", false],
      ["references", "https://github.com/acme/shop/issues/812", "frontmatter", true],
      ["refines", "shop/design", "adopted", false],
    ]);
    expect(problems.map((p) => p.key)).toEqual(["references", "supersedes", "links[1].kind"]);
  });

  it("lists the external targets for the review that reads them", () => {
    expect(
      externalTargets({
        "implemented-by": "https://github.com/acme/shop/tree/main/giftcards",
        implements: "shop/prd",
      }),
    ).toEqual([{ rel: "implemented-by", url: "https://github.com/acme/shop/tree/main/giftcards" }]);
  });
});

describe("edits", () => {
  const text =
    "---\r\ntype: design # our type\r\nimplements:\r\n  - shop/prd\r\n  - shop/api\r\n---\r\n\r\n# T 🎁\r\n\r\n## A\r\n\r\nText.\r\n\r\n### A1\r\n\r\nMore.\r\n";

  it("removes one item of a link list, keeping comments and CRLF", () => {
    const r = removeFrontmatterLink(text, "implements", "shop/prd", "frontmatter");
    expect(r).toEqual({ ok: true, text: text.replace("  - shop/prd\r\n", "") });
    expect(removeFrontmatterLink(text, "refines", "shop/prd", "frontmatter")).toEqual({
      ok: false,
      reason: "link_not_found",
    });
  });

  it("appends `Covers <ID>.` to a section's own text, before its subsections", () => {
    const r = appendCover(parseMarkdown(text), ["T 🎁", "A"], "REQ-001");
    expect(r).toEqual({
      ok: true,
      changed: true,
      text: text.replace("Text.\r\n", "Text.\r\n\r\nCovers REQ-001.\r\n"),
    });
    if (!r.ok) return;
    expect(appendCover(parseMarkdown(r.text), ["T 🎁", "A"], "REQ-001")).toMatchObject({ changed: false });
    const last = appendCover(parseMarkdown(text), ["T 🎁", "A", "A1"], "REQ-002");
    expect(last).toMatchObject({ ok: true, text: `${text}\r\nCovers REQ-002.\r\n` });
    expect(appendCover(parseMarkdown(text), ["T 🎁", "B"], "REQ-001")).toEqual({
      ok: false,
      reason: "section_not_found",
    });
  });
});
