/**
 * Anchors (contract 2.7): a quote of the file with some context before and after, its
 * heading path and its UTF-8 byte range in the whole file (frontmatter included).
 * Make one from a range, find it again after an edit, or mark it detached.
 */
import { sectionAtChar, type MarkdownDoc } from "../markdown/document.js";
import { safeText } from "./safe-text.js";

export interface Anchor {
  /** Path of the file, relative to its bundle. */
  file: string;
  heading_path: string[];
  quote: string;
  /** Up to CONTEXT_CHARS code points before the quote (never half a character). */
  prefix: string;
  /** Up to CONTEXT_CHARS code points after the quote. */
  suffix: string;
  /** UTF-8 byte offset of the quote in the file. */
  start: number;
  end: number;
  /** The text changed and the quote cannot be found in the current version. */
  detached?: boolean;
}

/** Characters (Unicode code points) of context kept on each side of a quote. */
export const CONTEXT_CHARS = 32;

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;
/** Marks that belong to the character before them: combining marks, ZWJ, variation selectors, skin tones. */
const JOINS_PREVIOUS = /^(?:\p{M}|\u200D|[\uFE00-\uFE0F]|[\u{1F3FB}-\u{1F3FF}]|[\u{E0020}-\u{E007F}])/u;

/** The nearest code point boundary at or before `i` (never inside a surrogate pair). */
function boundaryBefore(text: string, i: number): number {
  return i > 0 && i < text.length && isLow(text.charCodeAt(i)) && isHigh(text.charCodeAt(i - 1)) ? i - 1 : i;
}

/** The nearest code point boundary at or after `i`. */
function boundaryAfter(text: string, i: number): number {
  return i > 0 && i < text.length && isLow(text.charCodeAt(i)) && isHigh(text.charCodeAt(i - 1)) ? i + 1 : i;
}

/** Does the character at `i` attach to the one before it (so a cut at `i` splits a grapheme)? */
function joinsPrevious(text: string, i: number): boolean {
  if (i <= 0 || i >= text.length) return false;
  const c = text.charCodeAt(i);
  if (c === 0x0a) return text.charCodeAt(i - 1) === 0x0d; // CRLF is one line break
  if (c < 0x300) return false;
  return JOINS_PREVIOUS.test(text.slice(i, i + 2)) || text.charCodeAt(i - 1) === 0x200d;
}

/** Start of the context before `s`: up to `n` code points back, not starting inside a grapheme. */
export function contextStart(text: string, s: number, n = CONTEXT_CHARS): number {
  let i = s;
  for (let k = 0; k < n && i > 0; k++)
    i -= i >= 2 && isLow(text.charCodeAt(i - 1)) && isHigh(text.charCodeAt(i - 2)) ? 2 : 1;
  // Drop marks left without their base character.
  while (i < s && joinsPrevious(text, i)) i = boundaryAfter(text, i + 1);
  return Math.min(i, s);
}

/** End of the context after `e`: up to `n` code points on, not ending inside a grapheme. */
export function contextEnd(text: string, e: number, n = CONTEXT_CHARS): number {
  let i = e;
  for (let k = 0; k < n && i < text.length; k++)
    i += isHigh(text.charCodeAt(i)) && isLow(text.charCodeAt(i + 1)) ? 2 : 1;
  // Do not keep a base character whose marks were cut off.
  while (i > e && joinsPrevious(text, i)) i = boundaryBefore(text, i - 1);
  return Math.max(i, e);
}

/**
 * The anchor of the string range `[charStart, charEnd)` of `doc.text`. A range that
 * cuts a surrogate pair is widened to whole code points; every string is made safe to
 * store (safeText).
 */
export function anchorAt(doc: MarkdownDoc, file: string, charStart: number, charEnd: number): Anchor {
  const text = doc.text;
  const s = boundaryBefore(text, Math.max(0, Math.min(charStart, text.length)));
  const e = boundaryAfter(text, Math.max(s, Math.min(charEnd, text.length)));
  const heading_path = sectionAtChar(doc, s).heading_path;
  return {
    file: safeText(file),
    heading_path: heading_path.some((h) => safeText(h) !== h) ? heading_path.map(safeText) : heading_path,
    quote: safeText(text.slice(s, e)),
    prefix: safeText(text.slice(contextStart(text, s), s)),
    suffix: safeText(text.slice(e, contextEnd(text, e))),
    start: doc.index.byteOf(s),
    end: doc.index.byteOf(e),
  };
}

/** The anchor of the UTF-8 byte range `[start, end)` of the file. */
/**
 * The anchors of a CRLF doc as they read with its line ends as LF, for ids: a finding keeps
 * its id in a checkout that turned LF into CRLF (git's autocrlf), so a waiver or a Code
 * Quality fingerprint made on one matches on the other. Undefined for a doc without CRLF.
 */
export function lfAnchorView(doc: MarkdownDoc): ((a: Anchor) => Anchor) | undefined {
  const text = doc.text;
  if (!text.includes("\r\n")) return undefined;
  const lf = text.replace(/\r\n/g, "\n");
  const crs: number[] = [];
  for (let i = text.indexOf("\r\n"); i >= 0; i = text.indexOf("\r\n", i + 2)) crs.push(i);
  // The CRs before char c: each one shifts the LF text by one.
  const toLf = (c: number) => {
    let lo = 0;
    let hi = crs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (crs[mid]! < c) lo = mid + 1;
      else hi = mid;
    }
    return c - lo;
  };
  return (a) => {
    if (a.detached || a.end > doc.index.byteLength) return a;
    const s = toLf(doc.index.charOf(a.start));
    const e = toLf(doc.index.charOf(a.end));
    return {
      ...a,
      quote: a.quote.replace(/\r\n/g, "\n"),
      prefix: safeText(lf.slice(contextStart(lf, s), s)),
      suffix: safeText(lf.slice(e, contextEnd(lf, e))),
    };
  };
}

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
