/**
 * Classifying a markdown file without the YAML parser: whenever the plain reading answers,
 * its type is the one the parse gives (and the parse finds no error); anything it cannot
 * read is left to the parser.
 */
import { describe, expect, it } from "vitest";
import { classifyMarkdown, plainFrontmatterType } from "../../../core/bundle/discover.js";
import { frontmatterType, parseFrontmatter } from "../../../core/markdown/frontmatter.js";

/** What the YAML parse says the type is, and whether it found an error. */
function parsed(text: string): { type: string | undefined; error: boolean } {
  const fm = parseFrontmatter(text);
  return { type: fm.error ? undefined : frontmatterType(fm), error: fm.error !== undefined };
}

const LINES = [
  "type: prd",
  "type: design",
  "type: my.type-2",
  "type: True",
  "type: null",
  "type: 12",
  "type: 1e3",
  "type: .inf",
  "type:",
  "type:   kep   ",
  "type: two words",
  "type: 'quoted'",
  'type: "kep"',
  "type: kep # a comment",
  "type: [a, b]",
  "type: &a kep",
  "type: !!str 12",
  "Type: prd",
  "size: standard",
  "title: Generated spec 1",
  "owner: Owner (team), lead",
  "date: 2026-01-01",
  "status: accepted",
  "authors: [A, B]",
  "url: https://example.org/x",
  "note: it's fine",
  "key: value: more",
  "- item",
  "  indented: x",
  "\tkey: tab",
  "# a comment",
  "",
  "nested:",
  "  type: inner",
  "--- x",
  "%YAML 1.2",
  "<<: *a",
  "über: ja",
];

describe("plainFrontmatterType", () => {
  it("answers only where the YAML parse gives the same type without an error", () => {
    let seed = 11;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    let answered = 0;
    for (let n = 0; n < 3000; n++) {
      const lines: string[] = [];
      for (let k = Math.floor(next() * 6); k > 0; k--) lines.push(LINES[Math.floor(next() * LINES.length)]!);
      const text = `---\n${lines.join("\n")}\n---\n# Title\n\nBody.\n`;
      const plain = plainFrontmatterType(text);
      if (!plain) continue;
      answered++;
      expect({ type: plain.type, error: false }, JSON.stringify(text)).toEqual(parsed(text));
      expect(classifyMarkdown(text).type).toBe(plain.type);
    }
    // The plain reading answers for the common shapes, not only for trivial ones.
    expect(answered).toBeGreaterThan(300);
  });

  it("reads the common shapes and leaves the rest to the parser", () => {
    expect(plainFrontmatterType("---\ntype: prd\nsize: small\n---\n# T\n")).toEqual({ type: "prd" });
    expect(plainFrontmatterType("# No frontmatter\n")).toEqual({ type: undefined });
    expect(plainFrontmatterType("---\ntype: prd\ntype: adr\n---\n")).toBeUndefined();
    expect(plainFrontmatterType("---\ntype: 'prd'\n---\n")).toBeUndefined();
    expect(plainFrontmatterType("---\r\ntype: prd\r\n---\r\n")).toBeUndefined();
    // A broken block still names its type through the parser's fallback.
    expect(classifyMarkdown("---\ntype: prd\ntitle: [oops\n---\n")).toMatchObject({ type: "prd" });
  });
});
