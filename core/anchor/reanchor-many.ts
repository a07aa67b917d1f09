/**
 * Find many anchors of one file again after an edit, in one pass.
 *
 * `reanchor` (anchor.ts) searches the whole text for each quote: fine for a few anchors,
 * 500 full scans for a doc with 500 threads. Most anchors are nowhere near the edit, so
 * this first finds what changed between the two versions' bytes (the longest common
 * start and end: one comparison pass), then:
 *
 * - an anchor whose quote and context lie wholly before the change keeps its offsets;
 * - one wholly after it moves by the change in length;
 * - only the anchors the change touches are searched for (by quote with prefix and
 *   suffix, then by quote alone), or marked `detached`.
 *
 * The result is what `reanchor` gives for each anchor (an unchanged neighbourhood means
 * the same quote, prefix and suffix at the moved offsets), refreshed heading paths included.
 */
import type { MarkdownDoc } from "../markdown/document.js";
import { anchorAtBytes, reanchor, type Anchor } from "./anchor.js";

const encoder = new TextEncoder();

/** The changed region: bytes `[prefix, oldLength - suffix)` of the old file became `[prefix, newLength - suffix)`. */
export interface ByteChange {
  prefix: number;
  suffix: number;
  delta: number;
}

/** Longest common start and end of two byte strings (the end never overlaps the start). */
export function byteChange(before: Uint8Array, after: Uint8Array): ByteChange {
  const max = Math.min(before.length, after.length);
  let p = 0;
  while (p < max && before[p] === after[p]) p++;
  let s = 0;
  const room = max - p;
  while (s < room && before[before.length - 1 - s] === after[after.length - 1 - s]) s++;
  return { prefix: p, suffix: s, delta: after.length - before.length };
}

function byteLength(s: string): number {
  // Most context is ASCII: avoid an encode when every code unit is one byte.
  // eslint-disable-next-line no-control-regex
  return /^[\u0000-\u007f]*$/.test(s) ? s.length : encoder.encode(s).length;
}

export interface ReanchorManyInput {
  /** The file's bytes in the version the anchors were made against; absent: search every anchor. */
  before?: Uint8Array;
  /** The file's bytes now (the text `doc` was parsed from, as UTF-8). */
  after: Uint8Array;
  doc: MarkdownDoc;
  anchors: readonly Anchor[];
}

/**
 * Each anchor found again in `doc`, in input order. An anchor already `detached` is
 * searched for again (its text may have come back); one that cannot be found is returned
 * unchanged but `detached: true`, never moved onto other text.
 */
export function reanchorMany(input: ReanchorManyInput): Anchor[] {
  const { doc, anchors } = input;
  if (!input.before) return anchors.map((a) => reanchor(doc, a));
  const oldLength = input.before.length;
  const change = byteChange(input.before, input.after);
  const changeEndOld = oldLength - change.suffix;
  return anchors.map((a) => {
    const { detached, ...rest } = a;
    if (!detached) {
      const from = a.start - byteLength(a.prefix);
      const to = a.end + byteLength(a.suffix);
      let at: number | undefined;
      if (from >= 0 && to <= change.prefix) at = a.start;
      else if (from >= changeEndOld && to <= oldLength) at = a.start + change.delta;
      // The moved anchor must read the same quote in the same context: a context cut short
      // by the file's edge, or a cut inside a character, falls through to the search.
      if (at !== undefined && at + (a.end - a.start) <= input.after.length) {
        const moved = anchorAtBytes(doc, a.file, at, at + (a.end - a.start));
        if (moved.quote === a.quote && moved.prefix === a.prefix && moved.suffix === a.suffix) return moved;
      }
    }
    return reanchor(doc, rest);
  });
}
