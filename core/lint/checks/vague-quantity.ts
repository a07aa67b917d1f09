/**
 * vague-quantity: a requirement whose quantity is a vague word instead of a number.
 * "Retries MUST stop after a reasonable number of attempts", "the cache should expire
 * entries in a timely manner", "responses must return as fast as possible": nobody can
 * build to them or test them. The finding sits on the vague words and asks for the number
 * and its unit. Only sentences that state a requirement (a modal verb such as must, shall,
 * should, will, needs to, or a limit word such as within, at most, timeout, retries) are
 * read, outside code, quotes and the sections that argue rather than require (motivation,
 * alternatives, prior art...).
 */
import { z } from "zod";
import { isProse, maskedSource, sectionScope } from "../helpers.js";
import { defineCheck } from "./define.js";
import { searchScope } from "./forbidden-pattern.js";
import type { Finding } from "../types.js";

/** Sections that argue, recall or look ahead rather than state what to build. */
export const NOT_REQUIREMENT_SECTIONS = [
  "Summary|Abstract|Introduction|Overview|TL;DR",
  "Motivation*|Background*|Problem*|Why*",
  "Alternatives*|Rejected*|Considered options|Options considered|Pros and cons*|Rationale*|Alternative*|Goals|Solution goals|Non-goals",
  "Prior art|Related work|Drawbacks|Downsides|Disadvantages|Costs|Risks*",
  "Future*|Unresolved*|Open questions|Open issues",
  "History|Revision history|Implementation history|Changelog|Acknowledgments|Acknowledgements|Credits|References",
  "Context*|Context and problem statement",
  "Appendix*|Use cases|Use-cases|Examples|Effect on*|Impact on*",
];

/** What a requirement measures: a limit, a time, a rate, a size. */
const UNIT_NOUNS =
  "latenc(?:y|ies)|throughput|timeouts?|time-?outs?|delays?|retries|retry (?:count|limit|interval)|limits?|memory(?: usage| footprint)?|footprint|capacity|bandwidth|downtime|response times?|durations?|intervals?|(?:error|request|refresh|sampling|polling) rates?|thresholds?|budgets?|ttls?|uptime|cpu usage|disk (?:usage|space)|buffer sizes?|batch sizes?|queue (?:depth|length|size)|wait(?:ing)? times?|startup times?|time to live|expiry|retention(?: period)?|timeframe|time frame|grace period|deprecation period|period of time";
/** Performance nouns "low", "high", "short" and "fast" are vague about. */
const PERF_NOUNS =
  "latenc(?:y|ies)|throughput|timeouts?|delays?|downtime|response times?|error rates?|startup times?|wait(?:ing)? times?";

/** Count nouns a requirement bounds: "a few retries", "several connections". */
const COUNT_NOUNS =
  "retries|attempts|times|requests|connections|items|entries|elements|characters|bytes|files|threads|workers|replicas|nodes|instances|calls|messages|events|records|rows|pages|iterations|keys|tokens|users|clients|servers|pods|jobs|tasks|lines|arguments|parameters|members|steps|objects|versions|releases";
const TIME_AND_SIZE =
  "milliseconds|seconds|minutes|hours|days|weeks|months|ms|megabytes|gigabytes|kilobytes|[KMG]i?B";

/** The vague quantities: each alternative is one way of not giving a number. */
export const VAGUE_QUANTITY = new RegExp(
  [
    // as fast as possible, as soon as practical
    "\\bas (?:fast|quickly|soon|early|rapidly|promptly|frequently|often) as (?:(?:is )?(?:reasonably )?(?:possible|practical|practicable|feasible|reasonable|necessary|needed))\\b",
    // in a timely manner, timely
    "\\bin (?:a |as )?timely (?:a )?(?:manner|fashion|way)\\b",
    // within a reasonable time, after a short delay, an appropriate amount of time
    "\\b(?:(?:within|in|after|under|up to|by|for|every|at) )?(?:a |an )?(?:very |reasonably |fairly |relatively |sufficiently )?(?:reasonable|acceptable|sufficient|appropriate|adequate|suitable|short|brief) (?:amount of )?(?:time|period|timeframe|time frame|delay|interval|duration|window|while)\\b",
    // a reasonable number of retries, a sufficient amount of memory, an appropriate share
    "\\b(?:(?:within|under|up to|at most|at least|no more than|by) )?(?:a |an )?(?:reasonable|acceptable|sufficient|appropriate|adequate|suitable) (?:(?:number|count|quantity|share|fraction|percentage|proportion|portion|margin|size)(?: of)?|amount of (?:time|memory|data|storage|disk|cpu|bandwidth|traffic|space|capacity|requests|retries))\\b",
    // a reasonable timeout, an acceptable latency
    `\\b(?:(?:very|reasonably|fairly|relatively|sufficiently|acceptably) )?(?:reasonabl[ey]|acceptabl[ey]|sufficient(?:ly)?|appropriate|adequate|suitable|tolerable|negligible) (?:${UNIT_NOUNS})\\b`,
    // low latency, high throughput, high availability
    `\\b(?:(?:very|reasonably|fairly|relatively|sufficiently|acceptably|extremely) )?(?:low|high|short|fast|quick|minimal) (?:${PERF_NOUNS})\\b|\\bhigh(?:ly)? availab(?:le|ility)\\b`,
    // a few seconds, several retries
    `\\b(?:a few|several|a couple of|a handful of) (?:${TIME_AND_SIZE}|${COUNT_NOUNS})\\b`,
    // sufficiently large, reasonably fast
    "\\b(?:sufficiently|reasonably|acceptably|adequately) (?:large|small|fast|quick|long|short|high|low|frequent|often)\\b",
  ].join("|"),
  // Not "u": the pattern is ASCII, and V8 runs a case-insensitive alternation this long
  // several times slower in Unicode mode (bench:lint: 1.6 s -> 1.3 s on 676 proposals).
  "gi",
);

/** A word every vague quantity holds, found cheaply before the long pattern is tried. */
const KEY_WORD =
  /\b(?:reasonabl[ey]|acceptabl[ey]|sufficient(?:ly)?|appropriate|adequate(?:ly)?|suitabl[ey]|tolerable|negligible|timely|few|several|couple|handful|possible|practical|practicable|feasible|short|brief|latenc(?:y|ies)|throughput|time-?outs?|delays?|downtime|response times?|error rates?|startup times?|wait(?:ing)? times?|availab(?:le|ility))\b/gi;

/** The vague words bound a quantity themselves: "within a reasonable time", "up to a few retries". */
const LIMIT_LEAD = /^(?:within|under|up to|at most|at least|no more than)\b/i;
/** A limit stated just before the vague words: "is limited to a few characters", "capped at a reasonable size". */
const LIMITED_TO = /\b(?:limited|capped|restricted|bounded|clamped)\s+(?:to|at|by)\s+$/i;
/** Words that aim at speed rather than state it: "as soon as possible", "in a timely manner". */
const ASPIRATION = /\bas possible$|\bas (?:practical|practicable|feasible)$|\btimely\b/i;
/** A wish or a guess, not a requirement: "we would like it as soon as possible". */
const HEDGE = /\b(?:would|could|might|want|wants|wanted|like|hope|try|tries|attempts? to|ideally|we|I)\b/;
/** "the appropriate size", "its sufficient number": a value the context fixes, not a vague one. */
const DEFINITE =
  /\b(?:the|its|their|this|that|each|every|any)\s+(?:(?:very|reasonably|fairly|relatively) )?$/i;

/** A requirement in RFC 2119 capitals that says "quickly" instead of how quickly. */
const MODAL_QUICKLY =
  /\b(?:MUST|SHALL|SHOULD|REQUIRED)(?: NOT)? (?:[\p{L}-]+ ){0,3}?(quickly|promptly|rapidly|fast|soon)\b/gu;

/** A requirement: a modal verb, an obligation, or a limit word. */
const REQUIREMENT =
  /(?<![\p{L}\p{N}])(?:must|shall|should|will|needs? to|(?:is|are) required to|required|requires?|requiring|has to|have to|within|at (?:most|least)|up to|no (?:more|less|fewer) than|limit(?:s|ed)?|timeouts?|retries|latency|throughput|deadline|SLOs?|SLAs?)(?![\p{L}\p{N}])/iu;

/** A requirement even where the doc argues: an obligation or a limit, not "will" or "should". */
const STRONG =
  /(?<![\p{L}\p{N}])(?:must|shall|(?:is|are) required to|MUST|SHALL|SHOULD|REQUIRED|requires?)(?![\p{L}\p{N}])/u;

/** Vague words only a requirement uses: "a reasonable number of", "in a timely manner". */
const UNMISTAKABLE = /\b(?:reasonable|acceptable|sufficient|appropriate|adequate|suitable|timely)\b/i;

/** The number given right after the vague words: "a reasonable time (at most 30 s)", "a short timeout, 5 seconds". */
const NUMBER_AFTER =
  /^\s*(?:(?!(?:in|of|for|at|on|per|by|than)\s)[\p{L}-]+\s+){0,2}?(?:\(|,|—|–|-|:)?\s*(?:e\.g\.,?|i\.e\.,?|say|of|at most|up to|under|about|roughly|~)?\s*(?:an? (?:second|minute|hour|day|week|month)\b|\d[\d,.]*\s?(?:%|ms|µs|us|ns|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|weeks?|months?|[KMGT]i?B?|bytes?|req\/s|rps|qps|retries|times|attempts|requests|x|percent)(?![\p{L}\p{N}]))/iu;

export const options = z.strictObject({
  sections: z
    .array(z.string().min(1))
    .default([])
    .describe('Only look in these sections (heading patterns); empty or "*": the whole body'),
  exclude_sections: z
    .array(z.string().min(1))
    .default([
      "History|Revision history|Implementation history|Changelog|Acknowledgments|Acknowledgements|Credits|Thanks|References",
    ])
    .describe("Sections left out: history, acknowledgements, references"),
  argue_sections: z
    .array(z.string().min(1))
    .default(NOT_REQUIREMENT_SECTIONS)
    .describe(
      "Sections that argue rather than require (motivation, alternatives, prior art): there a sentence counts only with a strong requirement word (MUST, shall, is required to, within, at most)",
    ),
  max_per_doc: z.number().int().min(1).default(5).describe("Stop reporting after this many"),
});

/** Ranges [start, end) of the vague quantities in requirement sentences of a text (code spans masked). */
export function vagueQuantities(source: string, strong = false): [number, number][] {
  const out: [number, number][] = [];
  const found: [number, number][] = [];
  // Every vague quantity holds one of these words: the long pattern runs only around them.
  KEY_WORD.lastIndex = 0;
  let covered = 0;
  for (let k = KEY_WORD.exec(source); k; k = KEY_WORD.exec(source)) {
    const from = Math.max(covered, k.index - 48);
    const to = Math.min(source.length, k.index + k[0].length + 64);
    if (from >= to) continue;
    const window = source.slice(from, to);
    VAGUE_QUANTITY.lastIndex = 0;
    for (let m = VAGUE_QUANTITY.exec(window); m; m = VAGUE_QUANTITY.exec(window)) {
      const s = from + m.index;
      if (!found.some(([a, b]) => s < b && s + m[0].length > a)) found.push([s, s + m[0].length]);
    }
    covered = k.index + k[0].length;
  }
  if (/\b(?:MUST|SHALL|SHOULD|REQUIRED)\b/.test(source)) {
    MODAL_QUICKLY.lastIndex = 0;
    for (let m = MODAL_QUICKLY.exec(source); m; m = MODAL_QUICKLY.exec(source)) {
      const n = m[1]!.length;
      const at = m.index + m[0].length - n;
      if (!found.some(([a, b]) => at < b && at + n > a)) found.push([at, at + n]);
    }
  }
  for (const [s, e] of found) {
    const [from, to] = sentenceBounds(source, s, e);
    const sentence = source.slice(from, to);
    if (/\?\s*$/.test(sentence)) continue; // a question asks, it does not require
    // The requirement is said by the other words: "low latency" alone requires nothing.
    const rest = source.slice(from, s) + " " + source.slice(e, to);
    // Where the doc argues, "will" and "should" count only with words no description uses.
    const words = source.slice(s, e);
    if (!/^an? /i.test(words) && DEFINITE.test(source.slice(Math.max(from, s - 24), s))) continue;
    if (!isRequirement(words, source.slice(Math.max(from, s - 24), s), rest, sentence, strong)) continue;
    if (NUMBER_AFTER.test(source.slice(e, e + 40))) continue;
    // A quotation inside the sentence: someone else's words.
    const before = source.slice(from, s);
    if ((before.match(/["“”]/g)?.length ?? 0) % 2 === 1) continue;
    // The vague words themselves sit in the motivation of a comparison ("unlike X, which is slow").
    out.push([s, e]);
  }
  return out;
}

/**
 * Is the sentence around vague words a requirement? Where the doc argues (`strong`),
 * only an obligation or a limit makes it one; elsewhere a modal verb or a limit word does,
 * and words only a requirement uses ("a reasonable number of", "within a reasonable time")
 * make it one by themselves.
 */
function isRequirement(
  words: string,
  before: string,
  rest: string,
  sentence: string,
  strong: boolean,
): boolean {
  if (LIMIT_LEAD.test(words) || LIMITED_TO.test(before)) return true;
  if (STRONG.test(rest)) return !strong || !HEDGE.test(sentence);
  if (ASPIRATION.test(words)) return !strong && !HEDGE.test(sentence);
  // "a reasonable number of", "an appropriate amount of time": only a requirement speaks so.
  if (UNMISTAKABLE.test(words)) return !strong;
  return !strong && REQUIREMENT.test(rest);
}

function sentenceBounds(source: string, s: number, e: number): [number, number] {
  let from = s;
  while (from > 0) {
    const c = source[from - 1]!;
    if (
      (c === "." || c === "!" || c === "?" || c === ";") &&
      /^[)\]"'”’*_]*\s/.test(source.slice(from, from + 4))
    )
      break;
    if (
      c === "\n" &&
      (source[from - 2] === "\n" || /^\s*(?:[-*+]|\d+[.)])\s/.test(source.slice(from, from + 6)))
    )
      break;
    from--;
  }
  let to = e;
  while (to < source.length) {
    const c = source[to]!;
    to++;
    if ((c === "." || c === "!" || c === "?" || c === ";") && /^(?:\s|$)/.test(source.slice(to, to + 1)))
      break;
  }
  return [from, to];
}

export const vagueQuantity = defineCheck({
  kind: "vague-quantity",
  description:
    "A requirement gives its quantity as a number with a unit, not as 'reasonable', 'timely', 'as fast as possible' or 'a few'",
  options,
  defaultMessage: "'{match}' {detail}",
  check(ctx) {
    const { doc, params } = ctx;
    const scope = searchScope(doc, params.sections, params.exclude_sections);
    const argue = sectionScope(doc, params.argue_sections);
    const findings: Finding[] = [];
    for (const b of doc.blocks) {
      if (!scope[b.section] || !isProse(b) || b.kind === "heading") continue;
      const source = maskedSource(doc, b);
      if (/^\s*>/.test(source)) continue; // a quote of someone else
      for (const [s, e] of vagueQuantities(source, argue.has(b.section))) {
        const match = doc.text.slice(b.charStart + s, b.charStart + e);
        findings.push(
          ctx.finding({
            charStart: b.charStart + s,
            charEnd: b.charStart + e,
            detail:
              "is not a number: give the quantity as a number with its unit (how many ms, seconds, retries, requests per second, MB), or a bound it must stay within",
            vars: { match },
          }),
        );
        if (findings.length >= params.max_per_doc) return findings;
      }
    }
    return findings;
  },
});
