import { describe, expect, it } from "vitest";
import {
  byteOffsetOf,
  countWords,
  lineColOfByte,
  TextIndex,
  utf8Length,
} from "../../../core/markdown/text.js";

const sample = "a\u00e9\u4e2d\ud83d\ude00b\nsecond \u00fc line\n";

describe("UTF-8 offsets", () => {
  it("counts bytes like the encoder", () => {
    for (const s of ["", "abc", "\u00e9", "\u4e2d\u6587", "\ud83d\ude00", sample, "\ud800 lone surrogate"])
      expect(utf8Length(s)).toBe(new TextEncoder().encode(s).length);
  });

  it("maps every string index to its byte offset and back", () => {
    const index = new TextIndex(sample);
    expect(index.ascii).toBe(false);
    expect(index.byteLength).toBe(Buffer.byteLength(sample));
    for (let i = 0; i <= sample.length; i++) {
      // Skip the middle of the surrogate pair: it is not a character boundary.
      if (i === 4) continue;
      const byte = Buffer.byteLength(sample.slice(0, i));
      expect(index.byteOf(i)).toBe(byte);
      expect(byteOffsetOf(sample, i)).toBe(byte);
      expect(index.charOf(byte)).toBe(i);
    }
  });

  it("a byte inside a character maps to the character's start", () => {
    const index = new TextIndex("x\u4e2dy");
    expect(index.charOf(2)).toBe(1);
    expect(index.charOf(3)).toBe(1);
    expect(index.charOf(4)).toBe(2);
  });

  it("gives 1-based lines and UTF-16 columns of a byte", () => {
    const second = Buffer.byteLength("a\u00e9\u4e2d\ud83d\ude00b\n");
    expect(lineColOfByte(sample, 0)).toEqual({ line: 1, column: 1 });
    expect(lineColOfByte(sample, second)).toEqual({ line: 2, column: 1 });
    expect(lineColOfByte(sample, second + Buffer.byteLength("second \u00fc"))).toEqual({
      line: 2,
      column: 9,
    });
    expect(lineColOfByte(sample, Buffer.byteLength(sample))).toEqual({ line: 3, column: 1 });
  });

  it("is exact on ASCII texts too", () => {
    const index = new TextIndex("ab\ncd");
    expect(index.ascii).toBe(true);
    expect(index.byteOf(4)).toBe(4);
    expect(index.positionOfByte(4)).toEqual({ line: 2, column: 2 });
  });
});

describe("countWords", () => {
  it("counts words, not markup", () => {
    expect(countWords("**Hello**, world - it's 2 o'clock; ß über")).toBe(7);
    expect(countWords("| --- | *** |")).toBe(0);
  });

  it("counts what the word pattern matches, on any script, emoji and broken surrogates", () => {
    const pattern = /[\p{L}\p{N}][\p{L}\p{N}'’_-]*/gu;
    const pieces = [
      "a",
      "Z",
      "9",
      "'",
      "’",
      "_",
      "-",
      " ",
      "\n",
      "é",
      "ß",
      "日本",
      "١٢",
      "𝒳",
      "😀",
      "\ud800",
      "\udc00",
      "*",
      "|",
      "‘",
    ];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let n = 0; n < 2000; n++) {
      let text = "";
      for (let k = Math.floor(next() * 30); k > 0; k--) text += pieces[Math.floor(next() * pieces.length)]!;
      expect(countWords(text), JSON.stringify(text)).toBe(text.match(pattern)?.length ?? 0);
    }
  });
});
