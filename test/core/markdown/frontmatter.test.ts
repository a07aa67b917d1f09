/**
 * Plain `key: value` YAML read without the parser: wherever the plain reading answers,
 * it gives exactly the data YAML's parse gives (and the parse finds no error).
 */
import { parse, parseDocument } from "yaml";
import { describe, expect, it } from "vitest";
import { parseFrontmatter, plainYamlMap } from "../../../core/markdown/frontmatter.js";

const LINES = [
  "type: prd",
  "size: standard",
  "title: Generated enhancement 12",
  "kep-number: 1000",
  "count: +12",
  "zero: 007",
  "big: 123456789012345678901234",
  "float: 1.5",
  "exp: 1e3",
  "ver: 1.0",
  "oct: 0o17",
  "hex: 0x1F",
  "inf: .inf",
  "nan: .NaN",
  "date: 2025-01-01",
  "flag: true",
  "other: False",
  "yes: yes",
  "nothing:",
  "nil: null",
  "tilde: ~",
  "Null: x",
  "true: x",
  "__proto__: x",
  "owning-sig: sig-node",
  "status: implementable",
  "owner: Owner (team), lead",
  "note: it's fine",
  "url: https://example.org/x",
  "quoted: 'x'",
  "list: [a, b]",
  "- item",
  "  indented: x",
  "# a comment",
  "",
  "nested:",
  "  inner: 1",
  "über: ja",
  "type: adr",
];

describe("plainYamlMap", () => {
  it("answers only where YAML's parse gives the same data without an error", () => {
    let seed = 5;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    let answered = 0;
    for (let n = 0; n < 4000; n++) {
      const lines: string[] = [];
      for (let k = Math.floor(next() * 6); k > 0; k--) lines.push(LINES[Math.floor(next() * LINES.length)]!);
      const raw = `${lines.join("\n")}\n`;
      const plain = plainYamlMap(raw);
      if (!plain) continue;
      answered++;
      const doc = parseDocument(raw, { uniqueKeys: true });
      expect(doc.errors, raw).toEqual([]);
      expect(plain, raw).toEqual(doc.toJS());
      expect(plain, raw).toEqual(parse(raw));
      // The frontmatter reader gives the same answer as before it had the plain reading.
      const fm = parseFrontmatter(`---\n${raw}---\n# T\n`);
      expect(fm.error).toBeUndefined();
      expect(fm.data).toEqual(doc.toJS());
    }
    expect(answered).toBeGreaterThan(400);
  });

  it("leaves anything but plain lines to the parser", () => {
    expect(plainYamlMap("a: 1\nb: two words\nc:\n")).toEqual({ a: 1, b: "two words", c: null });
    expect(plainYamlMap("a: 1\na: 2\n")).toBeUndefined();
    expect(plainYamlMap("a: 1.5\n")).toBeUndefined();
    expect(plainYamlMap("authors:\n  - x\n")).toBeUndefined();
    expect(plainYamlMap("# only a comment\n")).toBeUndefined();
  });
});
