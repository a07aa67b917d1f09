/**
 * Positions in a text: UTF-16 string indexes (what JavaScript slices by), UTF-8 byte
 * offsets (what the API speaks, contract 2.7) and 1-based lines and columns.
 *
 * A `TextIndex` is built once per text in one pass and answers each conversion with a
 * binary search over line starts plus a walk inside one line. Pure and allocation-light:
 * it runs on every save.
 */

/** Number of UTF-8 bytes the UTF-16 code unit range `[from, to)` of `s` encodes to. */
export function utf8Length(s: string, from = 0, to = s.length): number {
  let bytes = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < to) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/** UTF-8 byte offset of the string index `charIndex` in `text`. */
export function byteOffsetOf(text: string, charIndex: number): number {
  return utf8Length(text, 0, Math.max(0, Math.min(charIndex, text.length)));
}

// eslint-disable-next-line no-control-regex
const NON_ASCII = /[^\x00-\x7f]/;

export interface LineCol {
  /** 1-based line. */
  line: number;
  /** 1-based column, in UTF-16 code units (the unit SARIF and editors default to). */
  column: number;
}

export class TextIndex {
  readonly text: string;
  /** True when every character is ASCII: string indexes and byte offsets coincide. */
  readonly ascii: boolean;
  /** String index where each line starts (0-based line numbers). */
  readonly lineStarts: number[];
  /** Byte offset where each line starts. Same array as lineStarts when ascii. */
  readonly lineByteStarts: number[];
  /** Total UTF-8 length of the text. */
  readonly byteLength: number;

  constructor(text: string) {
    this.text = text;
    this.ascii = !NON_ASCII.test(text);
    const starts = [0];
    for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
    this.lineStarts = starts;
    if (this.ascii) {
      this.lineByteStarts = starts;
      this.byteLength = text.length;
    } else {
      const bytes = new Array<number>(starts.length);
      let acc = 0;
      bytes[0] = 0;
      for (let l = 1; l < starts.length; l++) {
        acc += utf8Length(text, starts[l - 1], starts[l]);
        bytes[l] = acc;
      }
      this.lineByteStarts = bytes;
      this.byteLength = acc + utf8Length(text, starts[starts.length - 1], text.length);
    }
  }

  /** Number of lines (a text ending in a newline has an empty last line). */
  get lineCount(): number {
    return this.lineStarts.length;
  }

  /** 0-based line holding the string index. */
  lineOfChar(charIndex: number): number {
    return upperBound(this.lineStarts, charIndex) - 1;
  }

  /** 0-based line holding the byte offset. */
  lineOfByte(byte: number): number {
    return upperBound(this.lineByteStarts, byte) - 1;
  }

  /** String index where 0-based `line` starts; the text length past the end. */
  charOfLine(line: number): number {
    if (line <= 0) return 0;
    return line < this.lineStarts.length ? this.lineStarts[line]! : this.text.length;
  }

  /** Byte offset where 0-based `line` starts; the byte length past the end. */
  byteOfLine(line: number): number {
    if (line <= 0) return 0;
    return line < this.lineByteStarts.length ? this.lineByteStarts[line]! : this.byteLength;
  }

  /** Last conversion done by byteOf (string index and its byte), to walk on from within one line. */
  private lastChar = 0;
  private lastByte = 0;

  /** UTF-8 byte offset of a string index. */
  byteOf(charIndex: number): number {
    const i = Math.max(0, Math.min(charIndex, this.text.length));
    if (this.ascii) return i;
    const line = this.lineOfChar(i);
    const lineStart = this.lineStarts[line]!;
    // Lookups come mostly in document order: on a long line (a minified table, a doc
    // with no line breaks) walk on from the previous answer instead of from the line's
    // start, so many lookups on one line stay linear.
    let byte: number;
    const last = this.lastChar;
    if (last > lineStart && last <= i && (this.text.charCodeAt(last) & 0xfc00) !== 0xdc00)
      byte = this.lastByte + utf8Length(this.text, last, i);
    else byte = this.lineByteStarts[line]! + utf8Length(this.text, lineStart, i);
    this.lastChar = i;
    this.lastByte = byte;
    return byte;
  }

  /** String index of a UTF-8 byte offset (a byte inside a character maps to that character's start). */
  charOf(byte: number): number {
    const b = Math.max(0, Math.min(byte, this.byteLength));
    if (this.ascii) return b;
    const line = this.lineOfByte(b);
    let i = this.lineStarts[line]!;
    let at = this.lineByteStarts[line]!;
    const text = this.text;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      const surrogate = c >= 0xd800 && c <= 0xdbff && i + 1 < text.length;
      const width = c < 0x80 ? 1 : c < 0x800 ? 2 : surrogate ? 4 : 3;
      if (at + width > b) break;
      at += width;
      i += surrogate ? 2 : 1;
    }
    return i;
  }

  /** 1-based line and column of a string index. */
  positionOfChar(charIndex: number): LineCol {
    const line = this.lineOfChar(charIndex);
    return { line: line + 1, column: charIndex - this.lineStarts[line]! + 1 };
  }

  /** 1-based line and column (UTF-16 units) of a UTF-8 byte offset. */
  positionOfByte(byte: number): LineCol {
    return this.positionOfChar(this.charOf(byte));
  }
}

/** First index whose value is greater than `x` (values sorted ascending). */
function upperBound(values: readonly number[], x: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** 1-based line and column of a UTF-8 byte offset in `text`. Builds an index: reuse one for many lookups. */
export function lineColOfByte(text: string, byte: number): LineCol {
  return new TextIndex(text).positionOfByte(byte);
}

const LETTER_OR_DIGIT = /^[\p{L}\p{N}]$/u;
/** Per code unit below 128: 1 letter or digit, 2 apostrophe, underscore or hyphen (a word goes on), 0 other. */
const ASCII_CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++)
  ASCII_CLASS[c] = /[A-Za-z0-9]/.test(String.fromCharCode(c)) ? 1 : c === 39 || c === 95 || c === 45 ? 2 : 0;

/**
 * Words in a text, as a writer would count them (markup characters are not words): the
 * matches of /[\p{L}\p{N}][\p{L}\p{N}'’_-]*\/gu, counted in one scan without building
 * them (lint counts the words of every block, and the array of matches was most of it).
 */
export function countWords(text: string): number {
  let n = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    let cls: number;
    if (c < 128) cls = ASCII_CLASS[c]!;
    else if (c === 0x2019) cls = 2;
    else {
      // Outside ASCII: a letter or digit by Unicode's tables, a whole code point at a time.
      const cp = text.codePointAt(i)!;
      if (cp > 0xffff) i++;
      cls = LETTER_OR_DIGIT.test(String.fromCodePoint(cp)) ? 1 : 0;
    }
    if (inWord) inWord = cls !== 0;
    else if (cls === 1) {
      n++;
      inWord = true;
    }
  }
  return n;
}
