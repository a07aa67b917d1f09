/**
 * forbidden-pattern: phrases or patterns that must not appear in the prose (TBD, TODO,
 * "etc.", weasel words, template placeholders).
 *
 * Undecided markers (TBD, TODO, "to be determined"...) are read in context: plain English
 * ("to be defined on a type"), a mention of the word, a sample value, a link target or a
 * badge, an item the doc explicitly defers (an UNRESOLVED block, an open-questions list,
 * "out of scope", a name handed to someone), a section the process only asks for at a
 * later stage, and a doc nobody builds from (withdrawn, rejected, superseded) are not
 * reported at the entry's level. A marker in a sentence that states a requirement, or a
 * section that holds nothing but the marker, is reported at the profile's own level, even
 * in adoption mode. With `placeholders`, every form a template leaves is found: `{{...}}`,
 * `[TODO: ...]`, `{Describe ...}` and `<insert description here>` (which renders as nothing).
 */
import { z } from "zod";
import {
  escapeRegExp,
  isProse,
  maskInline,
  maskedSource,
  matchesHeadingPattern,
  parseHeadingPattern,
} from "../helpers.js";
import type { Block, MarkdownDoc } from "../../markdown/document.js";
import { defineCheck } from "./define.js";
import { metadataValue } from "./required-frontmatter.js";
import type { CheckContext, Finding, Level } from "../types.js";

export const QUIET_STATUSES = [
  "withdrawn",
  "rejected",
  "superseded",
  "deprecated",
  "replaced",
  "declined",
  "abandoned",
  "obsolete",
  "retired",
];

export const options = z
  .strictObject({
    phrases: z.array(z.string().min(1)).default([]).describe("Literal phrases, matched as whole words"),
    patterns: z
      .array(z.string().min(1))
      .default([])
      .describe("Regular expressions (JavaScript syntax, no flags)"),
    placeholders: z
      .boolean()
      .default(false)
      .describe(
        "Also find template placeholders in every form: {{...}}, [TODO: ...], {Describe ...}, <insert description here> (raw HTML included)",
      ),
    case_sensitive: z.boolean().default(false),
    sections: z
      .array(z.string().min(1))
      .default([])
      .describe(
        'Only look in these sections (heading patterns) and their subsections; empty or "*": the whole body',
      ),
    exclude_sections: z
      .array(z.string().min(1))
      .default([])
      .describe(
        "Leave out these sections (heading patterns) and their subsections, e.g. where open questions are expected; the innermost section named decides",
      ),
    include_code: z.boolean().default(false).describe("Also look inside code blocks and code spans"),
    max_per_doc: z.number().int().min(1).default(50).describe("Stop reporting after this many matches"),
    context: z
      .boolean()
      .default(true)
      .describe(
        "Read undecided markers (TBD, TODO, 'to be determined') in context: plain English, mentions, examples, link targets, deferred items and later-stage sections are not reported at the entry's level; a marker in a requirement sentence always is",
      ),
    quiet_statuses: z
      .array(z.string().min(1))
      .default(QUIET_STATUSES)
      .describe(
        "Doc statuses nobody builds from: a doc whose status starts with one of them gets no finding",
      ),
    metadata_files: z
      .array(z.string().min(1))
      .default([])
      .describe("Sibling metadata files (relative to the doc) holding the status or stage, e.g. kep.yaml"),
    stages: z
      .strictObject({
        key: z.string().min(1).default("stage").describe("Metadata key of the doc's stage"),
        order: z.array(z.string().min(1)).min(2).describe("Stages, earliest first: alpha, beta, stable"),
        sections: z
          .record(z.string().min(1), z.string().min(1))
          .default({})
          .describe("Heading pattern -> the stage from which the process asks for that section"),
      })
      .optional()
      .describe(
        "Sections the process only asks for at a later stage: an undecided marker there, before that stage, is INFO. A section whose own comment says 'when targeting beta' counts too",
      ),
  })
  .refine(
    (o) => o.phrases.length + o.patterns.length > 0 || o.placeholders,
    "give at least one phrase or pattern, or placeholders: true",
  );

type Params = z.output<typeof options>;

const compiled = new WeakMap<object, RegExp | null>();

function compile(params: Params): RegExp | null {
  let re = compiled.get(params);
  if (re === undefined) {
    re = build(params);
    compiled.set(params, re);
  }
  return re;
}

function build(params: Params): RegExp | null {
  const parts = params.phrases.map((p) => {
    const body = escapeRegExp(p);
    // Whole words: no letter or digit right before or after (a phrase may end in punctuation, like "etc.").
    return `(?<![\\p{L}\\p{N}_])${body}${/[\p{L}\p{N}_]$/u.test(p) ? "(?![\\p{L}\\p{N}_])" : ""}`;
  });
  for (const p of params.patterns) parts.push(`(?:${p})`);
  if (parts.length === 0) return null;
  return new RegExp(parts.join("|"), params.case_sensitive ? "gu" : "giu");
}

/**
 * Which sections are searched. The innermost section named decides: a section named in
 * `exclude_sections` is left out with its subsections, unless a subsection is named in
 * `sections` again ("Design details" searched, its "Graduation criteria" not; or the
 * other way round). `sections` empty, or holding "*", starts from the whole doc.
 */
export function searchScope(
  doc: MarkdownDoc,
  sections: readonly string[],
  exclude: readonly string[],
): boolean[] {
  const include = sections.filter((p) => p.trim() !== "*").map(parseHeadingPattern);
  const leave = exclude.map(parseHeadingPattern);
  const all = sections.length === 0 || include.length < sections.length;
  const state: boolean[] = [];
  for (const s of doc.sections) {
    if (s.level === 0) state.push(all);
    else if (leave.some((p) => matchesHeadingPattern(s, p))) state.push(false);
    else if (include.some((p) => matchesHeadingPattern(s, p))) state.push(true);
    else state.push(state[s.parent] ?? all);
  }
  return state;
}

// ---------------------------------------------------------------------------------------
// Placeholders

/** Words a template uses to tell the author what to write. */
const INSTRUCTION =
  "(?:insert|describe|explain|add|fill|list|provide|enter|write|summari[sz]e|give|state|specify|include|replace|your|todo|tbd|tba|placeholder|optional|e\\.g\\.|example)";
/** Nouns of a slot: "{title of option 1}", "<feature name>". */
const SLOT_NOUN =
  "(?:title|name|description|summary|date|link|url|number|author|authors|owner|email|team|version|option \\d+|reason|rationale|goal|driver|consequence|problem|solution|decision|context|details?)";

const PLACEHOLDER_FORMS: RegExp[] = [
  // {{ anything }}
  /\{\{[^{}\n]{1,200}\}\}/g,
  // [TODO: ...], [Describe ...], [Insert ...]: not a link, not a task box, not a footnote.
  new RegExp(`(?<![!\\]\\\\])\\[(?=${INSTRUCTION}\\b|TBD|TODO)[^\\[\\]\\n]{2,200}\\](?![(\\[:])`, "giu"),
  // {Describe the context}, {title of option 1}: braces with an instruction or a slot noun, in prose.
  new RegExp(
    `(?<![\\p{L}\\p{N}_:$%#{\\\\])\\{(?=[^{}\\n]*\\s)(?=[^{}\\n]*\\p{L}{2})(?=\\s*${INSTRUCTION}\\b|[^{}\\n]*\\b${SLOT_NOUN}\\b|[^{}\\n]*(?:e\\.g\\.|…|\\.\\.\\.))[^{}\\n=;"\`]{3,200}\\}(?!\\})`,
    "giu",
  ),
  // <insert description here>: a "tag" HTML swallows, with words in it and no attributes.
  /(?<![\p{L}\p{N}_\\<])<([a-z][a-z-]*)(?:\s+[^<>="'\n/]{1,200})>/giu,
];

/** Tag names HTML knows: `<details open>` is not a placeholder. */
const HTML_TAGS = new Set(
  (
    "a abbr address area article aside audio b bdi bdo blockquote body br button canvas caption cite code col colgroup " +
    "data datalist dd del details dfn dialog div dl dt em embed fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 " +
    "head header hr html i iframe img input ins kbd label legend li link main map mark meta meter nav noscript object ol " +
    "optgroup option output p param picture pre progress q rp rt ruby s samp script section select small source span " +
    "strong style sub summary sup table tbody td template textarea tfoot th thead time title tr track u ul var video wbr " +
    "center font strike tt big svg math"
  ).split(" "),
);

const labelsCache = new WeakMap<MarkdownDoc, Set<string>>();

/** Labels of the doc's reference definitions: `[type parameters proposal]` is a link to one. */
function referenceLabels(doc: MarkdownDoc): Set<string> {
  let labels = labelsCache.get(doc);
  if (!labels) {
    labels = new Set();
    if (doc.text.includes("]:"))
      for (const m of doc.text.matchAll(/^[ ]{0,3}\[([^\]\n]+)\]:/gm)) labels.add(m[1]!.trim().toLowerCase());
    labelsCache.set(doc, labels);
  }
  return labels;
}

function placeholderRanges(doc: MarkdownDoc, source: string): [number, number][] {
  const out: [number, number][] = [];
  const has = [source.includes("{{"), source.includes("["), source.includes("{"), source.includes("<")];
  for (const [i, re] of PLACEHOLDER_FORMS.entries()) {
    if (!has[i]) continue;
    re.lastIndex = 0;
    for (let m = re.exec(source); m; m = re.exec(source)) {
      if (i === 1 && referenceLabels(doc).has(m[0].slice(1, -1).trim().toLowerCase())) continue;
      if (i === 2 && /::$|\w$/.test(source.slice(Math.max(0, m.index - 2), m.index))) continue;
      if (i === 3) {
        const tag = m[1]!.toLowerCase();
        const words = m[0].slice(1, -1).trim();
        if (HTML_TAGS.has(tag) && !new RegExp(`^${INSTRUCTION}\\b`, "iu").test(words)) continue;
        // An autolink or an address: <https://...>, <user@host>.
        if (/[:@]/.test(words)) continue;
      }
      const r: [number, number] = [m.index, m.index + m[0].length];
      if (!out.some(([s, e]) => r[0] < e && r[1] > s)) out.push(r);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Undecided markers in context

const MARKER = /^(?:TBD|TBC|TBA|TODO|FIXME|XXX|to be (?:determined|decided|defined|confirmed|written))$/i;
const TO_BE = /^to be /i;
/** A requirement: a modal verb, an obligation, or a limit or value it sets. */
const REQUIREMENT =
  /(?<![\p{L}\p{N}])(?:must|shall|should|will|needs? to|(?:is|are) required to|required|has to|have to|may not|cannot|within|at (?:most|least)|up to|no (?:more|less|fewer) than|limits?|timeouts?|retries|latency|throughput|values?|numbers?|sizes?|versions?|defaults?)(?![\p{L}\p{N}])/iu;
/** The sentence defers the point explicitly. */
const DEFERRED =
  /\b(?:out of scope|outside (?:the|of) (?:the )?scope|(?:a |in a )?(?:future|later|follow-?up|separate|subsequent) (?:proposal|kep|rfc|pr|design|doc|work|discussion)s?|left (?:for|to) (?:later|the future|a future)|deferred|not (?:yet )?in scope|open questions?|unresolved questions?|to be discussed)\b/i;
const OPEN_LEAD_IN =
  /\b(?:open|unresolved|outstanding|pending) (?:questions?|issues?|items?|points?)\b|\bquestions?:\s*$/i;

interface BlockInfo {
  /** Ranges of the block's source (block-relative) that are link targets, images, URLs or UNRESOLVED blocks. */
  skip: [number, number][];
}

/** Link destinations, images (badges), autolinks and bare URLs of a block's source. */
function skipRanges(source: string): [number, number][] {
  const out: [number, number][] = [];
  const add = (re: RegExp) => {
    re.lastIndex = 0;
    for (let m = re.exec(source); m; m = re.exec(source)) out.push([m.index, m.index + m[0].length]);
  };
  if (source.includes("](")) add(/!\[[^\]\n]*\]\([^)\n]*\)|\]\([^)\n]*\)/g);
  if (source.includes("://") || source.includes("<"))
    add(/<[a-z][a-z0-9+.-]*:[^>\s]*>|\bhttps?:\/\/[^\s)>\]]+/gi);
  if (source.includes("]:")) add(/^[ \t]*\[[^\]\n]+\]:[ \t]*\S+/gm);
  return out;
}

const inside = (ranges: readonly [number, number][], s: number, e: number) =>
  ranges.some(([a, b]) => s >= a && e <= b);

/** The sentence around a match, in the block's source. */
function sentenceAround(source: string, s: number, e: number): string {
  let from = s;
  while (from > 0) {
    const c = source[from - 1]!;
    if ((c === "." || c === "!" || c === "?") && /^[)\]"'”’*_]*\s/.test(source.slice(from, from + 4))) break;
    if (c === "\n" && source[from - 2] === "\n") break;
    from--;
  }
  let to = e;
  while (to < source.length) {
    const c = source[to]!;
    if ((c === "." || c === "!" || c === "?") && /\s|$/.test(source[to + 1] ?? "")) {
      to++;
      break;
    }
    to++;
  }
  return source.slice(from, to);
}

/** "to be defined on a type", "will need to be defined": plain English, not a marker. */
function plainEnglish(source: string, s: number, e: number): boolean {
  const before = source.slice(Math.max(0, s - 24), s);
  if (
    /\b(?:need|needs|needed|has|have|had|used|ought|going|want|wants|allow(?:s|ed)?\s+\S+|about)\s+$/i.test(
      before,
    )
  )
    return true;
  const after = source.slice(e, e + 24);
  // The phrase ends its clause: "is to be determined.", "(to be decided)", "TBD:".
  return !/^\s*(?:[.,;:!?)\]|—–-]|\*|_|$)/.test(after);
}

/** The word itself is spoken of: "TODO comments", `"TBD"`, "a FIXME". */
function mention(source: string, s: number, e: number): boolean {
  const b = source[s - 1] ?? "";
  const a = source[e] ?? "";
  if (/["'“‘«]/.test(b) && /["'”’»]/.test(a)) return true;
  return /^s?\s+(?:comments?|markers?|notes?|items?|entries|lists?|tags?|annotations?|directives?)\b/i.test(
    source.slice(e, e + 24),
  );
}

/** "TBD (@alice)", "TODO(jbd):", "TBD by @bob", "TODO for SIG Node": handed to someone. */
function owned(source: string, e: number): boolean {
  return /^(?:\s*\(\s*@?[\p{L}\p{N}_.-]+\s*\)|\s*[-–—:]?\s*@[\p{L}\p{N}_-]|\s+(?:by|for|owner:?|assigned to)\s+@?[\p{L}\p{N}])/iu.test(
    source.slice(e, e + 40),
  );
}

/** "(exact name is TBD)", "name TBD": only a name is open, not the design. */
function naming(sentence: string): boolean {
  return /\b(?:name|names|naming|spelling|wording|title)\b[^.;()]{0,20}\b(?:is|are)?\s*(?:still\s+)?(?:TBD|TBC|to be (?:determined|decided))|\b(?:TBD|to be decided)\b[^.;()]{0,6}\bname/i.test(
    sentence,
  );
}

interface DocContext {
  quiet?: boolean;
  stage?: number;
  deferredLists?: Set<number>;
  unresolved?: [number, number][];
  laterStage?: (number | undefined)[];
}

/** Starts of list items (any depth) under a lead-in that opens a list of open questions. */
function deferredListItems(doc: MarkdownDoc): Set<number> {
  const out = new Set<number>();
  let open = false;
  for (const b of doc.blocks) {
    if (b.listDepth === 0) {
      if (b.kind === "paragraph") open = OPEN_LEAD_IN.test(b.text.replace(/[*_]/g, "").trim());
      else if (b.kind === "heading") open = false;
      continue;
    }
    if (open) out.add(b.charStart);
  }
  return out;
}

/** The stage each section is asked for from (index into `order`), or undefined. */
function laterStages(doc: MarkdownDoc, stages: NonNullable<Params["stages"]>): (number | undefined)[] {
  const order = stages.order.map((s) => s.toLowerCase());
  const named = Object.entries(stages.sections).map(
    ([p, st]) => [parseHeadingPattern(p), order.indexOf(st.toLowerCase())] as const,
  );
  const alts = order.map(escapeRegExp).join("|");
  const said = new RegExp(
    `\\b(?:when targeting|targeting|required (?:for|at|by)|completed (?:for|when targeting|before|by)|for)\\s+(?:the\\s+)?(${alts})\\b`,
    "i",
  );
  const out: (number | undefined)[] = [];
  for (const s of doc.sections) {
    if (s.level === 0) {
      out.push(undefined);
      continue;
    }
    let at: number | undefined;
    for (const [p, i] of named) if (i >= 0 && matchesHeadingPattern(s, p)) at = i;
    if (at === undefined) {
      // The process says so in the section's own comment: "<!-- ... when targeting beta ... -->".
      const own = doc.text.slice(s.contentCharStart, s.ownCharEnd);
      const comment = /<!--([\s\S]*?)-->/.exec(own);
      const m = comment ? said.exec(comment[1]!) : null;
      if (m && /\b(?:must|required|should|complete)/i.test(comment![1]!))
        at = order.indexOf(m[1]!.toLowerCase());
    }
    out.push(at ?? out[s.parent]);
  }
  return out;
}

function unresolvedBlocks(text: string): [number, number][] {
  const out: [number, number][] = [];
  if (!text.includes("UNRESOLVED")) return out;
  const re = /<<\[UNRESOLVED[^\]]*\]>>[\s\S]*?(?:<<\[\/UNRESOLVED\]>>|$)/g;
  for (let m = re.exec(text); m; m = re.exec(text)) out.push([m.index, m.index + m[0].length]);
  return out;
}

/** The section holds nothing but the marker: "TODO: describe", "TODO for SIG Node". */
function onlyMarker(doc: MarkdownDoc, b: Block, blockSource: string, s: number): boolean {
  const section = doc.sections[b.section]!;
  if (section.level === 0 || b.kind === "heading") return false;
  if (!/^\s*(?:[-*+]\s+|\d+[.)]\s+|>\s*)?[*_(]*$/.test(blockSource.slice(0, s))) return false;
  if (blockSource.split(/\s+/).length > 12) return false;
  for (const o of doc.blocks) {
    if (o === b || o.section !== b.section || o.charStart < section.contentCharStart) continue;
    if (o.kind === "list_item" || (o.kind === "html" && /^\s*<!--[\s\S]*-->\s*$/.test(o.text))) continue;
    if (o.charStart >= b.charStart && o.charEnd <= b.charEnd) continue;
    if (o.kind !== "heading") return false;
  }
  return true;
}

const rank = (l: Level) => (l === "MUST" ? 2 : l === "SHOULD" ? 1 : 0);
const lower = (a: Level, b: Level): Level => (rank(a) <= rank(b) ? a : b);

/**
 * How an undecided marker at [s, e) of a block is reported: skipped (null), at a given
 * level, or at the entry's (undefined).
 */
function judgeMarker(
  ctx: CheckContext<Params>,
  dc: DocContext,
  b: Block,
  source: string,
  s: number,
  e: number,
  placeholderSpans: readonly [number, number][],
): Level | null | undefined {
  const { doc, params, entry } = ctx;
  const match = source.slice(s, e);
  const abs = b.charStart + s;
  if (inside(placeholderSpans, s, e)) return null;
  dc.unresolved ??= unresolvedBlocks(doc.text);
  if (dc.unresolved.some(([a, z]) => abs >= a && abs < z)) return null;
  if (TO_BE.test(match) && plainEnglish(source, s, e)) return null;
  if (mention(source, s, e)) return null;
  if (/^\s*>/.test(source)) return null; // a quote of someone else
  const path = doc.sections[b.section]!.heading_path.join(" ");
  const sentence = sentenceAround(source, s, e);
  if (/\bexamples?\b|\bsamples?\b/i.test(path) && b.kind === "table") return null;
  // A sample value: "e.g. TBD", "(for example, TODO)".
  if (
    /\b(?:e\.g\.|for example|for instance|such as)[\s,:]+\S{0,12}$/i.test(
      source.slice(Math.max(0, s - 40), s),
    )
  )
    return null;
  if (DEFERRED.test(sentence)) return null;
  dc.deferredLists ??= deferredListItems(doc);
  if (b.listDepth > 0) {
    // The item's own list item block: the nearest list item at or before it.
    for (const o of doc.blocks) {
      if (o.charStart > b.charStart) break;
      if (o.kind === "list_item" && o.charEnd >= b.charEnd && dc.deferredLists.has(o.charStart)) return null;
    }
  }
  if (/^\s*(?:[-*+]\s+)?[*_]*(?:open question|unresolved|question)s?[*_]*\s*:/i.test(source)) return null;
  const requirement = REQUIREMENT.test(sentence.replace(match, " "));
  // A doc nobody builds from (withdrawn, rejected): only a requirement left open says much.
  if (docIsQuiet(ctx, dc)) return requirement ? entry.level : "INFO";
  if (params.stages) {
    if (dc.stage === undefined) {
      const v = metadataValue(ctx, [params.stages.key], params.metadata_files)?.toLowerCase();
      const order = params.stages.order.map((o) => o.toLowerCase());
      const i = v === undefined ? -1 : order.findIndex((o) => v === o || v.startsWith(`${o} `));
      dc.stage = i;
    }
    dc.laterStage ??= laterStages(doc, params.stages);
    const from = dc.laterStage[b.section];
    if (dc.stage >= 0 && from !== undefined && dc.stage < from) return "INFO";
  }
  if (onlyMarker(doc, b, source, s)) return entry.level;
  let level: Level | undefined;
  if (naming(sentence) || owned(source, e)) level = lower(entry.level, "SHOULD");
  if (level === undefined && requirement) return entry.level;
  return level;
}

function docIsQuiet(ctx: CheckContext<Params>, dc: DocContext): boolean {
  if (dc.quiet === undefined) {
    const statuses = ctx.params.quiet_statuses.map((q) => q.toLowerCase());
    const v =
      statuses.length === 0 ? undefined : metadataValue(ctx, ["status", "state"], ctx.params.metadata_files);
    const value = v?.toLowerCase().replace(/^[^\p{L}]+/u, "");
    dc.quiet = value !== undefined && statuses.some((q) => value === q || value.startsWith(q));
  }
  return dc.quiet;
}

/** Does the profile find placeholders with another entry (so markers inside them are reported once)? */
function profileFindsPlaceholders(ctx: CheckContext<Params>): boolean {
  return ctx.profile.checks.some(
    (c) =>
      c.kind === "forbidden-pattern" &&
      c !== ctx.entry &&
      (c.params as { placeholders?: unknown } | undefined)?.placeholders === true,
  );
}

export const forbiddenPattern = defineCheck({
  kind: "forbidden-pattern",
  description:
    "Phrases or patterns that must not appear in the prose: TBD, TODO, etc., weasel words, template placeholders",
  options,
  defaultMessage: "'{match}' {detail}",
  check(ctx) {
    const { doc, params } = ctx;
    let re: RegExp | null;
    try {
      re = compile(params);
    } catch (err) {
      const [s, e] = [doc.bodyCharStart, doc.bodyCharStart];
      return [
        ctx.finding({
          charStart: s,
          charEnd: e,
          detail: `cannot be checked: invalid pattern (${err instanceof Error ? err.message : String(err)})`,
          vars: { match: "pattern" },
        }),
      ];
    }
    const scope = searchScope(doc, params.sections, params.exclude_sections);
    const findings: Finding[] = [];
    const dc: DocContext = {};
    let otherPlaceholders: boolean | undefined;
    for (const b of doc.blocks) {
      if (!scope[b.section]) continue;
      const html = b.kind === "html" && params.placeholders;
      if (!(isProse(b) || html || (params.include_code && b.kind === "code"))) continue;
      const source = params.include_code
        ? doc.text.slice(b.charStart, b.charEnd)
        : html
          ? maskInline(doc.text.slice(b.charStart, b.charEnd))
          : maskedSource(doc, b);
      const hits: { s: number; e: number; level?: Level }[] = [];
      let skip: BlockInfo["skip"] | undefined;
      const ownPlaceholders = params.placeholders ? placeholderRanges(doc, source) : [];
      let spans: [number, number][] | undefined;
      if (re && !html) {
        re.lastIndex = 0;
        for (let m = re.exec(source); m; m = re.exec(source)) {
          if (m[0] === "") {
            re.lastIndex++;
            continue;
          }
          const s = m.index;
          const e = s + m[0].length;
          if (params.context) {
            skip ??= skipRanges(source);
            if (inside(skip, s, e)) continue;
            if (MARKER.test(m[0])) {
              otherPlaceholders ??= profileFindsPlaceholders(ctx);
              spans ??= otherPlaceholders ? placeholderRanges(doc, source) : [];
              const level = judgeMarker(ctx, dc, b, source, s, e, spans);
              if (level === null) continue;
              hits.push(level === undefined ? { s, e } : { s, e, level });
              continue;
            }
          }
          hits.push({ s, e });
        }
      }
      for (const [s, e] of ownPlaceholders) {
        skip ??= skipRanges(source);
        if (inside(skip, s, e)) continue;
        if (!hits.some((h) => s < h.e && e > h.s)) hits.push({ s, e });
      }
      for (const h of hits.sort((x, y) => x.s - y.s)) {
        findings.push(
          ctx.finding({
            charStart: b.charStart + h.s,
            charEnd: b.charStart + h.e,
            detail: "is not allowed here",
            vars: { match: doc.text.slice(b.charStart + h.s, b.charStart + h.e) },
            ...(h.level ? { level: h.level } : {}),
          }),
        );
        if (findings.length >= params.max_per_doc) return findings;
      }
    }
    return findings;
  },
});
