/**
 * Requirement sentences read as claims, for the contradiction check: what a sentence says
 * with its quantities (a number with a unit, or a number after "at most", "under"…)
 * replaced by their dimension, so "p99 latency MUST be under 200 ms" and "The p99 latency
 * MUST be under 0.5 s" share one key and differ in value. Deterministic, no model.
 *
 * A number that is not a quantity (TLS 1.2, HTTP/2, version 3, REQ-001) stays part of
 * the key: two sentences about TLS 1.2 and TLS 1.3 are about different things.
 */
import type { MarkdownDoc } from "../markdown/document.js";

/** Units by the words that name them: dimension and factor to the dimension's base unit. */
const UNITS: Record<string, [dim: string, factor: number]> = {};
function unit(dim: string, factor: number, ...names: string[]): void {
  for (const n of names) UNITS[n] = [dim, factor];
}
unit("time", 1e-6, "ns", "nanosecond", "nanoseconds");
unit("time", 1e-3, "µs", "us", "microsecond", "microseconds");
unit("time", 1, "ms", "msec", "millisecond", "milliseconds");
unit("time", 1000, "s", "sec", "secs", "second", "seconds");
unit("time", 60_000, "min", "mins", "minute", "minutes");
unit("time", 3_600_000, "h", "hr", "hrs", "hour", "hours");
unit("time", 86_400_000, "d", "day", "days");
unit("time", 7 * 86_400_000, "w", "wk", "week", "weeks");
unit("time", 30 * 86_400_000, "month", "months");
unit("time", 365 * 86_400_000, "y", "yr", "year", "years");
unit("bytes", 1, "b", "byte", "bytes");
unit("bytes", 1e3, "kb", "kilobyte", "kilobytes");
unit("bytes", 1024, "kib");
unit("bytes", 1e6, "mb", "megabyte", "megabytes");
unit("bytes", 1024 ** 2, "mib");
unit("bytes", 1e9, "gb", "gigabyte", "gigabytes");
unit("bytes", 1024 ** 3, "gib");
unit("bytes", 1e12, "tb", "terabyte", "terabytes");
unit("bytes", 1024 ** 4, "tib");
unit("percent", 1, "%", "percent", "pct");
unit("ratio", 1, "x");
/** Count nouns: "3 retries" is a quantity of retries (singular and plural are one unit). */
const COUNT_NOUNS = [
  "request",
  "req",
  "rps",
  "qps",
  "retry",
  "retries",
  "attempt",
  "time",
  "times",
  "node",
  "replica",
  "pod",
  "instance",
  "user",
  "connection",
  "item",
  "record",
  "row",
  "entry",
  "entries",
  "event",
  "message",
  "character",
  "char",
  "file",
  "page",
  "result",
  "call",
  "job",
  "task",
  "worker",
  "thread",
  "partition",
  "shard",
  "member",
  "seat",
  "key",
  "token",
  "object",
  "field",
  "tag",
  "release",
  "version",
  "cluster",
  "region",
  "zone",
  "copy",
  "copies",
  "backup",
  "snapshot",
  "line",
  "word",
  "step",
  "hop",
  "digit",
];
for (const n of COUNT_NOUNS) {
  const singular = n.endsWith("ies") ? `${n.slice(0, -3)}y` : n;
  unit(`count:${singular}`, 1, n, `${n}s`);
}

/** Words before a bare number that make it a quantity ("at most 5", "under 200"). */
const COMPARATORS = new Set([
  "under",
  "below",
  "above",
  "over",
  "within",
  "than",
  "most",
  "least",
  "to",
  "exceed",
  "exceeds",
  "maximum",
  "minimum",
  "max",
  "min",
  "of",
  "every",
  "after",
  "for",
  "limit",
  "≤",
  "≥",
  "<",
  ">",
  "<=",
  ">=",
]);

/** Words left out of a key: they change no meaning between two phrasings of one requirement. */
const STOP = new Set(["a", "an", "the", "be", "is", "are", "been", "being", "it", "its"]);

const RFC_WORDS = /\b(?:MUST|SHALL|SHOULD|REQUIRED|RECOMMENDED|MAY)\b/;
const MODAL = /\b(?:must|shall|should|required|will|needs? to|has to|have to)\b/i;
/** A sentence that describes the past, an example or a comparison, not a requirement. */
const NOT_A_REQUIREMENT =
  /\b(?:e\.g\.|for example|for instance|example|currently|today|previously|used to|was|were|would|could|might|instead of|rather than|compared (?:to|with)|versus|vs\.?|benchmark\w*|measured|observed|historically|at the moment|as of)\b/i;

export interface Quantity {
  value: number;
  dim: string;
  /** Char range in the doc's text. */
  start: number;
  end: number;
}

export interface Claim {
  /** What the sentence says, quantities replaced by their dimension; modal words kept. */
  key: string;
  /** The key without "not": two claims with one `actionKey` and opposite `negated` oppose each other. */
  actionKey: string;
  /** Opens with an RFC 2119 keyword in capitals (MUST, SHALL…), with NOT: set only for those. */
  negated?: boolean;
  quantities: Quantity[];
  /** Char range of the sentence in the doc's text. */
  start: number;
  end: number;
  section: number;
}

interface Token {
  text: string;
  start: number;
  end: number;
}

/** Phrasings of one bound, as one token: "at most 25 MB" and "up to 50 MB" bound one limit. */
const BOUNDS: [RegExp, string][] = [
  [
    /\b(?:at most|up to|no more than|not more than|maximum of|maximum|max|no longer than|no larger than|not exceed|<=)(?= )/g,
    "≤",
  ],
  [/\b(?:at least|no less than|not less than|no fewer than|minimum of|minimum|min|>=)(?= )/g, "≥"],
  [/\b(?:under|below|less than|fewer than|shorter than|smaller than)(?= )/g, "<"],
  [/\b(?:over|above|more than|greater than|longer than|larger than|exceeds?)(?= )/g, ">"],
];

function sameBounds(key: string): string {
  let k = key;
  for (const [re, by] of BOUNDS) k = k.replace(re, by);
  return k;
}

/** Word tokens of a sentence, with code spans as one token each and link targets, HTML and emphasis left out. */
function tokens(text: string, from: number, to: number): Token[] {
  const out: Token[] = [];
  const re =
    /(`+)([\s\S]*?)\1|\]\([^)\s]*\)|<[^>\n]*>|\d[\d,]*(?:\.\d+)?|[\p{L}\p{N}][\p{L}\p{N}_'’./-]*[\p{L}\p{N}]|[\p{L}\p{N}]|%|[≤≥]|<=|>=/gu;
  re.lastIndex = from;
  for (let m = re.exec(text); m && m.index < to; m = re.exec(text)) {
    const s = m[0];
    if (s.startsWith("](") || (s.startsWith("<") && s.length > 2 && s !== "<=")) continue;
    if (m.index + s.length > to) break;
    out.push({ text: m[1] ? `\`${m[2]!.trim()}\`` : s, start: m.index, end: m.index + s.length });
  }
  return out;
}

const NUMBER = /^\d[\d,]*(?:\.\d+)?$/;
const TRACE_ID = /^[A-Z][A-Z0-9]{0,9}-[\p{L}\p{N}_]+$/u;

/** The claim a sentence makes, or undefined when it makes none this check can compare. */
function claimOf(text: string, start: number, end: number, section: number): Claim | undefined {
  const sentence = text.slice(start, end);
  if (NOT_A_REQUIREMENT.test(sentence)) return undefined;
  const toks = tokens(text, start, end);
  const parts: string[] = [];
  const quantities: Quantity[] = [];
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i]!;
    if (TRACE_ID.test(t.text) && /\d/.test(t.text)) continue;
    if (NUMBER.test(t.text)) {
      const value = Number(t.text.replace(/,/g, ""));
      const next = toks[i + 1];
      // A unit glued to the number ("200ms") is one token and not NUMBER; split it here.
      const unitOf = next && next.start - t.end <= 1 ? UNITS[next.text.toLowerCase()] : undefined;
      const prev = parts[parts.length - 1];
      const attachedToName = i > 0 && toks[i - 1]!.end === t.start; // p99, v2, HTTP/2
      if (unitOf && Number.isFinite(value)) {
        quantities.push({ value: value * unitOf[1], dim: unitOf[0], start: t.start, end: next!.end });
        parts.push(`#${unitOf[0]}`);
        i++;
        continue;
      }
      if (!attachedToName && prev !== undefined && COMPARATORS.has(prev) && Number.isFinite(value)) {
        quantities.push({ value, dim: "number", start: t.start, end: t.end });
        parts.push("#number");
        continue;
      }
      parts.push(t.text);
      continue;
    }
    const glued = /^(\d[\d,]*(?:\.\d+)?)([a-zA-Zµ%]+)$/.exec(t.text);
    const gluedUnit = glued ? UNITS[glued[2]!.toLowerCase()] : undefined;
    if (glued && gluedUnit) {
      quantities.push({
        value: Number(glued[1]!.replace(/,/g, "")) * gluedUnit[1],
        dim: gluedUnit[0],
        start: t.start,
        end: t.end,
      });
      parts.push(`#${gluedUnit[0]}`);
      continue;
    }
    const word = t.text.toLowerCase().replace(/[’']s$/, "");
    if (!STOP.has(word)) parts.push(word);
  }
  if (parts.length < 3) return undefined;
  const key = sameBounds(parts.join(" "));
  const claim: Claim = {
    key,
    actionKey: key
      .split(" ")
      .filter((p) => p !== "not")
      .join(" "),
    quantities,
    start,
    end,
    section,
  };
  const rfc = /\b(MUST|SHALL|SHOULD)( NOT)?\b/.exec(sentence);
  if (rfc) claim.negated = rfc[2] !== undefined;
  return claim;
}

/** Sentence ranges of a block's source: split after ".", "!" or "?" before a space, not after "e.g.", "i.e." or a number's point. */
function sentences(text: string, from: number, to: number): [number, number][] {
  const out: [number, number][] = [];
  let s = from;
  const re = /[.!?](?=\s)/g;
  re.lastIndex = from;
  for (let m = re.exec(text); m && m.index < to; m = re.exec(text)) {
    if (/\b(?:e\.g|i\.e|etc|vs|approx|incl|cf)$/i.test(text.slice(Math.max(s, m.index - 6), m.index)))
      continue;
    out.push([s, m.index + 1]);
    s = m.index + 1;
  }
  if (s < to) out.push([s, to]);
  return out
    .map(([a, b]): [number, number] => {
      const lead = /^(?:\s|[-*+>|](?=\s)|\d+[.)](?=\s))*/.exec(text.slice(a, b))![0].length;
      a += lead;
      while (b > a && /[\s|]/.test(text[b - 1]!)) b--;
      return [a, b];
    })
    .filter(([a, b]) => b > a);
}

/**
 * The claims of the requirement sentences of a doc: sentences with a modal word (must,
 * shall, should, will, required), or any sentence in `requirementScope`, in paragraphs,
 * list items and table rows of the sections `inScope` accepts. Quotes (`>`), code and HTML
 * are not read; nor are sentences about the past, examples or comparisons.
 */
export function claimsOf(
  doc: MarkdownDoc,
  inScope: (section: number) => boolean,
  requirementScope: ReadonlySet<number>,
): Claim[] {
  const text = doc.text;
  const out: Claim[] = [];
  const take = (s: number, e: number, section: number) => {
    for (const [a, b] of sentences(text, s, e)) {
      const sentence = text.slice(a, b);
      if (!/\d/.test(sentence) && !RFC_WORDS.test(sentence)) continue;
      if (!requirementScope.has(section) && !MODAL.test(sentence)) continue;
      const c = claimOf(text, a, b, section);
      if (c) out.push(c);
    }
  };
  for (const b of doc.blocks) {
    if (!inScope(b.section)) continue;
    if (b.kind === "paragraph") {
      const lineStart = text.lastIndexOf("\n", b.charStart - 1) + 1;
      if (/^\s*>/.test(text.slice(lineStart, b.charStart + 1))) continue;
      take(b.charStart, b.charEnd, b.section);
    } else if (b.kind === "table" && b.rowRanges) {
      for (const r of b.rowRanges.slice(1)) take(r.charStart, r.charEnd, b.section);
    }
  }
  return out;
}
