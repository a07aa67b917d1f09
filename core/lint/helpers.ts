/**
 * Shared helpers for checks: matching sections by heading pattern, the "statements"
 * of requirement sections, prose ranges, and masking code spans and comments.
 */
import { normalizeTitle, type Block, type MarkdownDoc, type Section } from "../markdown/document.js";
import { countWords } from "../markdown/text.js";

/**
 * A heading pattern names a section by the end of its heading path, levels separated
 * by ">", alternatives by "|": "Requirements", "Requirements > Functional",
 * "Goals|Objectives". Matching ignores case, numbering ("2.1 Goals") and a trailing colon.
 */
const patternCache = new Map<string, string[][]>();
const titleCache = new Map<string, string>();
const CACHE_LIMIT = 5000;

/** normalizeTitle, remembered: the same headings recur across checks and docs. */
export function normalizedTitle(title: string): string {
  let n = titleCache.get(title);
  if (n === undefined) {
    if (titleCache.size >= CACHE_LIMIT) titleCache.clear();
    n = normalizeTitle(title);
    titleCache.set(title, n);
  }
  return n;
}

export function parseHeadingPattern(pattern: string): string[][] {
  let parsed = patternCache.get(pattern);
  if (!parsed) {
    if (patternCache.size >= CACHE_LIMIT) patternCache.clear();
    parsed = compilePattern(pattern);
    patternCache.set(pattern, parsed);
  }
  return parsed;
}

function compilePattern(pattern: string): string[][] {
  return pattern.split(">").map((level) =>
    level
      .split("|")
      .map((alt) => normalizeTitle(alt))
      .filter((alt) => alt !== ""),
  );
}

export function matchesHeadingPattern(section: Section, pattern: string[][]): boolean {
  const path = section.heading_path;
  if (pattern.length === 0 || path.length < pattern.length) return false;
  for (let i = 0; i < pattern.length; i++) {
    const title = normalizedTitle(path[path.length - pattern.length + i]!);
    if (!pattern[i]!.includes(title)) return false;
  }
  return true;
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
    return countWords(b.kind === "html" ? t.replace(/<[^>]*>/g, " ") : t);
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
