/**
 * Finding trace IDs in one file's bytes, fast: each ID prefix (`REQ-`) is searched with
 * `Buffer.indexOf` (no decoding, no regular expression over the whole file); only the
 * lines holding a known ID are decoded and classified (forms.ts).
 */
import { classify, type HitKind } from "./forms.js";

export interface Hit {
  id: string;
  kind: HitKind;
  path: string;
  /** 1-based line number. */
  line: number;
  /** The line holding the ID, trimmed, at most 300 characters. */
  quote: string;
  /** Up to 12 lines around the hit, for a model to read. */
  context: string;
}

export interface Needles {
  prefixes: Buffer[];
  ids: Set<string>;
}

export function needlesFor(ids: Iterable<string>): Needles {
  const set = new Set(ids);
  const prefixes = new Set<string>();
  for (const id of set) {
    const dash = id.indexOf("-");
    if (dash > 0) prefixes.add(id.slice(0, dash + 1));
  }
  return { prefixes: [...prefixes].map((p) => Buffer.from(p)), ids: set };
}

/** Bytes that may continue an ID after its prefix: letters, digits, `_`. */
function idByte(b: number): boolean {
  return (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b === 95;
}

/** A byte before an ID that would make it part of a longer token. */
function joinsBefore(b: number): boolean {
  return idByte(b) || b === 45;
}

/** True when the first 8000 bytes hold a NUL byte (what git calls binary). */
export function looksBinary(buf: Buffer): boolean {
  return buf.subarray(0, 8000).indexOf(0) !== -1;
}

const NL = 10;

export function scanBuffer(path: string, buf: Buffer, needles: Needles): Hit[] {
  const found: Array<{ at: number; end: number; id: string }> = [];
  for (const prefix of needles.prefixes) {
    let at = buf.indexOf(prefix);
    while (at !== -1) {
      let end = at + prefix.length;
      while (end < buf.length && idByte(buf[end]!)) end++;
      if ((at === 0 || !joinsBefore(buf[at - 1]!)) && end > at + prefix.length) {
        const id = buf.toString("latin1", at, end);
        if (needles.ids.has(id)) found.push({ at, end, id });
      }
      at = buf.indexOf(prefix, end);
    }
  }
  if (found.length === 0) return [];
  found.sort((a, b) => a.at - b.at);
  const hits: Hit[] = [];
  let line = 1;
  let counted = 0;
  for (const f of found) {
    // Newlines between the previous hit and this one (none before `counted` is uncounted).
    for (let p = buf.indexOf(NL, counted); p !== -1 && p < f.at; p = buf.indexOf(NL, p + 1)) line++;
    counted = f.at;
    const start = buf.lastIndexOf(NL, f.at) + 1;
    let stop = buf.indexOf(NL, f.at);
    if (stop === -1) stop = buf.length;
    const before = buf.toString("utf8", start, f.at);
    const kind = classify(path, before);
    if (!kind) continue;
    const text = buf.toString("utf8", start, stop).replace(/\r$/, "");
    hits.push({
      id: f.id,
      kind,
      path,
      line,
      quote: text.trim().slice(0, 300),
      context: around(buf, start, stop),
    });
  }
  return hits;
}

/** Five lines before and six after the hit's line, at most 2000 characters. */
function around(buf: Buffer, start: number, stop: number): string {
  let from = start;
  for (let i = 0; i < 5 && from > 0; i++) from = buf.lastIndexOf(NL, from - 2) + 1;
  let to = stop;
  for (let i = 0; i < 6 && to < buf.length; i++) {
    const n = buf.indexOf(NL, to + 1);
    to = n === -1 ? buf.length : n;
  }
  return buf.toString("utf8", from, Math.min(to, from + 4000)).slice(0, 2000);
}
