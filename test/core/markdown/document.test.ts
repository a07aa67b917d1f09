import GithubSlugger from "github-slugger";
import { describe, expect, it } from "vitest";
import { parseMarkdown, sectionAtChar, sectionTexts } from "../../../core/markdown/document.js";

const text = `---
title: Über
---
Preamble.

# Título ü

Intro with [link](./a.md) and ![img](img/p.png "t").

## Goals

- one
- two **bold**

### Sub 🎯

| a | b |
|---|---|
| 1 | [c](c.md) |

# Second

\`\`\`js
code
\`\`\`
`;

const bytes = Buffer.from(text, "utf8");
const slice = (start: number, end: number) => bytes.subarray(start, end).toString("utf8");

describe("parseMarkdown", () => {
  const doc = parseMarkdown(text);

  it("builds sections with heading paths, levels and lines", () => {
    expect(doc.sections.map((s) => [s.heading_path, s.level, s.line])).toEqual([
      [[], 0, 4],
      [["Título ü"], 1, 6],
      [["Título ü", "Goals"], 2, 10],
      [["Título ü", "Goals", "Sub 🎯"], 3, 15],
      [["Second"], 1, 21],
    ]);
  });

  it("gives byte ranges: whole section, content and own text", () => {
    const goals = doc.sections[2]!;
    expect(slice(goals.start, goals.end)).toBe(
      text.slice(text.indexOf("## Goals"), text.indexOf("# Second")),
    );
    expect(slice(goals.start, goals.content_start)).toBe("## Goals\n");
    expect(slice(goals.start, goals.own_end)).toBe("## Goals\n\n- one\n- two **bold**\n\n");
    const root = doc.sections[0]!;
    expect(root.start).toBe(0);
    expect(root.end).toBe(bytes.length);
    expect(slice(root.content_start, root.own_end)).toBe("Preamble.\n\n");
  });

  it("own texts tile the file, in order", () => {
    const parts = sectionTexts(doc);
    expect(parts.map((p) => p.text).join("")).toBe(text);
    for (const p of parts) expect(slice(p.start, p.end)).toBe(p.text);
    expect(parts.map((p) => p.key)).toEqual([
      "",
      "Título ü",
      "Título ü > Goals",
      "Título ü > Goals > Sub 🎯",
      "Second",
    ]);
  });

  it("keys tell repeated headings apart", () => {
    const keys = sectionTexts(parseMarkdown("## Notes\n\na\n\n## Notes\n\nb\n")).map((s) => s.key);
    expect(keys).toEqual(["", "Notes", "Notes#2"]);
  });

  it("lists blocks with line maps and byte ranges", () => {
    const kinds = doc.blocks.map((b) => [b.kind, b.line]);
    expect(kinds).toEqual([
      ["paragraph", 4],
      ["heading", 6],
      ["paragraph", 8],
      ["heading", 10],
      ["list_item", 12],
      ["paragraph", 12],
      ["list_item", 13],
      ["paragraph", 13],
      ["heading", 15],
      ["table", 17],
      ["heading", 21],
      ["code", 23],
    ]);
    for (const b of doc.blocks) expect(slice(b.start, b.end)).toBe(text.slice(b.charStart, b.charEnd));
    const table = doc.blocks.find((b) => b.kind === "table")!;
    expect(table.rows).toEqual([
      ["a", "b"],
      ["1", "[c](c.md)"],
    ]);
    expect(doc.blocks.find((b) => b.kind === "code")!.info).toBe("js");
  });

  it("finds links and images with their byte positions", () => {
    expect(
      doc.links.map((l) => [l.kind, l.href, slice(l.start, l.end), l.line, doc.sections[l.section]!.title]),
    ).toEqual([
      ["link", "./a.md", "./a.md", 8, "Título ü"],
      ["image", "img/p.png", "img/p.png", 8, "Título ü"],
      ["link", "c.md", "c.md", 19, "Sub 🎯"],
    ]);
  });

  it("finds the section of a position", () => {
    expect(sectionAtChar(doc, text.indexOf("two")).title).toBe("Goals");
    expect(sectionAtChar(doc, 0).level).toBe(0);
    expect(sectionAtChar(doc, text.length).title).toBe("Second");
  });

  it("gives heading slugs, unique in the doc", () => {
    expect(parseMarkdown("# A b\n\n## A b\n\n## C: d!\n").sections.map((s) => s.slug)).toEqual([
      "",
      "a-b",
      "a-b-1",
      "c-d",
    ]);
  });

  it("numbers repeated slugs as github.com does, a heading that reads like a numbered repeat included", () => {
    const titles = ["A", "A", "A-1", "A", "a 1", "B", "A-1", "Ünïcode ✓", "ünïcode ✓", "", "", "-1"];
    const github = new GithubSlugger();
    // Twice: remembered slugs of an earlier doc do not leak into the next one.
    for (let round = 0; round < 2; round++) {
      github.reset();
      const doc = parseMarkdown(titles.map((t) => `## ${t}\n\nText.\n`).join("\n"));
      expect(doc.sections.slice(1).map((s) => s.slug)).toEqual(titles.map((t) => github.slug(t)));
    }
  });

  it("never throws on broken frontmatter, and still parses the body", () => {
    const broken = parseMarkdown("---\ntitle: [unclosed\n---\n# Body\n");
    expect(broken.frontmatter.error?.line).toBeGreaterThan(1);
    expect(broken.sections[1]!.title).toBe("Body");
    expect(broken.sections[1]!.line).toBe(4);
  });

  it("handles empty text, no trailing newline, CRLF and a BOM", () => {
    expect(parseMarkdown("").sections).toHaveLength(1);
    const crlf = parseMarkdown("\ufeff# A\r\n\r\ntext\r\n## B\r\nx");
    expect(crlf.sections.map((s) => [s.title, s.line])).toEqual([
      ["", 1],
      ["A", 1],
      ["B", 4],
    ]);
    expect(crlf.sections[1]!.start).toBe(3);
  });
});
