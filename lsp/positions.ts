/**
 * Positions as the client counts them: LSP's default UTF-16 code units, or UTF-8 bytes or
 * code points when the client offers `positionEncoding` (LSP 3.17). Lint anchors are
 * UTF-8 byte offsets into the file; the doc's TextIndex turns them into string indexes.
 */
import type { Position, Range } from "vscode-languageserver/node";
import type { TextIndex } from "../core/markdown/text.js";
import { utf8Length } from "../core/markdown/text.js";

export type Encoding = "utf-16" | "utf-8" | "utf-32";

/** The encoding to use of the ones the client offers: UTF-16 unless it offers only others. */
export function chooseEncoding(offered: readonly string[] | undefined): Encoding {
  if (!offered || offered.length === 0 || offered.includes("utf-16")) return "utf-16";
  if (offered.includes("utf-8")) return "utf-8";
  if (offered.includes("utf-32")) return "utf-32";
  return "utf-16";
}

function codePoints(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < to) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** The position of a string index. */
export function positionOf(index: TextIndex, charIndex: number, enc: Encoding): Position {
  const line = index.lineOfChar(charIndex);
  const start = index.lineStarts[line]!;
  const character =
    enc === "utf-16"
      ? charIndex - start
      : enc === "utf-8"
        ? utf8Length(index.text, start, charIndex)
        : codePoints(index.text, start, charIndex);
  return { line, character };
}

export function rangeOf(index: TextIndex, charStart: number, charEnd: number, enc: Encoding): Range {
  return { start: positionOf(index, charStart, enc), end: positionOf(index, charEnd, enc) };
}

/** The string index of a position (a position past the line's end is its end). */
export function charOf(index: TextIndex, pos: Position, enc: Encoding): number {
  const start = index.charOfLine(pos.line);
  const end = pos.line + 1 < index.lineCount ? index.charOfLine(pos.line + 1) : index.text.length;
  if (enc === "utf-16") return Math.min(start + pos.character, end);
  const text = index.text;
  let units = 0;
  let i = start;
  while (i < end && units < pos.character) {
    const c = text.charCodeAt(i);
    const pair = c >= 0xd800 && c <= 0xdbff && i + 1 < end;
    units += enc === "utf-32" ? 1 : c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
    i += pair ? 2 : 1;
  }
  return i;
}
