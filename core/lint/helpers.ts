/**
 * Shared helpers for checks: matching sections by heading pattern, the "statements"
 * of requirement sections, prose ranges, and masking code spans and comments.
 */
import type { Block, MarkdownDoc, Section } from "../markdown/document.js";
import { countWords } from "../markdown/text.js";
import { SECTION_VOCABULARIES } from "./vocabulary.js";

/**
 * A heading pattern names a section by its role, the way a reviewer finds it: the end of
 * its heading path, levels separated by ">", synonyms by "|" ("Risks|Failure modes",
 * "Requirements > Functional"). `\>` and `\|` put those characters in a name.
 *
 * Each synonym is one of:
 * - a name, "Risks": equal to the heading, or to one part of a heading joined by "and",
 *   "&", "/", "," or "or" ("Risks and Mitigations", "Rationale and alternatives");
 * - a prefix, "Design*": the heading starts with these words ("Design details");
 * - a regular expression, "/^risks?\b/": tested on the normalized heading.
 *
 * Both sides are normalized first: case, numbering ("1.", "2.1", "A.", "IV."), text in
 * parentheses, emoji and punctuation are ignored, and a leading "the", "our" or "this".
 * A one-level pattern finds its section at any depth.
 */
export type NameMatcher =
  { kind: "name"; name: string } | { kind: "prefix"; name: string } | { kind: "regex"; re: RegExp };

/** A parsed heading pattern: one list of synonyms per level, outermost first. */
export type HeadingPattern = NameMatcher[][];

interface TitleForms {
  /** The whole heading, normalized. */
  full: string;
  /** Its parts split at "and", "&", "/", ",", "or", normalized; includes `full`. */
  parts: string[];
}

const patternCache = new Map<string, HeadingPattern>();
const titleCache = new Map<string, TitleForms>();
const CACHE_LIMIT = 5000;

/** A heading or a name in its matching form: lowercase words of letters and digits. */
export function matchForm(title: string): string {
  return title
    .toLowerCase()
    .replace(/\([^)]*\)|\[[^\]]*\]/g, " ")
    .replace(
      /^\s*(?:(?:step|part|section|appendix)\s+)?(?:(?:\d+|[a-h]|[ivx]+)(?:[.)]|\s*:)\s*|\d+(?:\.\d+)*\s+)+/,
      "",
    )
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim()
    .replace(/^(?:the|our|this) /, "");
}

function titleForms(title: string): TitleForms {
  let f = titleCache.get(title);
  if (f === undefined) {
    if (titleCache.size >= CACHE_LIMIT) titleCache.clear();
    const full = matchForm(title);
    const parts = [full];
    const raw = title.toLowerCase().replace(/\([^)]*\)/g, " ");
    if (/[/&,+|]| and | or /.test(raw))
      for (const part of raw.split(/[/&,+|]| and | or /)) {
        const n = matchForm(part);
        if (n !== "" && n !== full) parts.push(n);
      }
    f = { full, parts };
    titleCache.set(title, f);
  }
  return f;
}

/** The normalized heading (matchForm), remembered: the same headings recur across checks and docs. */
export function normalizedTitle(title: string): string {
  return titleForms(title).full;
}

export function parseHeadingPattern(pattern: string): HeadingPattern {
  let parsed = patternCache.get(pattern);
  if (!parsed) {
    if (patternCache.size >= CACHE_LIMIT) patternCache.clear();
    parsed = compilePattern(pattern);
    patternCache.set(pattern, parsed);
  }
  return parsed;
}

/** Split at an unescaped separator; `\x` stands for x. */
function splitEscaped(s: string, sep: string): string[] {
  const out: string[] = [];
  let cur = "";
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === "\\" && (s[i + 1] === ">" || s[i + 1] === "|" || s[i + 1] === "\\")) {
      cur += c + s[i + 1]!;
      i++;
    } else if (c === sep) {
      out.push(cur);
      cur = "";
    } else cur += c;
  }
  out.push(cur);
  return out;
}

const unescape = (s: string) => s.replace(/\\([>|\\])/g, "$1");

function compileName(alt: string): NameMatcher | undefined {
  const t = alt.trim();
  const re = /^\/(.+)\/([a-z]*)$/s.exec(t);
  if (re) {
    try {
      const flags = re[2]!.replace(/[gy]/g, "");
      return { kind: "regex", re: new RegExp(unescape(re[1]!), flags.includes("i") ? flags : `${flags}i`) };
    } catch {
      return undefined;
    }
  }
  if (t.endsWith("*")) {
    const name = matchForm(unescape(t.slice(0, -1)));
    return name === "" ? undefined : { kind: "prefix", name };
  }
  const name = matchForm(unescape(t));
  return name === "" ? undefined : { kind: "name", name };
}

/** "@design" stands for a shared vocabulary of names (vocabulary.ts); anything else for itself. */
function vocabularyNames(alt: string): readonly string[] {
  const name = /^\s*@([a-z-]+)\s*$/.exec(alt)?.[1];
  return name !== undefined && Object.hasOwn(SECTION_VOCABULARIES, name)
    ? SECTION_VOCABULARIES[name]!
    : [alt];
}

function compilePattern(pattern: string): HeadingPattern {
  return splitEscaped(pattern, ">").map((level) =>
    splitEscaped(level, "|")
      .flatMap(vocabularyNames)
      .map(compileName)
      .filter((m): m is NameMatcher => m !== undefined),
  );
}

/** Does one heading title answer to one of the names? */
export function titleMatches(title: string, names: readonly NameMatcher[]): boolean {
  const f = titleForms(title);
  for (const m of names) {
    if (m.kind === "name") {
      if (f.parts.includes(m.name)) return true;
    } else if (m.kind === "prefix") {
      if (f.full === m.name || f.full.startsWith(`${m.name} `)) return true;
    } else if (m.re.test(f.full)) return true;
  }
  return false;
}

export function matchesHeadingPattern(section: Section, pattern: HeadingPattern): boolean {
  const path = section.heading_path;
  if (pattern.length === 0 || path.length < pattern.length) return false;
  for (let i = 0; i < pattern.length; i++) {
    if (!titleMatches(path[path.length - pattern.length + i]!, pattern[i]!)) return false;
  }
  return true;
}

/** The first name of a pattern, as written, for messages ("Goals|Objectives" -> "Goals"). */
export function patternLabel(pattern: string): string {
  return splitEscaped(pattern, ">")
    .map((level) => unescape(splitEscaped(level, "|")[0]!.trim()).replace(/^\/(.*)\/[a-z]*$|\*$/s, "$1"))
    .join(" > ");
}

/** Sections matching a heading pattern, in document order. */
export function sectionsMatching(doc: MarkdownDoc, pattern: string): Section[] {
  const parsed = parseHeadingPattern(pattern);
  return doc.sections.filter((s) => s.level > 0 && matchesHeadingPattern(s, parsed));
}

/** Indexes of the sections matching any of the patterns, with all their subsections. */
export function sectionScope(doc: MarkdownDoc, patterns: readonly string[]): Set<number> {
  const scope = new Set<number>();
  const parsed = patterns.map(parseHeadingPattern);
  for (const s of doc.sections) {
    if (s.level === 0) continue;
    if (scope.has(s.parent) || parsed.some((p) => matchesHeadingPattern(s, p))) scope.add(s.index);
  }
  return scope;
}

/** Blocks inside a section (its subsections included), by binary-searching positions. */
export function blocksIn(doc: MarkdownDoc, section: Section, ownOnly = false): Block[] {
  const end = ownOnly ? section.ownCharEnd : section.charEnd;
  const blocks = doc.blocks;
  // First block starting at or after the content (blocks are in document order).
  let lo = 0;
  let hi = blocks.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (blocks[mid]!.charStart < section.contentCharStart) lo = mid + 1;
    else hi = mid;
  }
  const out: Block[] = [];
  for (let i = lo; i < blocks.length && blocks[i]!.charStart < end; i++) out.push(blocks[i]!);
  return out;
}

const maskedCache = new WeakMap<MarkdownDoc, Map<Block, string>>();

/** The source of a block with code spans and comments masked (maskInline), computed once per doc. */
export function maskedSource(doc: MarkdownDoc, b: Block): string {
  let perDoc = maskedCache.get(doc);
  if (!perDoc) {
    perDoc = new Map();
    maskedCache.set(doc, perDoc);
  }
  let s = perDoc.get(b);
  if (s === undefined) {
    s = maskInline(doc.text.slice(b.charStart, b.charEnd));
    perDoc.set(b, s);
  }
  return s;
}

/** Replace code spans and HTML comments by spaces of the same length, so positions hold. */
export function maskInline(source: string): string {
  if (source.indexOf("`") < 0 && source.indexOf("<!--") < 0) return source;
  return source
    .replace(/<!--[\s\S]*?-->/g, (m) => m.replace(/[^\n]/g, " "))
    .replace(/(`+)(?:(?!\1)[\s\S])+?\1/g, (m) => m.replace(/[^\n]/g, " "));
}

/** Words of a block's content as a reader counts them: HTML comments left out, code spans kept. */
export function contentWords(b: Block): number {
  if (b.kind === "code") return Math.max(1, countWords(b.text));
  if (b.kind === "paragraph" || b.kind === "table" || b.kind === "html") {
    const t = b.text.indexOf("<!--") < 0 ? b.text : b.text.replace(/<!--[\s\S]*?(?:-->|$)/g, " ");
    return readerWords(b.kind === "html" ? t.replace(/<[^>]*>/g, " ") : t);
  }
  return 0;
}

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;
const HAS_CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/** Words as a reader counts them; each CJK character counts as one (those scripts have no spaces). */
export function readerWords(text: string): number {
  if (!HAS_CJK.test(text)) return countWords(text);
  const cjk = text.match(CJK)?.length ?? 0;
  return cjk + countWords(text.replace(CJK, " "));
}

/** Text that only stands in for content: TBD/TODO marks, template placeholders, HTML comments, ellipses. */
const PLACEHOLDER =
  /<!--[\s\S]*?(?:-->|$)|\{\{[^}]*\}\}|\b(?:TBD|TBC|TODO|FIXME|XXX|to be (?:determined|decided|defined|written))\b|\.\.\.|…|\[(?:insert|describe|add|fill)[^\]]*\]/gi;

/** The text without what only stands in for content. */
export function withoutPlaceholders(text: string): string {
  return text.replace(PLACEHOLDER, " ");
}

export interface SectionContent {
  /** Words of content (placeholders, comments and markup left out), subsections included. */
  words: number;
  /** Words as written, placeholders included (for messages). */
  rawWords: number;
  /** The section holds content: a list, a table, a code block, or prose of at least `minWords` words. */
  hasContent: boolean;
}

/**
 * Does a section say anything? A crisp one-sentence decision does, a list does, a table
 * or a code block does; a heading over nothing, a TBD or a template's comment does not.
 */
export function sectionContent(
  doc: MarkdownDoc,
  section: Section,
  minWords: number,
  ownOnly = false,
): SectionContent {
  let words = 0;
  let rawWords = 0;
  let structured = false;
  for (const b of blocksIn(doc, section, ownOnly)) {
    const w = blockWords(b);
    words += w.words;
    rawWords += blockRawWords(b);
    structured ||= w.structured;
  }
  return { words, rawWords, hasContent: structured || (words > 0 && words >= minWords) };
}

/**
 * `sectionContent(...).hasContent`, reading blocks only until the answer is known: most
 * sections say something in their first block, and the words as written (for messages)
 * are only counted when a finding needs them.
 */
export function sectionHasContent(
  doc: MarkdownDoc,
  section: Section,
  minWords: number,
  ownOnly = false,
): boolean {
  let words = 0;
  for (const b of blocksIn(doc, section, ownOnly)) {
    const w = blockWords(b);
    if (w.structured) return true;
    words += w.words;
    if (words > 0 && words >= minWords) return true;
  }
  return false;
}

interface BlockWords {
  /** Words of content: placeholders, comments and markup left out. */
  words: number;
  /** A list item, a table, code or an image with content. */
  structured: boolean;
}

const blockWordsCache = new WeakMap<Block, BlockWords>();

/** The words of one block, counted once per parse (several checks ask for the same sections). */
function blockWords(b: Block): BlockWords {
  let w = blockWordsCache.get(b);
  if (w) return w;
  w = { words: 0, structured: false };
  if (b.kind === "code") {
    w.structured = b.text.trim() !== "";
  } else if (b.kind === "table") {
    const body = (b.rows ?? []).slice(1);
    w.words = body.reduce((n, r) => n + readerWords(withoutPlaceholders(r.join(" "))), 0);
    w.structured = w.words > 0;
  } else if (b.kind === "paragraph" || b.kind === "html") {
    let t = b.text;
    if (b.kind === "html") t = t.replace(/<!--[\s\S]*?(?:-->|$)/g, " ").replace(/<[^>]*>/g, " ");
    w.words = readerWords(withoutPlaceholders(t));
    // An item of a list with words in it: the section holds a list. An image says something too.
    w.structured =
      (b.listDepth > 0 && w.words > 0) || (b.kind === "paragraph" && /!\[[^\]]*\]\([^)]+\)/.test(b.text));
  }
  blockWordsCache.set(b, w);
  return w;
}

/** The words of one block as written, placeholders included (for messages). */
function blockRawWords(b: Block): number {
  if (b.kind === "code") return Math.max(1, countWords(b.text));
  if (b.kind === "table") return readerWords(b.text);
  if (b.kind === "paragraph" || b.kind === "html") {
    let t = b.text;
    if (b.kind === "html") t = t.replace(/<!--[\s\S]*?(?:-->|$)/g, " ").replace(/<[^>]*>/g, " ");
    return readerWords(t.replace(/<!--[\s\S]*?(?:-->|$)/g, " "));
  }
  return 0;
}

/** Blocks whose text is prose: paragraphs, headings and tables (not code, not HTML). */
export function isProse(b: Block): boolean {
  return b.kind === "paragraph" || b.kind === "heading" || b.kind === "table";
}

/** A requirement-like statement: a top-level list item, a table body row, or a paragraph or heading opening with a trace ID. */
export interface Statement {
  kind: "list_item" | "table_row" | "paragraph" | "heading";
  charStart: number;
  charEnd: number;
  /** The source of the statement. */
  source: string;
  section: number;
}

/**
 * Statements of the sections in `scope`. In a requirement section the statements are
 * its top-level list items and table body rows; a paragraph counts when no list or
 * table holds the section's statements (a section written as prose); a heading whose
 * title opens with an ID (`### REQ-001 Login`) makes its own text one statement.
 */
export function statementsIn(doc: MarkdownDoc, scope: ReadonlySet<number>, idStart?: RegExp): Statement[] {
  const out: Statement[] = [];
  const text = doc.text;
  const structured = new Set<number>();
  for (const b of doc.blocks)
    if (scope.has(b.section) && ((b.kind === "list_item" && b.listDepth === 1) || b.kind === "table"))
      structured.add(b.section);
  for (const b of doc.blocks) {
    if (!scope.has(b.section)) continue;
    if (b.kind === "list_item" && b.listDepth === 1) {
      out.push({
        kind: "list_item",
        charStart: b.charStart,
        charEnd: b.charEnd,
        source: text.slice(b.charStart, b.charEnd),
        section: b.section,
      });
    } else if (b.kind === "table" && b.rowRanges) {
      for (const r of b.rowRanges.slice(1))
        out.push({
          kind: "table_row",
          charStart: r.charStart,
          charEnd: r.charEnd,
          source: text.slice(r.charStart, r.charEnd),
          section: b.section,
        });
    } else if (b.kind === "paragraph" && b.listDepth === 0) {
      const source = text.slice(b.charStart, b.charEnd);
      if (!structured.has(b.section) || (idStart && idStart.test(stripLead(source))))
        out.push({
          kind: "paragraph",
          charStart: b.charStart,
          charEnd: b.charEnd,
          source,
          section: b.section,
        });
    } else if (b.kind === "heading" && idStart && idStart.test(b.text)) {
      const s = doc.sections[b.section]!;
      if (s.charStart !== b.charStart) continue;
      out.push({
        kind: "heading",
        charStart: s.charStart,
        charEnd: trimEnd(text, s.charStart, s.ownCharEnd),
        source: text.slice(s.charStart, s.ownCharEnd),
        section: b.section,
      });
    }
  }
  // A heading statement holds the list items and paragraphs of its own text.
  const headings = out.filter((s) => s.kind === "heading");
  if (headings.length === 0) return out;
  return out.filter(
    (s) =>
      s.kind === "heading" || !headings.some((h) => s.charStart >= h.charStart && s.charEnd <= h.charEnd),
  );
}

function trimEnd(text: string, from: number, to: number): number {
  let e = to;
  while (e > from && /\s/.test(text[e - 1]!)) e--;
  return e;
}

/** The statement's text after list markers, heading hashes, table pipes and emphasis. */
export function stripLead(source: string): string {
  return source.replace(
    /^(?:\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?|\s*#{1,6}\s+|\s*\|\s*|\s*>\s*)*[*_`[]*/,
    "",
  );
}

/** First line of a range, trimmed: a good quote for a finding about a whole block. */
export function firstLineRange(text: string, charStart: number, charEnd: number): [number, number] {
  let s = charStart;
  while (s < charEnd && (text[s] === " " || text[s] === "\t")) s++;
  const nl = text.indexOf("\n", s);
  let e = nl < 0 || nl > charEnd ? charEnd : nl;
  while (e > s && /\s/.test(text[e - 1]!)) e--;
  return [s, e];
}

/**
 * Where to anchor a finding about the doc as a whole: the first heading line, else the
 * first non-blank body line, else the start of the body (an empty quote).
 */
export function docAnchorRange(doc: MarkdownDoc): [number, number] {
  const first = doc.blocks[0];
  if (first) return firstLineRange(doc.text, first.charStart, first.charEnd);
  return [doc.bodyCharStart, doc.bodyCharStart];
}

/** Range of a section's heading line (the whole doc's anchor for the root). */
export function headingRange(doc: MarkdownDoc, section: Section): [number, number] {
  if (section.level === 0) return docAnchorRange(doc);
  return firstLineRange(doc.text, section.charStart, section.contentCharStart);
}

/** Escape a string for use inside a RegExp. */
export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
