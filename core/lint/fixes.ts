/**
 * Fixes of findings: the text edits that answer a finding, for every surface that offers
 * them (the language server's code actions, the Action's suggestions, the dashboard).
 *
 * - required-section, when the section is missing: its heading, and the template's
 *   prompt under it, inserted where the profile's order puts it (the `section-order`
 *   check's order, else the template's), at the level of the sections around it.
 * - required-frontmatter, when the key is given nowhere: the key added to the
 *   frontmatter (with the first allowed value when the check lists values), or a
 *   frontmatter holding it when the doc has none.
 * - a placeholder (a `forbidden-pattern` check with `placeholders`): nothing to write for
 *   the writer; the fix shows the range to fill in.
 *
 * Pure: string offsets into the doc's text (`doc.text`), never bytes.
 */
import type { MarkdownDoc, Section } from "../markdown/document.js";
import { parseMarkdown } from "../markdown/document.js";
import type { Profile, ProfileCheck } from "../profile/schema.js";
import { matchesHeadingPattern, parseHeadingPattern, patternLabel, sectionsMatching } from "./helpers.js";
import type { Finding } from "./types.js";

/** Replace `[charStart, charEnd)` of the doc's text with `text` (an insertion when they are equal). */
export interface CharEdit {
  charStart: number;
  charEnd: number;
  text: string;
}

export type FindingFix =
  | { kind: "edit"; title: string; edits: CharEdit[] }
  /** Nothing to write for the writer: show them the range (a placeholder to fill in). */
  | { kind: "show"; title: string; charStart: number; charEnd: number };

/** The profile entry a finding comes from; undefined for engine findings. */
function entryOf(profile: Profile, finding: Finding): ProfileCheck | undefined {
  return profile.checks.find((c) => c.slug === finding.check);
}

/** The fix of a finding of this doc, when its check has one. */
export function findingFix(doc: MarkdownDoc, profile: Profile, finding: Finding): FindingFix | undefined {
  const entry = entryOf(profile, finding);
  if (!entry) return undefined;
  const params = (entry.params ?? {}) as Record<string, unknown>;
  switch (entry.kind) {
    case "required-section":
      return typeof params["section"] === "string"
        ? missingSection(doc, profile, params["section"])
        : undefined;
    case "required-frontmatter":
      return typeof params["key"] === "string"
        ? missingKey(doc, params["key"], stringList(params["aliases"]), stringList(params["values"]))
        : undefined;
    case "forbidden-pattern": {
      if (params["placeholders"] !== true) return undefined;
      const charStart = doc.index.charOf(finding.anchor.start);
      const charEnd = doc.index.charOf(finding.anchor.end);
      return { kind: "show", title: "Show the placeholder to fill in", charStart, charEnd };
    }
    default:
      return undefined;
  }
}

const stringList = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];

/** A stand-in section with one title, to match a name against a heading pattern. */
function titled(title: string): Section {
  return { heading_path: [title], title, level: 1 } as Section;
}

/** Does a heading title answer to the last level of a pattern? */
function titleFits(title: string, pattern: string): boolean {
  const parsed = parseHeadingPattern(pattern);
  const last = parsed[parsed.length - 1];
  return last !== undefined && matchesHeadingPattern(titled(title), [last]);
}

interface TemplateSection {
  title: string;
  level: number;
  prompt: string;
}

const templateCache = new WeakMap<Profile, MarkdownDoc | null>();
function templateDoc(profile: Profile): MarkdownDoc | undefined {
  let doc = templateCache.get(profile);
  if (doc === undefined) {
    doc = profile.templateText ? parseMarkdown(profile.templateText) : null;
    templateCache.set(profile, doc);
  }
  return doc ?? undefined;
}

/** The template's section for a pattern: its title, level and the prompt under it. */
function templateSection(profile: Profile, pattern: string): TemplateSection | undefined {
  const t = templateDoc(profile);
  if (!t) return undefined;
  const parsed = parseHeadingPattern(pattern);
  const s = t.sections.find((x) => x.level > 0 && matchesHeadingPattern(x, parsed));
  if (!s) return undefined;
  return { title: s.title, level: s.level, prompt: t.text.slice(s.contentCharStart, s.ownCharEnd).trim() };
}

/** The order of sections the profile gives: its section-order check's, else its template's headings. */
function profileOrder(profile: Profile): string[] {
  for (const c of profile.checks) {
    const order = (c.params as { order?: unknown } | undefined)?.order;
    if (c.kind === "section-order" && Array.isArray(order)) return stringList(order);
  }
  const t = templateDoc(profile);
  if (!t) return [];
  const top = Math.min(...t.sections.filter((s) => s.level > 0).map((s) => s.level));
  return t.sections.filter((s) => s.level === top).map((s) => s.title.replace(/[|>\\]/g, "\\$&"));
}

/** A heading's title when the pattern's first name is a vocabulary (`@design`): "Design". */
function labelTitle(pattern: string): string {
  const label = patternLabel(pattern).split(" > ").pop()!.trim();
  if (!label.startsWith("@")) return label;
  const word = label.slice(1).replace(/-/g, " ");
  return word.charAt(0).toUpperCase() + word.slice(1);
}

function missingSection(doc: MarkdownDoc, profile: Profile, pattern: string): FindingFix | undefined {
  if (sectionsMatching(doc, pattern).length > 0) return undefined;
  const tpl = templateSection(profile, pattern);
  const title = tpl?.title ?? labelTitle(pattern);
  const order = profileOrder(profile);
  const k = order.findIndex((o) => titleFits(title, o) || titleFits(o, pattern));
  const firstIn = (o: string) => doc.sections.find((s) => s.level > 0 && titleFits(s.title, o));
  let at: number | undefined;
  let level: number | undefined;
  if (k >= 0) {
    for (let i = k - 1; i >= 0 && at === undefined; i--) {
      const s = firstIn(order[i]!);
      if (s) [at, level] = [s.charEnd, s.level];
    }
    for (let i = k + 1; i < order.length && at === undefined; i++) {
      const s = firstIn(order[i]!);
      if (s) [at, level] = [s.charStart, s.level];
    }
  }
  if (at === undefined) {
    at = doc.text.length;
    const levels = doc.sections.filter((s) => s.level > 0).map((s) => s.level);
    // Below a lone title (`# Name` over `##` sections) a new section goes one level down.
    const top = levels.length ? Math.min(...levels) : (tpl?.level ?? 2);
    level = levels.filter((l) => l === top).length === 1 && levels.length > 1 ? top + 1 : top;
  }
  level = Math.min(6, Math.max(1, level ?? tpl?.level ?? 2));
  const block = `${"#".repeat(level)} ${title}\n${tpl?.prompt ? `\n${tpl.prompt}\n` : ""}`;
  return {
    kind: "edit",
    title: `Add the section '${title}'`,
    edits: [{ charStart: at, charEnd: at, text: padded(doc.text, at, block) }],
  };
}

/** A block inserted at `at` with a blank line before it and, when text follows, after it. */
function padded(text: string, at: number, block: string): string {
  const before = text.slice(Math.max(0, at - 2), at);
  const lead = at === 0 ? "" : before.endsWith("\n\n") ? "" : before.endsWith("\n") ? "\n" : "\n\n";
  const trail = at < text.length ? "\n" : "";
  return `${lead}${block}${trail}`;
}

/** A key as a writer would spell it: `Decision-Makers` matches `decision_makers`. */
const keyForm = (k: string) => k.toLowerCase().replace(/[\s_-]+/g, " ");

function missingKey(
  doc: MarkdownDoc,
  key: string,
  aliases: readonly string[],
  values: readonly string[],
): FindingFix | undefined {
  const fm = doc.frontmatter;
  if (fm.error) return undefined;
  const names = new Set([key, ...aliases].map(keyForm));
  if (Object.keys(fm.data).some((k) => names.has(keyForm(k)))) return undefined;
  const line = `${key}: ${values[0] ?? ""}`.trimEnd();
  const title = `Add '${key}' to the frontmatter`;
  const eol = doc.text.includes("\r\n") ? "\r\n" : "\n";
  if (fm.present && doc.frontmatterCharStart >= 0) {
    const end = doc.frontmatterCharStart + fm.raw.length;
    const needsBreak = fm.raw.length > 0 && !fm.raw.endsWith("\n");
    return {
      kind: "edit",
      title,
      edits: [{ charStart: end, charEnd: end, text: `${needsBreak ? eol : ""}${line}${eol}` }],
    };
  }
  const at = doc.text.charCodeAt(0) === 0xfeff ? 1 : 0;
  return {
    kind: "edit",
    title,
    edits: [{ charStart: at, charEnd: at, text: `---${eol}${line}${eol}---${eol}` }],
  };
}

/** A text with edits applied (edits do not overlap). */
export function applyEdits(text: string, edits: readonly CharEdit[]): string {
  let out = text;
  for (const e of [...edits].sort((a, b) => b.charStart - a.charStart))
    out = out.slice(0, e.charStart) + e.text + out.slice(e.charEnd);
  return out;
}
