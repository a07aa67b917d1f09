/**
 * The known defects of the lint eval (docs/eval.md), applied one at a time to a doc:
 * each mutation is the doc's text with one defect and the range where it sits.
 *
 * DEFECTS is the one table of what each kind plants and at which level a finding must
 * catch it: a fixed level (MUST, or "any" level) where issue 29 names one, else the
 * level the profile gives the check that answers for it ("profile").
 */
import { EMAIL, NO_SCHEME } from "../core/lint/checks/links-resolve.js";
import { searchScope } from "../core/lint/checks/forbidden-pattern.js";
import { NOT_REQUIREMENTS } from "../core/lint/checks/contradiction.js";
import { prefixAlternatives } from "../core/lint/checks/trace-id.js";
import { claimsOf } from "../core/lint/claims.js";
import {
  docAnchorRange,
  firstLineRange,
  maskInline,
  parseHeadingPattern,
  sectionContent,
  sectionScope,
  sectionsMatching,
  statementsIn,
  stripLead,
  titleMatches,
} from "../core/lint/helpers.js";
import { lowerLevel, type Level } from "../core/lint/types.js";
import { parseMarkdown, type MarkdownDoc, type Section } from "../core/markdown/document.js";
import type { Profile, ProfileCheck } from "../core/profile/schema.js";

/** The level a finding must reach to catch a defect: a level, "any" level, or the one the profile gives its check. */
export type JudgedLevel = Level | "any" | "profile";

/** Every defect kind, what it plants, the level it is judged at and the recall it must reach. */
export const DEFECTS = [
  {
    kind: "delete-design",
    level: "MUST",
    target: 0.95,
    what: "every section answering to the profile's design check (and every `**Decision:**`-style paragraph naming it) is deleted",
  },
  {
    kind: "placeholder-mustache",
    level: "MUST",
    target: 0.95,
    what: "`{{ describe ... }}` put into a design section, as a paragraph of its own or at the end of one",
  },
  {
    kind: "placeholder-todo",
    level: "MUST",
    target: 0.95,
    what: "`[TODO: describe ...]` put into a design section, as a paragraph of its own or at the end of one",
  },
  {
    kind: "placeholder-describe",
    level: "MUST",
    target: 0.95,
    what: "`{Describe ...}` put into a design section, as a paragraph of its own or at the end of one",
  },
  {
    kind: "placeholder-insert",
    level: "MUST",
    target: 0.95,
    what: "`<insert description here>` (an HTML tag to a markdown parser: it renders as nothing) put into a design section",
  },
  {
    kind: "break-link",
    level: "MUST",
    target: 0.95,
    what: "a relative link (else a `#fragment`) that resolves is renamed to `...-renamed`",
  },
  {
    kind: "tbd-in-design",
    level: "MUST",
    target: 0.9,
    what: "`TBD`, `TODO` or `to be decided` put into a requirement sentence of the design (its number replaced by `TBD`, else a parenthetical added)",
  },
  {
    kind: "tbd-in-requirement",
    level: "any",
    target: 0.95,
    what: "the same, in a requirement sentence anywhere in the doc outside deferred blocks",
  },
  {
    kind: "vague-quantity",
    level: "any",
    target: 0.95,
    what: "the number and unit of a constraint sentence replaced by a vague quantity (`within a reasonable time`, `a reasonable number of retries`, ...)",
  },
  {
    kind: "empty-section",
    level: "any",
    target: 0.95,
    what: "the content of a leaf section another `required-section` check asks for is deleted",
  },
  {
    kind: "strip-numbers",
    level: "profile",
    target: 0.95,
    what: "the numbers and units of the first constraint the `measurable` check reads are taken out",
  },
  {
    kind: "duplicate-id",
    level: "profile",
    target: 0.95,
    what: "the second requirement gets the trace ID of the first",
  },
  {
    kind: "template-placeholder",
    level: "profile",
    target: 0.95,
    what: "the first placeholder of the profile's own template is left in the design section",
  },
  {
    kind: "contradict",
    level: "profile",
    target: 0.95,
    what: "a requirement sentence with a quantity is said again at the end of its section with another value",
  },
] as const satisfies readonly { kind: string; level: JudgedLevel; target: number; what: string }[];

export type DefectKind = (typeof DEFECTS)[number]["kind"];
export const DEFECT_KINDS: readonly DefectKind[] = DEFECTS.map((d) => d.kind);
export const defectSpec = (kind: DefectKind) => DEFECTS.find((d) => d.kind === kind)!;

export interface Mutation {
  kind: DefectKind;
  /** The doc's text with the defect. */
  text: string;
  /** Char range of the defect in `text`. */
  site: [number, number];
  /** The level a finding at the defect must reach ("any": any level). */
  expected: Level | "any";
  /** The check expected to catch it, for reports ("any" when any check may). */
  check: string;
  /** New findings of these checks catch the defect wherever they are anchored (a missing section). */
  checks?: string[];
  /** What was changed, in words. */
  note: string;
}

/** The level an entry reports at for this doc. */
function effective(entry: ProfileCheck, adopting: boolean): Level {
  return adopting && entry.relaxed ? lowerLevel(entry.level) : entry.level;
}

/** The level a kind is judged at: its fixed one, or the profile's for `entry`. */
function judgedAt(kind: DefectKind, entry: ProfileCheck | undefined, adopting: boolean): Level | "any" {
  const l: JudgedLevel = defectSpec(kind).level;
  if (l !== "profile") return l;
  return entry ? effective(entry, adopting) : "any";
}

function paramsOf<T>(entry: ProfileCheck): T {
  return (entry.params ?? {}) as T;
}

/** FNV-1a: a stable pick per doc and kind, so a run is repeatable and picks spread over a doc. */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function pick<T>(list: readonly T[], file: string, salt: string): T | undefined {
  return list.length === 0 ? undefined : list[hash(`${file}\u0000${salt}`) % list.length];
}

/**
 * The profile's design check: the `required-section` entry with slug `design`, else its
 * first MUST `required-section`, else its first `required-section`.
 */
export function designEntry(profile: Profile): ProfileCheck | undefined {
  const rs = profile.checks.filter((c) => c.kind === "required-section");
  return rs.find((c) => c.slug === "design") ?? rs.find((c) => c.level === "MUST") ?? rs[0];
}

/** Sections a process keeps for what is deliberately left open: a TBD there is where it belongs. */
export const DEFERRED_SECTIONS = [
  "Unresolved questions|Open questions|Open issues|Unresolved issues|Outstanding questions|Questions|Future possibilities|Future work|Future directions|Deferred*|Out of scope",
];
/** Subsections processes put under a design heading that are not the design: graduation, tests, rejected options. */
export const NOT_DESIGN = [
  "Graduation*|Upgrade*|Downgrade*|Version skew*|Test plan*|Testing*|Implementation history|Prior art|Drawbacks",
  "Alternatives*|Alternative designs|Rejected*|Considered options|Considered alternatives|Pros and cons*",
];

/** Char ranges of KEP-style `<<[UNRESOLVED ...]>>` ... `<<[/UNRESOLVED]>>` blocks. */
function unresolvedBlocks(text: string): [number, number][] {
  const out: [number, number][] = [];
  const re = /<<\[\s*UNRESOLVED\b[\s\S]*?(?:<<\[\s*\/\s*UNRESOLVED\s*\]>>|$)/gi;
  for (let m = re.exec(text); m; m = re.exec(text)) out.push([m.index, m.index + m[0].length]);
  return out;
}

/** Per section: is it in the scope (the include patterns, "*" for all) and outside the excluded ones? */
function scopeOf(
  doc: MarkdownDoc,
  include: readonly string[],
  exclude: readonly string[],
): (s: number) => boolean {
  const state = searchScope(doc, include, exclude);
  return (s) => state[s] === true && doc.sections[s]!.level > 0;
}

/** The design sections of a doc under the profile (their subsections included, deferred and non-design ones left out). */
function designScope(doc: MarkdownDoc, pattern: string): (s: number) => boolean {
  return scopeOf(doc, [pattern], [...DEFERRED_SECTIONS, ...NOT_DESIGN]);
}

/** A requirement: a modal verb, or a word that sets a limit on a number. */
const MODAL =
  /\b(?:must|shall|should|will|won't|cannot|can't|may not|required|requires?|needs? to|has to|have to|is expected to)\b/i;
const LIMIT =
  /\b(?:at most|at least|up to|no more than|no less than|no fewer than|fewer than|less than|more than|within|under|maximum(?: of)?|minimum(?: of)?|limit(?:ed)? (?:of|to)|timeout of|capped at)\s+\d/i;
/** Sentences that give an example or describe what is, not what must be. */
const NOT_REQUIREMENT =
  /\b(?:e\.g\.|for example|for instance|such as|currently|today|at present|previously|historically|used to|was|were)\b/i;

export interface Sentence {
  /** Char range in the doc's text. */
  start: number;
  end: number;
  section: number;
}

/**
 * Requirement sentences of the paragraphs (list items' included) of the sections in scope:
 * a modal verb or a limit on a number, at least five words, no example or description of
 * what is ("currently", "was"). Quotes, code, HTML, headings, tables
 * and UNRESOLVED blocks are not read; code spans and comments are masked.
 */
export function requirementSentences(doc: MarkdownDoc, inScope: (s: number) => boolean): Sentence[] {
  const text = doc.text;
  const deferred = unresolvedBlocks(text);
  const out: Sentence[] = [];
  for (const b of doc.blocks) {
    if (b.kind !== "paragraph" || !inScope(b.section)) continue;
    if (deferred.some(([s, e]) => b.charStart < e && b.charEnd > s)) continue;
    const lineStart = text.lastIndexOf("\n", b.charStart - 1) + 1;
    if (/^\s*(?:[-*+]\s+|\d+[.)]\s+)?>/.test(text.slice(lineStart, b.charStart + 1))) continue;
    const masked = maskInline(text.slice(b.charStart, b.charEnd));
    const re = /[.!?](?=\s|$)/g;
    let s = 0;
    const ranges: [number, number][] = [];
    for (let m = re.exec(masked); m; m = re.exec(masked)) {
      if (/\b(?:e\.g|i\.e|etc|vs|cf|approx)$/i.test(masked.slice(Math.max(s, m.index - 6), m.index)))
        continue;
      ranges.push([s, m.index + 1]);
      s = m.index + 1;
    }
    if (s < masked.length) ranges.push([s, masked.length]);
    for (let [a, e] of ranges) {
      while (a < e && /\s/.test(masked[a]!)) a++;
      while (e > a && /\s/.test(masked[e - 1]!)) e--;
      const sentence = masked.slice(a, e);
      if (!(MODAL.test(sentence) || LIMIT.test(sentence)) || NOT_REQUIREMENT.test(sentence)) continue;
      if (sentence.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length < 5) continue;
      if (/<[a-z/!]/i.test(sentence)) continue;
      out.push({ start: b.charStart + a, end: b.charStart + e, section: b.section });
    }
  }
  return out;
}

const TIME_UNITS =
  "ms|milliseconds?|seconds?|secs?|s|minutes?|mins?|hours?|hrs?|h|days?|weeks?|months?|years?";
const SIZE_UNITS = "bytes?|[KMGT]i?B|kilobytes?|megabytes?|gigabytes?|terabytes?";
const COUNT_NOUNS =
  "retries|attempts|times|requests|connections|items|entries|elements|characters|files|threads|workers|replicas|nodes|instances|calls|messages|events|records|rows|pages|iterations|arguments|parameters|members|cases|steps|objects|keys|tokens|users|clients|servers|pods|jobs|tasks|lines|commits|versions|releases";
/** A number with a unit, and the comparator before it. Groups: lead, number, time, size, percent, count noun. */
const QUANTITY = new RegExp(
  `((?:\\b(?:at most|at least|up to|no more than|no less than|no fewer than|less than|more than|fewer than|a maximum of|a minimum of|every|within|in|under|after|for)\\s+)?)` +
    `(?<![\\p{L}\\p{N}_./#-])(\\d+(?:[.,]\\d+)*)(?:(?:\\s?|-)(${TIME_UNITS})|\\s?(${SIZE_UNITS})|\\s?(%|percent)|\\s(${COUNT_NOUNS}))(?![\\p{L}\\p{N}])`,
  "giu",
);

/**
 * A constraint, for vague-quantity: the sentence binds the number with a modal stronger
 * than "will" ("MUST keep 30 days of logs"), or states what will be with a limit the vague
 * words keep ("within 30 seconds" -> "within a reasonable time"); never an estimate
 * ("about 5%"), a measurement, a guess or a narrative in the first person.
 */
const STRONG =
  /\b(?:must|shall|should|required|requires?|needs? to|has to|have to|cannot|can't|may not|(?:is|are) limited to|guarantee[sd]?)\b/i;
/** Comparators the vague words replace without losing the sentence's sense of a bound. */
const KEPT_LEADS = new Set(["within", "under", "every", "at most", "up to", "no more than"]);
/** A sentence that guesses or describes what may happen, not what must. */
const HEDGED =
  /\b(?:might|could|would|perhaps|maybe|likely|typically|usually|often|rather)\b|\bI\b|\b(?:I|we)'d\b/i;
const ESTIMATE = /\b(?:about|approximately|approx\.|roughly|around|nearly|almost|some)\s*$|~\s*$/i;
const MEASUREMENT =
  /\b(?:faster|slower|outperforms?|example|assuming|benchmarks?|measured|measurements?|experiments?|in testing|in practice|on average|we (?:saw|found|observed))\b/i;

interface Quantity {
  /** Char range of the comparator and quantity (masked text positions, doc-relative). */
  start: number;
  end: number;
  /** Char range of the number alone. */
  numStart: number;
  numEnd: number;
  lead: string;
  kind: "time" | "size" | "percent" | "count";
  noun?: string;
  /** Written as an adjective: "a 30-second timeout". */
  adjective: boolean;
}

/** The quantities of a sentence, outside code spans and comments. */
function quantitiesIn(doc: MarkdownDoc, s: Sentence): Quantity[] {
  const masked = maskInline(doc.text.slice(s.start, s.end));
  const out: Quantity[] = [];
  QUANTITY.lastIndex = 0;
  for (let m = QUANTITY.exec(masked); m; m = QUANTITY.exec(masked)) {
    const [all, lead, num] = [m[0], m[1]!, m[2]!];
    const kind = m[3] ? "time" : m[4] ? "size" : m[5] ? "percent" : "count";
    const numAt = m.index + lead.length;
    if (kind === "count" && Number(num.replace(/,/g, "")) <= 1) continue;
    out.push({
      start: s.start + m.index,
      end: s.start + m.index + all.length,
      numStart: s.start + numAt,
      numEnd: s.start + numAt + num.length,
      lead: lead.trim().toLowerCase(),
      kind,
      ...(m[6] ? { noun: m[6].toLowerCase() } : {}),
      adjective: all.slice(lead.length + num.length).startsWith("-"),
    });
  }
  return out;
}

/** Vague words for a quantity, and whether they replace the comparator too. */
function vagueFor(q: Quantity, file: string): { words: string; withLead: boolean } {
  const choose = (xs: readonly string[]) => pick(xs, file, "vague")!;
  if (q.adjective) return { words: "reasonable", withLead: false };
  switch (q.kind) {
    case "time":
      if (q.lead === "every") return { words: "at a reasonable interval", withLead: true };
      if (q.lead === "within" || q.lead === "in" || q.lead === "under")
        return {
          words: choose(["within a reasonable time", "as fast as possible", "in a timely manner"]),
          withLead: true,
        };
      return { words: choose(["a reasonable time", "an appropriate amount of time"]), withLead: false };
    case "size":
      return {
        words: choose(["a reasonable size", "an appropriate size", "a sufficient amount of memory"]),
        withLead: true,
      };
    case "percent":
      return { words: choose(["an appropriate share", "a sufficient share"]), withLead: true };
    case "count":
      return {
        words:
          q.noun === "times"
            ? choose(["a few times", "a reasonable number of times"])
            : `${choose(["a reasonable number of", "a sufficient number of", "a few"])} ${q.noun!}`,
        withLead: !["within", "in", "under", "after", "for", "every"].includes(q.lead),
      };
  }
}

function replaceRange(text: string, s: number, e: number, by: string): string {
  return text.slice(0, s) + by + text.slice(e);
}

/** Undecided words put into a requirement sentence: its number becomes `TBD`, else a parenthetical says what is open. */
function tbdInto(
  doc: MarkdownDoc,
  s: Sentence,
  file: string,
): { text: string; site: [number, number]; note: string } {
  const text = doc.text;
  const q = quantitiesIn(doc, s)[0];
  if (q) {
    return {
      text: replaceRange(text, q.numStart, q.numEnd, "TBD"),
      site: [q.numStart, q.numStart + 3],
      note: `'${text.slice(q.numStart, q.numEnd)}' -> 'TBD' in '${firstLine(text.slice(s.start, s.end))}'`,
    };
  }
  const words = pick(
    ["(exact details TBD)", "(TODO: exact details)", "(exact details to be decided)"],
    file,
    "tbd",
  )!;
  let at = s.end;
  if (/[.!?:;]/.test(text[at - 1]!)) at--;
  return {
    text: replaceRange(text, at, at, ` ${words}`),
    site: [at + 1, at + 1 + words.length],
    note: `'${words}' added to '${firstLine(text.slice(s.start, s.end))}'`,
  };
}

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
const NUMBER_WITH_UNIT =
  /(?<![\p{L}\p{N}_.-])\d[\d,.]*(?:st|nd|rd|th)?(?:\s?(?:%|ms|milliseconds?|seconds?|secs?|s|minutes?|mins?|hours?|h|days?|weeks?|months?|years?|[KMGT]i?B|bytes?|requests?|req\/s|rps|qps|times|x))?(?![\p{L}\p{N}])/gu;

/** Insert `words` at the end of the first line of the first paragraph of `blocks` that has a few words. */
function insertIntoParagraph(
  doc: MarkdownDoc,
  inScope: (section: number) => boolean,
  words: string,
): { text: string; site: [number, number] } | undefined {
  for (const b of doc.blocks) {
    if (b.kind !== "paragraph" || !inScope(b.section)) continue;
    if (sectionContent(doc, doc.sections[b.section]!, 1).words === 0) continue;
    const [, e] = firstLineRange(doc.text, b.charStart, b.charEnd);
    const insert = ` ${words}`;
    return { text: replaceRange(doc.text, e, e, insert), site: [e + 1, e + insert.length] };
  }
  return undefined;
}

const PLACEHOLDER_FORMS: Record<
  "placeholder-mustache" | "placeholder-todo" | "placeholder-describe" | "placeholder-insert",
  readonly string[]
> = {
  "placeholder-mustache": [
    "{{ describe the proposed change }}",
    "{{ Explain how the new behaviour works }}",
    "{{design_details}}",
  ],
  "placeholder-todo": [
    "[TODO: describe the proposed change]",
    "[TODO: explain the API changes]",
    "[TODO: fill in the design]",
  ],
  "placeholder-describe": [
    "{Describe the proposed change in detail}",
    "{Describe how the feature works and which APIs change}",
    "{Describe the design here.}",
  ],
  "placeholder-insert": [
    "<insert description here>",
    "<insert design details here>",
    "<insert diagram here>",
  ],
};

/**
 * A template's placeholder in a design section (picked per doc): a paragraph of its own
 * right under the heading, or (every other doc) at the end of a paragraph of the section.
 */
function placeholderInto(
  doc: MarkdownDoc,
  sections: readonly Section[],
  form: string,
  file: string,
): { text: string; site: [number, number]; note: string } | undefined {
  const section = pick(sections, file, `section:${form}`);
  if (!section) return undefined;
  const text = doc.text;
  const inline = hash(`${file}\u0000inline`) % 2 === 1;
  const para = inline
    ? doc.blocks.find(
        (b) =>
          b.kind === "paragraph" &&
          b.section === section.index &&
          b.listDepth === 0 &&
          !/^\s*>/.test(text.slice(text.lastIndexOf("\n", b.charStart - 1) + 1, b.charStart + 1)),
      )
    : undefined;
  if (para) {
    let e = para.charEnd;
    while (e > para.charStart && /\s/.test(text[e - 1]!)) e--;
    return {
      text: replaceRange(text, e, e, ` ${form}`),
      site: [e + 1, e + 1 + form.length],
      note: `'${form}' at the end of a paragraph of '${section.title}'`,
    };
  }
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  let at = section.contentCharStart;
  if (at > 0 && text[at - 1] !== "\n") {
    const nl = text.indexOf("\n", at);
    at = nl < 0 ? text.length : nl + 1;
  }
  const insert = `${eol}${form}${eol}${eol}`;
  const start = at + eol.length;
  return {
    text: replaceRange(text, at, at, insert),
    site: [start, start + form.length],
    note: `'${form}' as the first paragraph of '${section.title}'`,
  };
}

/** Paragraphs that state the design by a bold label naming it (`**Decision:** ...`, `Chosen option: ...`). */
function labelledParagraphs(doc: MarkdownDoc, pattern: string): [number, number][] {
  const names = parseHeadingPattern(pattern).at(-1) ?? [];
  const out: [number, number][] = [];
  for (const b of doc.blocks) {
    if (b.kind !== "paragraph" || b.listDepth > 0) continue;
    const m = /^\s*(?:\*\*|__)?([^*_:\n]{2,40}?)(?:\*\*|__)?\s*:/.exec(
      doc.text.slice(b.charStart, b.charEnd),
    );
    if (m && titleMatches(m[1]!, names)) out.push([b.charStart, b.charEnd]);
  }
  return out;
}

/** Statuses of a doc nobody builds from any more: defects are not planted into it. */
const INACTIVE = /\b(?:superseded|deprecated|withdrawn|rejected|obsolete|abandoned|declined|retired)\b/i;

/**
 * The status of a doc that is no longer in force (superseded, withdrawn, rejected, ...), read
 * where teams write it: a `status` frontmatter key, a `Status:` line near the top (bold or in
 * a list), the first paragraph of a `Status` section, or a `status:` key of a metadata file
 * beside the doc (`kep.yaml`). Undefined for a doc in force.
 */
export function inactiveStatus(doc: MarkdownDoc, metadata: readonly string[] = []): string | undefined {
  const found: string[] = [];
  const fm = doc.frontmatter.data["status"];
  if (typeof fm === "string") found.push(fm);
  for (const t of metadata) {
    const m = /^status:[ \t]*["']?([^"'\n#]+)/m.exec(t);
    if (m) found.push(m[1]!);
  }
  const head = doc.text.slice(doc.bodyCharStart, doc.bodyCharStart + 3000);
  const line =
    /^[ \t]*(?:[-*+][ \t]+)?(?:\*\*|__)?Status(?:\*\*|__)?[ \t]*:(?:\*\*|__)?[ \t]*([^\n]*)/im.exec(head);
  if (line) found.push(line[1]!);
  const section = doc.sections.find((s) => s.level > 0 && /^status$/i.test(s.title.trim()));
  if (section) {
    const b = doc.blocks.find((x) => x.section === section.index && x.kind === "paragraph");
    if (b) found.push(b.text);
  }
  return found.map((f) => f.trim()).find((f) => INACTIVE.test(f.slice(0, 120)));
}

/** The defects that can be applied to a doc under a profile, one per kind at most. */
export function mutations(doc: MarkdownDoc, file: string, profile: Profile, adopting: boolean): Mutation[] {
  const out: Mutation[] = [];
  const text = doc.text;
  const requiredSections = profile.checks.filter((c) => c.kind === "required-section");
  const main = designEntry(profile);
  const mainPattern = main ? paramsOf<{ section: string }>(main).section : undefined;

  // delete-design: every section answering to the design check, and paragraphs labelled with its name.
  if (main && mainPattern) {
    const found = sectionsMatching(doc, mainPattern);
    const outer = found.filter(
      (s) => !found.some((o) => o !== s && o.charStart <= s.charStart && s.charEnd <= o.charEnd),
    );
    const ranges: [number, number][] = outer.map((s) => [s.charStart, s.charEnd]);
    const labelled = labelledParagraphs(doc, mainPattern).filter(
      ([a]) => !ranges.some(([s, e]) => a >= s && a < e),
    );
    ranges.push(...labelled);
    if (ranges.length > 0) {
      let t = text;
      for (const [s, e] of [...ranges].sort((a, b) => b[0] - a[0])) t = replaceRange(t, s, e, "");
      out.push({
        kind: "delete-design",
        text: t,
        site: docAnchorRange(parseMarkdown(t)),
        expected: judgedAt("delete-design", main, adopting),
        check: main.slug,
        checks: [main.slug],
        note: `deleted ${[...outer.map((s) => `'${s.title}'`), ...(labelled.length > 0 ? [`${labelled.length} labelled paragraph(s)`] : [])].join(", ")}`,
      });
    }
  }

  // The four placeholder forms, each in a design section.
  if (mainPattern) {
    const inDesign = designScope(doc, mainPattern);
    const sections = doc.sections.filter((s) => inDesign(s.index));
    for (const [kind, forms] of Object.entries(PLACEHOLDER_FORMS) as [DefectKind, readonly string[]][]) {
      const r = placeholderInto(doc, sections, pick(forms, file, kind)!, file);
      if (r) out.push({ kind, ...r, expected: judgedAt(kind, undefined, adopting), check: "any" });
    }
  }

  // tbd-in-design and tbd-in-requirement: undecided words in a requirement sentence.
  if (mainPattern) {
    const s = pick(requirementSentences(doc, designScope(doc, mainPattern)), file, "tbd-in-design");
    if (s)
      out.push({
        kind: "tbd-in-design",
        ...tbdInto(doc, s, file),
        expected: judgedAt("tbd-in-design", undefined, adopting),
        check: "any",
      });
  }
  {
    const s = pick(
      requirementSentences(doc, scopeOf(doc, ["*"], DEFERRED_SECTIONS)),
      file,
      "tbd-in-requirement",
    );
    if (s)
      out.push({
        kind: "tbd-in-requirement",
        ...tbdInto(doc, s, file),
        expected: judgedAt("tbd-in-requirement", undefined, adopting),
        check: "any",
      });
  }

  // vague-quantity: a constraint's number and unit become vague words.
  {
    const candidates = requirementSentences(doc, scopeOf(doc, ["*"], DEFERRED_SECTIONS)).flatMap((s) => {
      const sentence = text.slice(s.start, s.end);
      // A constraint: an obligation binds the number, or a limit word that the vague words
      // keep ("within a reasonable time") in a sentence that states what will be. Not a
      // measurement, a guess, a question, or someone else's words.
      if (MEASUREMENT.test(sentence) || HEDGED.test(sentence) || /\?\s*$/.test(sentence)) return [];
      const bound = STRONG.test(sentence);
      return quantitiesIn(doc, s)
        .filter((q) => bound || (KEPT_LEADS.has(q.lead) && MODAL.test(sentence)))
        .filter((q) => (text.slice(s.start, q.start).match(/["“”]/g)?.length ?? 0) % 2 === 0)
        .filter((q) => !ESTIMATE.test(text.slice(Math.max(0, q.numStart - 16), q.numStart)))
        .map((q) => ({ s, q }));
    });
    const c = pick(candidates, file, "vague-quantity");
    if (c) {
      const { words, withLead } = vagueFor(c.q, file);
      let from = withLead ? c.q.start : c.q.numStart;
      let to = c.q.end;
      if (c.q.adjective) {
        from = c.q.numStart;
        to = c.q.end;
      }
      out.push({
        kind: "vague-quantity",
        text: replaceRange(text, from, to, words),
        site: [from, from + words.length],
        expected: judgedAt("vague-quantity", undefined, adopting),
        check: "any",
        note: `'${text.slice(from, to)}' -> '${words}' in '${firstLine(text.slice(c.s.start, c.s.end))}'`,
      });
    }
  }

  // break-link
  const links = profile.checks.find((c) => c.kind === "links-resolve");
  if (links) {
    const notes = new Set<string>();
    for (const m of text.matchAll(/^[ ]{0,3}\[\^[^\]\n]+\]:[ \t]*<?([^\s>]+)/gm)) notes.add(m[1]!);
    const candidates = doc.links.filter(
      (l) =>
        l.href !== "" &&
        !SCHEME.test(l.href) &&
        !l.href.startsWith("//") &&
        !notes.has(l.href) &&
        // A site or an address written without its scheme is not a link into the bundle.
        !NO_SCHEME.test(l.href) &&
        !EMAIL.test(l.href) &&
        text.slice(l.charStart, l.charEnd) === l.href,
    );
    const file_ = candidates.find((l) => !l.href.startsWith("#"));
    const pickLink = file_ ?? candidates.find((l) => l.href.length > 1);
    if (pickLink) {
      const href = pickLink.href;
      let broken: string;
      if (href.startsWith("#")) broken = `${href}-renamed`;
      else {
        const [path, rest] = [href.replace(/[?#].*$/, ""), href.slice(href.replace(/[?#].*$/, "").length)];
        const dot = path.lastIndexOf(".");
        broken =
          dot > path.lastIndexOf("/")
            ? `${path.slice(0, dot)}-renamed${path.slice(dot)}${rest}`
            : `${path.replace(/\/$/, "")}-renamed${rest}`;
      }
      out.push({
        kind: "break-link",
        text: replaceRange(text, pickLink.charStart, pickLink.charEnd, broken),
        site: [pickLink.charStart, pickLink.charStart + broken.length],
        expected: judgedAt("break-link", links, adopting),
        check: links.slug,
        note: `'${href}' -> '${broken}'`,
      });
    }
  }

  // strip-numbers
  const measurable = profile.checks.find((c) => c.kind === "measurable");
  if (measurable) {
    const scope = sectionScope(doc, paramsOf<{ sections: string[] }>(measurable).sections);
    for (const st of statementsIn(doc, scope)) {
      NUMBER_WITH_UNIT.lastIndex = 0;
      if (!NUMBER_WITH_UNIT.test(st.source)) continue;
      NUMBER_WITH_UNIT.lastIndex = 0;
      const stripped = st.source.replace(NUMBER_WITH_UNIT, "").replace(/[ \t]{2,}/g, " ");
      out.push({
        kind: "strip-numbers",
        text: replaceRange(text, st.charStart, st.charEnd, stripped),
        site: [st.charStart, st.charStart + stripped.length],
        expected: judgedAt("strip-numbers", measurable, adopting),
        check: measurable.slug,
        note: `numbers taken out of '${firstLine(st.source)}'`,
      });
      break;
    }
  }

  // duplicate-id
  const dup = profile.checks.find(
    (c) => c.kind === "trace-id" && paramsOf<{ unique?: boolean }>(c).unique !== false,
  );
  if (dup) {
    const p = paramsOf<{ prefixes?: string[]; sections?: string[] }>(dup);
    const prefixes = p.prefixes && p.prefixes.length > 0 ? p.prefixes : profile.verify_prefixes;
    if (prefixes.length > 0) {
      const idStart = new RegExp(`^(?:${prefixAlternatives(prefixes)})-[\\p{L}\\p{N}_]+`, "u");
      const scope =
        p.sections && p.sections.length > 0
          ? sectionScope(doc, p.sections)
          : new Set(doc.sections.map((s) => s.index));
      const ids: { id: string; at: number }[] = [];
      for (const st of statementsIn(doc, scope, idStart)) {
        const m = idStart.exec(stripLead(st.source));
        if (m) ids.push({ id: m[0], at: st.charStart + st.source.indexOf(m[0]) });
      }
      const first = ids[0];
      const second = ids.find((x) => first && x.id !== first.id);
      if (first && second)
        out.push({
          kind: "duplicate-id",
          text: replaceRange(text, second.at, second.at + second.id.length, first.id),
          site: [second.at, second.at + first.id.length],
          expected: judgedAt("duplicate-id", dup, adopting),
          check: dup.slug,
          note: `'${second.id}' renamed to '${first.id}'`,
        });
    }
  }

  // empty-section
  const hasChild = new Set(doc.sections.map((s) => s.parent));
  outer: for (const entry of requiredSections) {
    if (entry === main) continue;
    const { section, min_words } = paramsOf<{ section: string; min_words?: number }>(entry);
    if (min_words === 0) continue;
    for (const s of sectionsMatching(doc, section)) {
      if (hasChild.has(s.index) || !sectionContent(doc, s, min_words ?? 2).hasContent) continue;
      // Another section answering to the same role keeps the role filled: not this one.
      if (sectionsMatching(doc, section).length > 1) continue outer;
      const t = replaceRange(text, s.contentCharStart, s.charEnd, "\n");
      out.push({
        kind: "empty-section",
        text: t,
        site: firstLineRange(t, s.charStart, s.contentCharStart),
        expected: judgedAt("empty-section", entry, adopting),
        check: entry.slug,
        note: `emptied '${s.title}'`,
      });
      break outer;
    }
  }

  // template-placeholder: the profile's own template's first placeholder.
  const placeholder = profile.checks.find(
    (c) =>
      c.kind === "forbidden-pattern" &&
      (paramsOf<{ patterns?: string[] }>(c).patterns?.length ?? 0) > 0 &&
      c.slug.includes("placeholder"),
  );
  if (placeholder && profile.templateText) {
    const patterns = paramsOf<{ patterns: string[] }>(placeholder).patterns;
    const body = profile.templateText.replace(/^---[\s\S]*?\n---\n/, "");
    let sample: string | undefined;
    for (const p of patterns) {
      const m = new RegExp(p, "u").exec(body);
      if (m && (!sample || m.index < body.indexOf(sample))) sample = m[0];
    }
    if (sample) {
      const mainSections = new Set(mainPattern ? [...sectionScope(doc, [mainPattern])] : []);
      const r =
        insertIntoParagraph(doc, (s) => mainSections.has(s), sample) ??
        insertIntoParagraph(doc, (s) => doc.sections[s]!.level > 0, sample);
      if (r)
        out.push({
          kind: "template-placeholder",
          ...r,
          expected: judgedAt("template-placeholder", placeholder, adopting),
          check: placeholder.slug,
          note: `left '${sample}'`,
        });
    }
  }
  const c = contradiction(doc, profile, adopting);
  if (c) out.push(c);
  return out;
}
/** Another value for a number as written: 30 -> 60, 0 -> 1, 99.9 -> 99.4. */
function otherValue(n: string): string {
  if (/^\d+$/.test(n)) return String(Number(n) * 2 || 1);
  const last = Number(n[n.length - 1]);
  return n.slice(0, -1) + String((last + 5) % 10);
}

/**
 * contradict: the first requirement sentence with a quantity that the profile's
 * contradiction check reads is said again at the end of its section, with another value
 * ("Logs MUST be kept for 30 days." ... "Logs MUST be kept for 60 days.").
 */
function contradiction(doc: MarkdownDoc, profile: Profile, adopting: boolean): Mutation | undefined {
  const entry = profile.checks.find((c) => c.kind === "contradiction");
  if (!entry) return undefined;
  const p = paramsOf<{ sections?: string[]; exclude_sections?: string[] }>(entry);
  const scope = searchScope(doc, ["*"], p.exclude_sections ?? NOT_REQUIREMENTS);
  const requirements = sectionScope(doc, p.sections ?? []);
  const claim = claimsOf(doc, (s) => scope[s] === true && doc.sections[s]!.level > 0, requirements).find(
    (c) => c.quantities.length > 0,
  );
  if (!claim) return undefined;
  const q = claim.quantities[0]!;
  const written = /\d[\d,]*(?:\.\d+)?/.exec(doc.text.slice(q.start, q.end))!;
  const numStart = q.start + written.index;
  const changed = otherValue(written[0].replace(/,/g, ""));
  const sentence =
    doc.text.slice(claim.start, numStart) + changed + doc.text.slice(numStart + written[0].length, claim.end);
  const section = doc.sections[claim.section]!;
  let at = section.ownCharEnd;
  while (at > section.contentCharStart && /\s/.test(doc.text[at - 1]!)) at--;
  const eol = doc.text.includes("\r\n") ? "\r\n" : "\n";
  const insert = `${eol}${eol}${sentence.replace(/\r?\n\s*/g, " ")}`;
  return {
    kind: "contradict",
    text: replaceRange(doc.text, at, at, insert),
    site: [at + 2 * eol.length, at + insert.length],
    expected: judgedAt("contradict", entry, adopting),
    check: entry.slug,
    note: `'${firstLine(sentence)}' said again with ${changed}`,
  };
}

function firstLine(s: string): string {
  const l = s.split("\n")[0]!.trim();
  return l.length > 60 ? `${l.slice(0, 57)}...` : l;
}
