import { describe, expect, it } from "vitest";
import { anchorAt, anchorAtBytes, locateQuote, reanchor } from "../../../core/anchor/anchor.js";
import { safeJson, safeText } from "../../../core/anchor/safe-text.js";
import { parseMarkdown } from "../../../core/markdown/document.js";

const text =
  "---\ntype: prd\n---\n# Café ☕\n\n## Goals\n\nMake the naïve 🎯 goal real. Make the naïve goal real.\n";

describe("anchors", () => {
  const doc = parseMarkdown(text);

  it("anchors a range with byte offsets into the whole file", () => {
    const at = text.indexOf("naïve 🎯");
    const a = anchorAt(doc, "prd.md", at, at + "naïve 🎯".length);
    expect(a.quote).toBe("naïve 🎯");
    expect(a.start).toBe(Buffer.byteLength(text.slice(0, at)));
    expect(Buffer.from(text).subarray(a.start, a.end).toString()).toBe("naïve 🎯");
    expect(a.heading_path).toEqual(["Café ☕", "Goals"]);
    expect(a.prefix.endsWith("Make the ")).toBe(true);
    expect(a.suffix.startsWith(" goal real.")).toBe(true);
    expect(anchorAtBytes(doc, "prd.md", a.start, a.end)).toEqual(a);
  });

  it("locates a quote by occurrence", () => {
    const first = locateQuote(doc, "prd.md", "Make the")!;
    const second = locateQuote(doc, "prd.md", "Make the", { occurrence: 1 })!;
    expect(second.start).toBeGreaterThan(first.start);
    expect(locateQuote(doc, "prd.md", "Make the", { occurrence: 2 })).toBeUndefined();
    expect(locateQuote(doc, "prd.md", "absent")).toBeUndefined();
  });

  it("finds an anchor again after an edit above it", () => {
    const a = locateQuote(doc, "prd.md", "Make the naïve goal real.")!;
    const edited = parseMarkdown(text.replace("# Café ☕", "# Café ☕ (draft)\n\nA new paragraph."));
    const b = reanchor(edited, a);
    expect(b.detached).toBeUndefined();
    expect(b.quote).toBe(a.quote);
    expect(b.start).toBe(a.start + Buffer.byteLength(" (draft)\n\nA new paragraph."));
  });

  it("prefers the occurrence whose context still matches", () => {
    const twice = parseMarkdown("## A\n\nsame words here\n\n## B\n\nsame words here\n");
    const second = locateQuote(twice, "d.md", "same words here", { occurrence: 1 })!;
    const edited = parseMarkdown("intro\n\n## A\n\nsame words here\n\n## B\n\nsame words here\n");
    const found = reanchor(edited, second);
    expect(found.heading_path).toEqual(["B"]);
  });

  it("marks an anchor detached when the quote is gone", () => {
    const a = locateQuote(doc, "prd.md", "naïve 🎯")!;
    const b = reanchor(parseMarkdown(text.replace("naïve 🎯", "clear")), a);
    expect(b).toEqual({ ...a, detached: true });
  });

  it("keeps an unchanged anchor as it is", () => {
    const a = locateQuote(doc, "prd.md", "goal real")!;
    expect(reanchor(doc, a)).toEqual(a);
  });
});

describe("anchor context never splits a character", () => {
  // Every string a finding carries is stored as JSON: a lone surrogate or NUL would fail the run.
  // eslint-disable-next-line no-control-regex
  const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]|\u0000/;
  const samples: [string, string][] = [
    ["emoji", "Ship it 🚀🚀 now 👩🏽‍💻 and 👨‍👩‍👧 together 🎯 done 🙂 ok 🚀 end"],
    ["CJK", "## 要件\n\n系统必须在两秒内响应。用户可以保存搜索条件并接收通知。𠮷野家の検索"],
    ["combining marks", "Cafe\u0301 nai\u0308ve re\u0301sume\u0301 Z\u0351\u0352a\u0353lgo\u0301 text"],
    ["CRLF", "## Goals\r\n\r\n- first line\r\n- second line 🚀\r\n\r\nEnd of text\r\n"],
    ["lone surrogates and NUL", "bad \uD83D half and \uDE80 low and \u0000 nul 🚀 ok"],
  ];
  const graphemes = (s: string) => [...new Intl.Segmenter("en", { granularity: "grapheme" }).segment(s)];

  it.each(samples)("%s: every cut point gives storable, whole-character anchors", (_name, body) => {
    const text = `# Title\n\n${body}\n`;
    const d = parseMarkdown(text);
    for (let s = 0; s <= text.length; s++)
      for (const len of [0, 1, 2, 3]) {
        const a = anchorAt(d, "doc.md", s, s + len);
        for (const part of [a.prefix, a.quote, a.suffix, ...a.heading_path]) {
          expect(lone.test(part), `cut at ${s}+${len}: ${JSON.stringify(part)}`).toBe(false);
          expect(JSON.parse(JSON.stringify(part)) as string).toBe(part);
        }
        expect([...a.prefix].length).toBeLessThanOrEqual(32);
        expect([...a.suffix].length).toBeLessThanOrEqual(32);
        // Byte offsets are code point boundaries of the file.
        const bytes = Buffer.from(text, "utf8");
        expect(bytes[a.start]! >> 6 === 2 && a.start < bytes.length).toBe(false);
      }
  });

  it.each(samples.slice(0, 4))("%s: prefix and suffix do not cut a grapheme", (_name, body) => {
    const text = `# Title\n\n${body}\n`;
    const d = parseMarkdown(text);
    // Boundaries of whole graphemes in the text (a CRLF is one).
    const bounds = new Set<number>([text.length]);
    for (const g of graphemes(text)) bounds.add(g.index);
    for (const s of bounds) {
      const a = anchorAt(d, "doc.md", s, s);
      expect(bounds.has(s - a.prefix.length), `prefix at ${s}: ${JSON.stringify(a.prefix)}`).toBe(true);
      expect(bounds.has(s + a.suffix.length), `suffix at ${s}: ${JSON.stringify(a.suffix)}`).toBe(true);
    }
  });

  it("replaces lone surrogates and NUL by U+FFFD and keeps good text as it is", () => {
    expect(safeText("a\uD83Db\u0000c\uDE80")).toBe("a\uFFFDb\uFFFDc\uFFFD");
    expect(safeText("ok 🚀 日本")).toBe("ok 🚀 日本");
    const v = { q: ["x\u0000"], n: 1, ok: "fine" };
    expect(safeJson(v)).toEqual({ q: ["x\uFFFD"], n: 1, ok: "fine" });
    const good = { q: ["x"], n: 1 };
    expect(safeJson(good)).toBe(good);
  });
});
