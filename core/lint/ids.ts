/**
 * Stable, UUID-shaped ids from text parts. Pure JavaScript (no node:crypto) so the core
 * runs anywhere. Four independently seeded 32-bit lanes give 128 bits, formatted as a
 * version 8 (custom) UUID.
 */

function lane(input: string, seed: number, multiplier: number): number {
  let h = seed >>> 0;
  for (let i = 0; i < input.length; i++) {
    h = Math.imul(h ^ input.charCodeAt(i), multiplier);
    h ^= h >>> 15;
  }
  // murmur3 finalizer
  h ^= input.length;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

const hex = (n: number) => n.toString(16).padStart(8, "0");

/** A deterministic UUID (version 8) of the parts; the separator keeps ["ab","c"] apart from ["a","bc"]. */
export function stableId(parts: readonly string[]): string {
  const input = parts.join("\u0000");
  const a = lane(input, 0x9747b28c, 0x01000193);
  const b = lane(input, 0x2f6b1d03, 0x5bd1e995);
  const c = ((lane(input, 0x68e31da4, 0x27d4eb2f) & 0x3fffffff) | 0x80000000) >>> 0; // variant 10xx
  const d = lane(input, 0xb5297a4d, 0x165667b1);
  const h1 = hex(a);
  const h2 = hex(b);
  return `${h1}-${h2.slice(0, 4)}-8${h2.slice(5, 8)}-${hex(c).slice(0, 4)}-${hex(c).slice(4)}${hex(d)}`;
}

/** Where a finding is, as much as its id needs (an Anchor has more). */
export interface IdAnchor {
  file: string;
  heading_path: readonly string[];
  quote: string;
  prefix: string;
  suffix: string;
}

const PARAGRAPH_BREAK = /\r?\n[ \t]*\r?\n/;

/**
 * What a finding's id is made of (lint and AI findings alike, never the message): file,
 * check, heading path, quote, and the quote's context within its paragraph. The context
 * tells two equal quotes of one section apart, so a second one written earlier does not
 * take the first one's id; cut at blank lines, an edit in another paragraph (or heading)
 * does not change it.
 */
export function findingKey(check: string, anchor: IdAnchor): string[] {
  const before = anchor.prefix.split(PARAGRAPH_BREAK).at(-1) ?? "";
  const after = anchor.suffix.split(PARAGRAPH_BREAK)[0] ?? "";
  return [anchor.file, check, anchor.heading_path.join("\u001f"), anchor.quote, before, after];
}

/** Stable ids from keys, equal keys told apart by their order (0 for the first). */
export class IdCounter {
  private readonly seen = new Map<string, number>();
  make(parts: readonly string[]): string {
    const k = parts.join("\u0000");
    const n = this.seen.get(k) ?? 0;
    this.seen.set(k, n + 1);
    return stableId([...parts, String(n)]);
  }
}

/** The id of a finding as made before ids took the quote's context (docs/waivers.md, legacy entries). */
export function idBeforeContext(
  file: string,
  check: string,
  headingPath: readonly string[],
  quote: string,
  n: number,
) {
  return stableId([file, check, headingPath.join("\u001f"), quote, String(n)]);
}
