/**
 * Anchors (contract 2.7): a quote of the file with some context before and after, its
 * heading path and its UTF-8 byte range in the whole file (frontmatter included).
 * Make one from a range, find it again after an edit, or mark it detached.
 */
import { sectionAtChar, type MarkdownDoc } from "../markdown/document.js";

export interface Anchor {
  /** Path of the file, relative to its bundle. */
  file: string;
  heading_path: string[];
  quote: string;
  /** Up to CONTEXT_CHARS characters before the quote. */
  prefix: string;
  /** Up to CONTEXT_CHARS characters after the quote. */
  suffix: string;
  /** UTF-8 byte offset of the quote in the file. */
  start: number;
  end: number;
  /** The text changed and the quote cannot be found in the current version. */
  detached?: boolean;
}

/** Characters of context kept on each side of a quote. */
export const CONTEXT_CHARS = 32;

/** `at`, moved back one when it would split a surrogate pair (an emoji): a lone half is not valid JSON text for Postgres. */
function pairStart(text: string, at: number): number {
  return at > 0 && (text.charCodeAt(at) & 0xfc00) === 0xdc00 && (text.charCodeAt(at - 1) & 0xfc00) === 0xd800
    ? at - 1
    : at;
}

/** `at` as an end, moved on one when it would split a surrogate pair. */
function pairEnd(text: string, at: number): number {
  return at < text.length &&
    (text.charCodeAt(at) & 0xfc00) === 0xdc00 &&
    (text.charCodeAt(at - 1) & 0xfc00) === 0xd800
    ? at + 1
    : at;
}

/** The anchor of the string range `[charStart, charEnd)` of `doc.text`. */
export function anchorAt(doc: MarkdownDoc, file: string, charStart: number, charEnd: number): Anchor {
  const text = doc.text;
  const s = Math.max(0, Math.min(charStart, text.length));
  const e = Math.max(s, Math.min(charEnd, text.length));
  return {
    file,
    heading_path: sectionAtChar(doc, s).heading_path,
    quote: text.slice(s, e),
    prefix: text.slice(pairStart(text, Math.max(0, s - CONTEXT_CHARS)), s),
    suffix: text.slice(e, pairEnd(text, Math.min(text.length, e + CONTEXT_CHARS))),
    start: doc.index.byteOf(s),
    end: doc.index.byteOf(e),
  };
}

/** The anchor of the UTF-8 byte range `[start, end)` of the file. */
export function anchorAtBytes(doc: MarkdownDoc, file: string, start: number, end: number): Anchor {
  return anchorAt(doc, file, doc.index.charOf(start), doc.index.charOf(end));
}

export interface LocateOptions {
  /** Which occurrence to take (0-based) among those found. Default 0. */
  occurrence?: number;
  /** Search only within this string range of `doc.text`. */
  within?: [number, number];
}

/**
 * Locate `quote` in the doc and anchor it: the `occurrence`-th match, optionally inside a
 * string range. Undefined when the quote is empty or not found.
 */
export function locateQuote(
  doc: MarkdownDoc,
  file: string,
  quote: string,
  options: LocateOptions = {},
): Anchor | undefined {
  if (quote === "") return undefined;
  const [from, to] = options.within ?? [0, doc.text.length];
  let at = doc.text.indexOf(quote, from);
  for (let n = options.occurrence ?? 0; n > 0 && at >= 0; n--) at = doc.text.indexOf(quote, at + 1);
  if (at < 0 || at + quote.length > to) return undefined;
  return anchorAt(doc, file, at, at + quote.length);
}

/** Length of the common ending of two strings. */
function commonSuffix(a: string, b: string): number {
  let n = 0;
  while (n < a.length && n < b.length && a.charCodeAt(a.length - 1 - n) === b.charCodeAt(b.length - 1 - n))
    n++;
  return n;
}

function commonPrefix(a: string, b: string): number {
  let n = 0;
  while (n < a.length && n < b.length && a.charCodeAt(n) === b.charCodeAt(n)) n++;
  return n;
}

/**
 * Find an anchor again in a (possibly edited) version of its file.
 *
 * 1. The quote still sits at the same bytes with the same context: kept, heading path refreshed.
 * 2. Else every occurrence of the quote is scored by how much of the old prefix and suffix
 *    still surround it, then by closeness to the old offset; the best one wins.
 * 3. An empty quote is found by its prefix and suffix together.
 * 4. Nothing found: the same anchor, `detached: true`.
 */
export function reanchor(doc: MarkdownDoc, anchor: Anchor): Anchor {
  const text = doc.text;
  const file = anchor.file;
  if (anchor.quote === "") {
    const joined = anchor.prefix + anchor.suffix;
    const at = joined === "" ? -1 : text.indexOf(joined);
    if (at < 0) return { ...anchor, detached: true };
    const pos = at + anchor.prefix.length;
    return anchorAt(doc, file, pos, pos);
  }
  const oldChar = doc.index.charOf(anchor.start);
  if (text.startsWith(anchor.quote, oldChar) && doc.index.byteOf(oldChar) === anchor.start) {
    const here = anchorAt(doc, file, oldChar, oldChar + anchor.quote.length);
    if (here.prefix === anchor.prefix && here.suffix === anchor.suffix) return here;
  }
  let best = -1;
  let bestScore = -1;
  let bestDistance = Infinity;
  for (let at = text.indexOf(anchor.quote); at >= 0; at = text.indexOf(anchor.quote, at + 1)) {
    const before = text.slice(Math.max(0, at - anchor.prefix.length), at);
    const after = text.slice(at + anchor.quote.length, at + anchor.quote.length + anchor.suffix.length);
    const score = commonSuffix(before, anchor.prefix) + commonPrefix(after, anchor.suffix);
    const distance = Math.abs(at - oldChar);
    if (score > bestScore || (score === bestScore && distance < bestDistance)) {
      best = at;
      bestScore = score;
      bestDistance = distance;
    }
  }
  if (best < 0) return { ...anchor, detached: true };
  return anchorAt(doc, file, best, best + anchor.quote.length);
}
