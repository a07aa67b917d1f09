/**
 * Trace IDs in one doc (contract 2.9, docs/trace.md): the IDs a doc defines (where each
 * first appears), the IDs it mentions, the ones it covers with `Covers <ID>.`, and
 * requirement-like statements that carry no ID (suggested IDs).
 */
import { anchorAt, type Anchor } from "../anchor/anchor.js";
import { safeText } from "../anchor/safe-text.js";
import { prefixAlternatives } from "../lint/checks/trace-id.js";
import { firstLineRange, isProse, sectionScope, statementsIn, stripLead } from "../lint/helpers.js";
import type { MarkdownDoc } from "../markdown/document.js";
import type { Profile } from "../profile/schema.js";

/** How a profile writes its trace IDs: from `verify_prefixes` and its `trace-id` checks. */
export interface IdScheme {
  /** Named prefixes (REQ for REQ-001): every occurrence counts. */
  named: string[];
  /** A `trace-id` check names "*": an ID opening a statement in `sections` counts. */
  any: boolean;
  /** Regular expression of the part after `PREFIX-`. */
  format: string;
  /** Heading patterns of the sections where requirements live. */
  sections: string[];
}

export function idScheme(profile: Profile): IdScheme {
  const named = new Set(profile.verify_prefixes);
  const sections = new Set<string>();
  let any = false;
  let format: string | undefined;
  for (const c of profile.checks) {
    if (c.kind !== "trace-id") continue;
    const p = (c.params ?? {}) as { prefixes?: unknown; format?: unknown; sections?: unknown };
    if (Array.isArray(p.prefixes))
      for (const x of p.prefixes) {
        if (x === "*") any = true;
        else if (typeof x === "string") named.add(x);
      }
    if (Array.isArray(p.sections)) for (const s of p.sections) if (typeof s === "string") sections.add(s);
    if (format === undefined && typeof p.format === "string") format = p.format;
  }
  return { named: [...named], any, format: format ?? "\\d{3,}", sections: [...sections] };
}

export interface DefinedId {
  id: string;
  /** The statement that defines it (its first line, without list markers). */
  text: string;
  /** The statement's first line. */
  anchor: Anchor;
  /** Index of the section holding it. */
  section: number;
}

const TOKEN = "[A-Z][A-Z0-9]*-[\\p{L}\\p{N}_]+";
const COVERS = new RegExp(
  `(?<![\\p{L}\\p{N}])Covers\\s+(${TOKEN}(?:\\s*(?:,|and)\\s*${TOKEN})*)\\s*\\.`,
  "gu",
);
const TOKENS = new RegExp(`(?<![\\p{L}\\p{N}_-])${TOKEN}`, "gu");

function formatRe(scheme: IdScheme): RegExp {
  try {
    return new RegExp(`^(?:${scheme.format})$`, "u");
  } catch {
    return /^\d{3,}$/;
  }
}

/** Ranges of `Covers <ID>.` sentences, and the IDs each names. */
function coverSentences(
  doc: MarkdownDoc,
): { charStart: number; charEnd: number; ids: string[]; section: number }[] {
  const out: { charStart: number; charEnd: number; ids: string[]; section: number }[] = [];
  if (!doc.text.includes("Covers")) return out;
  for (const b of doc.blocks) {
    if (!isProse(b) && b.kind !== "list_item") continue;
    if (b.kind === "list_item") continue; // its paragraphs are blocks of their own
    const source = doc.text.slice(b.charStart, b.charEnd);
    COVERS.lastIndex = 0;
    for (let m = COVERS.exec(source); m; m = COVERS.exec(source))
      out.push({
        charStart: b.charStart + m.index,
        charEnd: b.charStart + m.index + m[0].length,
        ids: m[1]!.match(new RegExp(TOKEN, "gu")) ?? [],
        section: b.section,
      });
  }
  return out;
}

function statementText(doc: MarkdownDoc, file: string, start: number, end: number) {
  const [s, e] = firstLineRange(doc.text, start, end);
  const text = safeText(
    stripLead(doc.text.slice(s, e))
      .replace(/\*\*|__/g, "")
      .trim(),
  ).slice(0, 300);
  return { text, anchor: anchorAt(doc, file, s, e) };
}

/** The IDs a doc defines, in document order: each where it first appears. */
export function definedIds(doc: MarkdownDoc, file: string, scheme: IdScheme): DefinedId[] {
  const format = formatRe(scheme);
  const covers = coverSentences(doc);
  const inCover = (at: number) => covers.some((c) => at >= c.charStart && at < c.charEnd);
  const found = new Map<string, { at: number; start: number; end: number; section: number }>();
  if (scheme.named.length > 0) {
    const re = new RegExp(
      `(?<![\\p{L}\\p{N}_-])(?:${prefixAlternatives(scheme.named)})-([\\p{L}\\p{N}_]+)`,
      "gu",
    );
    for (const b of doc.blocks) {
      if (!isProse(b)) continue;
      const source = doc.text.slice(b.charStart, b.charEnd);
      re.lastIndex = 0;
      for (let m = re.exec(source); m; m = re.exec(source)) {
        const at = b.charStart + m.index;
        if (found.has(m[0]) || !format.test(m[1]!) || inCover(at)) continue;
        // The line that holds the ID, within its block.
        const start = Math.max(b.charStart, doc.text.lastIndexOf("\n", at) + 1);
        found.set(m[0], { at, start, end: b.charEnd, section: b.section });
      }
    }
  }
  if (scheme.any && scheme.sections.length > 0) {
    const idStart = new RegExp(`^(?:${prefixAlternatives(["*"])})-([\\p{L}\\p{N}_]+)`, "u");
    for (const st of statementsIn(doc, sectionScope(doc, scheme.sections), idStart)) {
      const m = idStart.exec(stripLead(st.source));
      if (!m || !format.test(m[1]!)) continue;
      const at = st.charStart + st.source.indexOf(m[0]);
      const seen = found.get(m[0]);
      if (!seen || seen.at > at)
        found.set(m[0], { at, start: st.charStart, end: st.charEnd, section: st.section });
    }
  }
  return [...found.entries()]
    .sort((a, b) => a[1].at - b[1].at)
    .map(([id, f]) => ({ id, section: f.section, ...statementText(doc, file, f.start, f.end) }));
}

/** What a downstream doc says about IDs: every ID-shaped token it mentions, and the ones it covers. */
export interface IdUse {
  mentioned: Set<string>;
  /** ID -> heading path of the section whose `Covers <ID>.` takes it on. */
  covered: Map<string, string[]>;
}

export function idUse(doc: MarkdownDoc): IdUse {
  const mentioned = new Set<string>();
  for (const b of doc.blocks) {
    if (!isProse(b)) continue;
    const source = doc.text.slice(b.charStart, b.charEnd);
    if (!/[A-Z]-/.test(source)) continue;
    TOKENS.lastIndex = 0;
    for (let m = TOKENS.exec(source); m; m = TOKENS.exec(source)) mentioned.add(m[0]);
  }
  const covered = new Map<string, string[]>();
  for (const c of coverSentences(doc))
    for (const id of c.ids) if (!covered.has(id)) covered.set(id, doc.sections[c.section]!.heading_path);
  return { mentioned, covered };
}

const KEYWORD = /\b(?:MUST|MUST NOT|SHALL|SHALL NOT|SHOULD|SHOULD NOT|REQUIRED|RECOMMENDED|MAY|OPTIONAL)\b/;

export interface IdSuggestion {
  id: string;
  text: string;
  anchor: Anchor;
  /** Where `**<id>** ` goes: after the statement's list marker. */
  insertAt: number;
}

const LEAD = /^(?:\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?|\s*\|\s*|\s*>\s*)*/;

/**
 * Requirement-like statements without an ID in the requirement sections (a list item,
 * or a sentence with an RFC 2119 keyword), each with the next free ID of the scheme's
 * first prefix (REQ when it names none).
 */
export function suggestIds(doc: MarkdownDoc, file: string, scheme: IdScheme): IdSuggestion[] {
  if (scheme.sections.length === 0) return [];
  const prefix = scheme.named[0] ?? "REQ";
  const idStart = new RegExp(`^(?:${prefixAlternatives(["*", ...scheme.named])})-[\\p{L}\\p{N}_]+`, "u");
  const taken = idUse(doc).mentioned;
  let next = 0;
  for (const t of taken)
    if (t.startsWith(`${prefix}-`)) {
      const n = Number(t.slice(prefix.length + 1));
      if (Number.isInteger(n)) next = Math.max(next, n);
    }
  const width = /\{(\d+)/.exec(scheme.format)?.[1] ?? "3";
  const out: IdSuggestion[] = [];
  for (const st of statementsIn(doc, sectionScope(doc, scheme.sections), idStart)) {
    if (st.kind === "heading" || st.kind === "table_row") continue;
    if (idStart.test(stripLead(st.source))) continue;
    if (st.kind === "paragraph" && !KEYWORD.test(st.source)) continue;
    let id: string;
    do id = `${prefix}-${String(++next).padStart(Number(width), "0")}`;
    while (taken.has(id));
    out.push({
      id,
      ...statementText(doc, file, st.charStart, st.charEnd),
      insertAt: st.charStart + LEAD.exec(st.source)![0].length,
    });
  }
  return out;
}

/** The doc's text with `**<id>** ` opening each chosen suggestion. */
export function insertIds(text: string, chosen: readonly IdSuggestion[]): string {
  let out = text;
  for (const s of [...chosen].sort((a, b) => b.insertAt - a.insertAt))
    out = `${out.slice(0, s.insertAt)}**${s.id}** ${out.slice(s.insertAt)}`;
  return out;
}
