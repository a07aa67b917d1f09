/**
 * Profile inference: learn a doc type from a team's own accepted docs (docs/profiles.md,
 * "Adopting on your existing specs"). Pure: the caller hands in the files' text.
 *
 * From markdown docs (with or without frontmatter) it learns the sections they actually
 * write (headings normalized, synonyms merged, in their usual order), which of them holds
 * the design, the metadata they carry and where (frontmatter keys, a `Status:` line or a
 * `## Status` section, a sibling file such as `kep.yaml`) with the values they use, and
 * their ID and link patterns. Levels are then calibrated by linting the learned docs with
 * the result: a learned check that the docs themselves fail is lowered or dropped, so the
 * docs it learned from are Build Ready, while the generic defect checks (placeholders, TBD
 * where the design lives, broken links) stay MUST.
 */
import { parse as parseYaml, stringify } from "yaml";
import { lintBundle } from "../lint/engine.js";
import { matchForm, parseHeadingPattern, sectionsMatching, titleMatches } from "../lint/helpers.js";
import { parseMarkdown, type MarkdownDoc, type Section } from "../markdown/document.js";
import { plainYamlMap } from "../markdown/frontmatter.js";
import { parseProfile } from "./load.js";
import type { Profile } from "./schema.js";

export interface InferDoc {
  /** Path of the file (posix), relative to whatever root the caller chose. */
  path: string;
  /** Its text. Markdown files are docs; `.yaml`/`.yml`/`.json` files beside them are metadata; other files only exist (links to them resolve). */
  text: string;
}

export interface InferOptions {
  key: string;
  /** A built-in profile key to extend: the result keeps that profile's checks and overrides what it learned. */
  extends?: string;
  title?: string;
  /** The profile `extends` names, when the caller has it: its section checks the docs never satisfy are disabled. */
  parent?: Profile;
}

export type InferredElementKind = "section" | "metadata" | "id-pattern" | "link-pattern" | "design-section";

export interface InferredElement {
  kind: InferredElementKind;
  name: string;
  /** Share of the learned docs that have it, 0..1. */
  share: number;
  detail?: string;
}

export interface InferredProfile {
  /** profile.yaml text. */
  yaml: string;
  /** template.md text. */
  template: string;
  elements: InferredElement[];
  misfits: Array<{ path: string; why: string }>;
}

/* ------------------------------------------------------------------------------------ */
/* Synonyms                                                                             */

/** Names of one role as teams write them; the first is the display name. `design` marks where a design lives. */
interface SynonymGroup {
  names: string[];
  design?: number;
  /** Sections where undecided items are expected. */
  open?: boolean;
}

const SYNONYMS: SynonymGroup[] = [
  { names: ["Summary", "Introduction", "Abstract", "Overview", "TL;DR", "Executive summary"] },
  { names: ["Motivation", "Why", "Rationale for change"] },
  { names: ["Background", "Context", "Context and problem statement", "Problem statement", "Problem"] },
  { names: ["Goals", "Goals and non-goals", "Objectives"] },
  { names: ["Non-goals", "Non goals", "Out of scope"] },
  {
    names: ["Proposed solution", "Proposal", "Solution", "Proposed change", "Approach", "What's proposed"],
    design: 2,
  },
  {
    names: [
      "Detailed design",
      "Design",
      "Design details",
      "Technical design",
      "Reference-level explanation",
      "Specification",
      "Implementation design",
    ],
    design: 3,
  },
  { names: ["Guide-level explanation", "Explanation", "User guide", "Usage"], design: 1 },
  { names: ["Decision outcome", "Decision", "Decisions", "Chosen option", "Outcome"], design: 3 },
  { names: ["Requirements", "Functional requirements", "User stories"], design: 2 },
  { names: ["Implementation", "Implementation plan", "Implementation details"], design: 1 },
  { names: ["Considered options", "Options considered", "Options"] },
  {
    names: [
      "Alternatives considered",
      "Alternatives",
      "Alternative approaches",
      "Alternatives and rationale",
      "Rationale and alternatives",
      "Considered alternatives",
      "Alternative designs",
    ],
  },
  { names: ["Rationale", "Discussion", "Justification"] },
  { names: ["Consequences", "Positive consequences", "Negative consequences", "Impact"] },
  { names: ["Pros and cons of the options", "Pros and cons"] },
  { names: ["Decision drivers", "Drivers"] },
  { names: ["Source compatibility", "Compatibility", "Backward compatibility", "Backwards compatibility"] },
  { names: ["Drawbacks", "Downsides", "Costs"] },
  { names: ["Prior art", "Related work"] },
  { names: ["Risks and mitigations", "Risks", "Risks and assumptions"] },
  { names: ["Test plan", "Testing", "Tests"] },
  { names: ["Graduation criteria"] },
  { names: ["Open questions", "Unresolved questions", "Open issues", "Questions"], open: true },
  { names: ["Future directions", "Future work", "Future possibilities"], open: true },
  { names: ["Acknowledgments", "Acknowledgements", "Thanks"] },
  { names: ["References", "Links", "See also", "More information"] },
  { names: ["Success metrics", "Metrics", "Success criteria"] },
  { names: ["Non-functional requirements", "Constraints", "Performance", "Limits", "Quality attributes"] },
];

const SKIP_FILE =
  /^(?:readme|index|template|contributing|license|changelog|code_of_conduct|toc|summary)\.(?:md|markdown)$/i;
const MARKDOWN = /\.(?:md|markdown)$/i;
const METADATA = /\.(?:ya?ml|json)$/i;

/* ------------------------------------------------------------------------------------ */
/* Reading the docs                                                                      */

interface TopSection {
  title: string;
  form: string;
  words: number;
  code: boolean;
  section: Section;
}

interface LearnedDoc {
  path: string;
  dir: string;
  base: string;
  text: string;
  doc: MarkdownDoc;
  top: TopSection[];
  words: number;
  /** Metadata found: spoken key -> { value, where }. */
  meta: Map<string, { key: string; value: string; where: string }>;
}

const dirOf = (p: string) => (p.includes("/") ? p.slice(0, p.lastIndexOf("/")) : "");
const baseOf = (p: string) => p.slice(p.lastIndexOf("/") + 1);
const spoken = (key: string) => matchForm(key.replace(/[_-]+/g, " "));

function wordsOf(text: string): number {
  return (text.match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? []).length;
}

/** The heading level a doc's sections are written at: H2 under one H1 title, else the smallest level. */
function sectionLevel(doc: MarkdownDoc): number {
  const heads = doc.sections.filter((s) => s.level > 0);
  if (heads.length === 0) return 0;
  const h1 = heads.filter((s) => s.level === 1);
  if (h1.length === 1 && heads[0] === h1[0]) {
    const rest = heads.slice(1);
    return rest.length === 0 ? 0 : Math.min(...rest.map((s) => s.level));
  }
  return Math.min(...heads.map((s) => s.level));
}

const STATUS_LINE =
  /^[ \t]*(?:[-*+][ \t]+)?(?:\*\*|__)?([A-Za-z][A-Za-z -]{0,28}?)(?:\*\*|__)?[ \t]*:(?:\*\*|__)?[ \t]+(\S.*?)[ \t]*$/gm;

function cleanValue(v: string): string {
  return v
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[*_`]+/g, "")
    .trim();
}

function readMetadata(doc: MarkdownDoc, siblings: Array<{ base: string; text: string }>, level: number) {
  const meta = new Map<string, { key: string; value: string; where: string }>();
  const put = (key: string, value: unknown, where: string) => {
    const k = spoken(key);
    if (k === "" || meta.has(k)) return;
    let v: string;
    if (typeof value === "string") v = value.trim();
    else if (typeof value === "number" || typeof value === "boolean") v = String(value);
    else if (value instanceof Date) v = value.toISOString().slice(0, 10);
    else if (Array.isArray(value)) v = value.map(String).join(", ");
    else if (value && typeof value === "object") v = "{…}";
    else return;
    if (v === "") return;
    meta.set(k, { key, value: v, where });
  };
  if (doc.frontmatter.present && !doc.frontmatter.error)
    for (const [k, v] of Object.entries(doc.frontmatter.data)) put(k, v, "frontmatter");
  // Header lines: before the first section heading at the doc's section level.
  const first = doc.sections.find(
    (s) => s.level > 0 && s.level <= Math.max(1, level) && level > 0 && s.level === level,
  );
  const end = first ? first.charStart : Math.min(doc.text.length, doc.bodyCharStart + 3000);
  const head = doc.text.slice(doc.bodyCharStart, end);
  for (const m of head.matchAll(STATUS_LINE)) {
    const key = m[1]!.trim();
    if (key.split(/\s+/).length > 3 || /^https?$/i.test(key)) continue;
    put(key, cleanValue(m[2]!), "a header line");
  }
  // A `## Status` (or `## Date`) section: its first paragraph is the value.
  for (const s of doc.sections) {
    if (s.level === 0) continue;
    const k = matchForm(s.title);
    if (!["status", "date", "deciders", "decision makers", "authors", "owners"].includes(k)) continue;
    const b = doc.blocks.find(
      (x) => x.charStart >= s.contentCharStart && x.charStart < s.ownCharEnd && x.kind === "paragraph",
    );
    if (b) put(s.title, cleanValue(b.text), "a section of its own");
  }
  for (const f of siblings) {
    let data: unknown = plainYamlMap(f.text);
    if (data === undefined)
      try {
        data = parseYaml(f.text, { maxAliasCount: 100 });
      } catch {
        data = undefined;
      }
    if (data && typeof data === "object" && !Array.isArray(data))
      for (const [k, v] of Object.entries(data as Record<string, unknown>)) put(k, v, f.base);
  }
  return meta;
}

/* ------------------------------------------------------------------------------------ */
/* Grouping sections                                                                     */

interface Group {
  id: string;
  display: string;
  /** Names in the pattern: observed first (by frequency), then the table's. */
  names: string[];
  table?: SynonymGroup;
  docs: Set<number>;
  positions: number[];
  words: number[];
  code: number;
  titles: Map<string, number>;
}

const tableMatchers = SYNONYMS.map((g) => parseHeadingPattern(g.names.map(escapeName).join("|"))[0] ?? []);

function escapeName(n: string): string {
  return n.replace(/[|>\\]/g, (c) => `\\${c}`);
}

function tableGroupOf(title: string): number {
  const form = matchForm(title);
  // The whole heading first ("Rationale and alternatives" is the alternatives role), then its parts.
  for (let i = 0; i < SYNONYMS.length; i++)
    if (SYNONYMS[i]!.names.some((n) => matchForm(n) === form)) return i;
  for (let i = 0; i < SYNONYMS.length; i++) if (titleMatches(title, tableMatchers[i]!)) return i;
  return -1;
}

const singular = (form: string) => form.replace(/(?<=\w{3})(?:ies)$/, "y").replace(/(?<=\w{3})s$/, "");

function patternOf(names: readonly string[]): string {
  return names.map(escapeName).join("|");
}

/* ------------------------------------------------------------------------------------ */
/* The profile                                                                           */

type CheckEntry = Record<string, unknown> & { slug: string };

const PLACEHOLDER_PATTERNS = [
  "\\{\\{[^}\\n]*\\}\\}",
  "\\[(?:TODO|TBD|FIXME)\\b[^\\]\\n]*\\]",
  "\\{(?:Describe|Explain|List|Add|Insert|Write|Fill|Summari[sz]e|Name|State)\\b[^}\\n]*\\}",
  "<(?:insert|describe|add|enter|fill in|your)\\b[^>\\n]*>",
  // "(fill me in)", "(Replace this with ...)", never a parenthetical that says what a name replaces.
  "\\((?:[Ff]ill (?:me )?in|[Rr]eplace (?:this|me|with)\\b)[^)\\n]*\\)",
];
const UNDECIDED = [
  "TBD",
  "TBC",
  "TODO",
  "FIXME",
  "XXX",
  "to be determined",
  "to be decided",
  "to be defined",
];

function share(n: number, of: number): number {
  return of === 0 ? 0 : Math.round((n / of) * 1000) / 1000;
}

/** A parent profile back in its input shape (defaults applied are harmless). */
function profileInput(p: Profile): Record<string, unknown> {
  const { templateText: _t, ...rest } = p;
  void _t;
  return JSON.parse(JSON.stringify(rest)) as Record<string, unknown>;
}

export function inferProfile(input: readonly InferDoc[], opts: InferOptions): InferredProfile {
  const misfits: Array<{ path: string; why: string }> = [];
  const elements: InferredElement[] = [];
  const paths = input.map((d) => d.path.replace(/\\/g, "/"));
  const markdown = input.map((d, i) => ({ ...d, path: paths[i]! })).filter((d) => MARKDOWN.test(d.path));
  const metaFiles = input.map((d, i) => ({ ...d, path: paths[i]! })).filter((d) => METADATA.test(d.path));

  // Docs named unlike the others (a README or template beside numbered proposals) are not learned from.
  const bases = new Map<string, number>();
  for (const d of markdown)
    bases.set(baseOf(d.path).toLowerCase(), (bases.get(baseOf(d.path).toLowerCase()) ?? 0) + 1);
  const [commonBase, commonCount] = [...bases.entries()].sort((a, b) => b[1] - a[1])[0] ?? ["", 0];
  const sameName = markdown.length >= 3 && commonCount / markdown.length >= 0.6;
  const chosen: typeof markdown = [];
  for (const d of markdown) {
    const b = baseOf(d.path);
    if (sameName && b.toLowerCase() !== commonBase)
      misfits.push({ path: d.path, why: `not named ${commonBase} like the others; not learned from` });
    else if (!sameName && SKIP_FILE.test(b))
      misfits.push({ path: d.path, why: "an index, readme or template of the folder; not learned from" });
    else chosen.push(d);
  }

  const docs: LearnedDoc[] = [];
  for (const d of chosen) {
    const doc = parseMarkdown(d.text);
    const level = sectionLevel(doc);
    const dir = dirOf(d.path);
    const siblings = metaFiles
      .filter((m) => dirOf(m.path) === dir)
      .map((m) => ({ base: baseOf(m.path), text: m.text }));
    const top: TopSection[] = [];
    if (level > 0)
      for (const s of doc.sections) {
        if (s.level !== level) continue;
        const text = doc.text.slice(s.contentCharStart, s.charEnd);
        top.push({
          title: s.title,
          form: matchForm(s.title),
          words: wordsOf(text),
          code: /^\s{0,3}(?:```|~~~)/m.test(text),
          section: s,
        });
      }
    const body = doc.text.slice(doc.bodyCharStart);
    if (top.length === 0) {
      misfits.push({ path: d.path, why: "has no sections; not learned from" });
      continue;
    }
    docs.push({
      path: d.path,
      dir,
      base: baseOf(d.path),
      text: d.text,
      doc,
      top,
      words: wordsOf(body),
      meta: readMetadata(doc, siblings, level),
    });
  }
  const n = docs.length;
  if (n === 0) throw new Error("no markdown docs with sections to learn from");

  // Metadata keys that have their own `## Status` section are metadata, not sections.
  const metaSectionForms = new Set(["status", "date", "deciders", "decision makers", "authors", "owners"]);

  // Group the top sections of every doc.
  const groups = new Map<string, Group>();
  docs.forEach((d, di) => {
    const count = d.top.length;
    d.top.forEach((t, ti) => {
      if (t.form === "" || metaSectionForms.has(t.form)) return;
      const ti2 = tableGroupOf(t.title);
      const id = ti2 >= 0 ? `t${ti2}` : `o:${singular(t.form)}`;
      let g = groups.get(id);
      if (!g) {
        g = {
          id,
          display: t.title,
          names: [],
          ...(ti2 >= 0 ? { table: SYNONYMS[ti2]! } : {}),
          docs: new Set(),
          positions: [],
          words: [],
          code: 0,
          titles: new Map(),
        };
        groups.set(id, g);
      }
      if (!g.docs.has(di)) {
        g.docs.add(di);
        g.positions.push(count <= 1 ? 0.5 : ti / (count - 1));
        g.words.push(t.words / Math.max(1, d.words));
        if (t.code) g.code++;
      }
      const clean = t.title.replace(/\s+/g, " ").trim();
      g.titles.set(clean, (g.titles.get(clean) ?? 0) + 1);
    });
  });
  for (const g of groups.values()) {
    const observed = [...g.titles.entries()]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .map(([t]) => t);
    const seen = new Set<string>();
    const names: string[] = [];
    for (const t of [...observed, ...(g.table?.names ?? [])]) {
      // A name with its numbering or emoji is matched by its plain form.
      const form = matchForm(t);
      if (form === "" || seen.has(form)) continue;
      seen.add(form);
      names.push(
        t
          .replace(/^\s*(?:\d+[.)]?\s*)+/, "")
          .replace(/\s*\([^)]*\)\s*/g, " ")
          .trim() || t,
      );
    }
    g.names = names.slice(0, 12);
    g.display = g.names[0] ?? g.display;
  }
  const shareOf = (g: Group) => g.docs.size / n;
  const avg = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
  const frequent = [...groups.values()].filter(
    (g) => shareOf(g) >= 0.3 || (g.docs.size >= 2 && shareOf(g) >= 0.1),
  );

  // Which section holds the design: the known design names first, then the heaviest, most technical one.
  const score = (g: Group) =>
    avg(g.words) * 2 + g.code / Math.max(1, g.docs.size) + (g.table?.design ?? 0) * 0.4 + shareOf(g);
  const candidates = frequent
    .filter((g) => shareOf(g) >= 0.2 && !g.table?.open)
    .sort((a, b) => score(b) - score(a));
  const primary = candidates.find((g) => g.table?.design) ?? candidates[0];
  const designGroups: Group[] = [];
  const covered = new Set<number>();
  const add = (g: Group) => {
    designGroups.push(g);
    for (const i of g.docs) covered.add(i);
  };
  if (primary) add(primary);
  for (const g of [...groups.values()]
    .filter((x) => x !== primary && x.table?.design)
    .sort((a, b) => b.docs.size - a.docs.size))
    if (shareOf(g) >= 0.05 || covered.size / n < 0.97) add(g);
  // Still docs with no design under a known name: take the heaviest sections they write, while that helps.
  for (const g of candidates) {
    if (covered.size / n >= 0.97) break;
    // A role teams name (alternatives, motivation) is never the design, however long.
    if (designGroups.includes(g) || (g.table && !g.table.design)) continue;
    const gain = [...g.docs].filter((i) => !covered.has(i)).length;
    if (gain / n >= 0.02 && avg(g.words) >= 0.15) add(g);
  }
  const designNames = [...new Set(designGroups.flatMap((g) => g.names))];
  // Free-form docs name their design in their own words ("Proposed plan", "Draft design"),
  // and a doc of the set may use any name teams give the design (the shared vocabulary).
  const designPattern = `${patternOf(designNames)}|Proposed*|/\\b(?:design|proposed)$/|@design`;
  const designCovered = docs.filter((d) => sectionsMatching(d.doc, designPattern).length > 0).length;
  for (const g of designGroups)
    elements.push({
      kind: "design-section",
      name: g.display,
      share: share(g.docs.size, n),
      detail: g === primary ? "the main design section" : "also holds the design",
    });

  // Sections in their usual order.
  const ordered = frequent
    .filter((g) => shareOf(g) >= 0.3)
    .sort((a, b) => avg(a.positions) - avg(b.positions));
  for (const g of frequent.sort((a, b) => b.docs.size - a.docs.size))
    elements.push({
      kind: "section",
      name: g.display,
      share: share(g.docs.size, n),
      ...(g.names.length > 1 ? { detail: `also written as: ${g.names.slice(1, 6).join(", ")}` } : {}),
    });

  // Metadata.
  interface MetaKey {
    key: string;
    docs: number;
    where: Map<string, number>;
    values: Map<string, number>;
    raw: string[];
  }
  const metaKeys = new Map<string, MetaKey>();
  for (const d of docs)
    for (const [k, m] of d.meta) {
      let e = metaKeys.get(k);
      if (!e) {
        e = { key: m.key, docs: 0, where: new Map(), values: new Map(), raw: [] };
        metaKeys.set(k, e);
      }
      e.docs++;
      e.where.set(m.where, (e.where.get(m.where) ?? 0) + 1);
      e.raw.push(m.value);
      const head = statusHead(m.value);
      e.values.set(head, (e.values.get(head) ?? 0) + 1);
    }
  const metaLearned = [...metaKeys.values()].filter((m) => m.docs / n >= 0.5).sort((a, b) => b.docs - a.docs);
  const siblingNames = new Map<string, number>();
  for (const d of docs) {
    const names = new Set(metaFiles.filter((m) => dirOf(m.path) === d.dir).map((m) => baseOf(m.path)));
    for (const b of names) siblingNames.set(b, (siblingNames.get(b) ?? 0) + 1);
  }
  const siblingFiles = [...siblingNames.entries()].filter(([, c]) => c / n >= 0.5).map(([b]) => b);
  const metaChecks: CheckEntry[] = [];
  for (const m of metaLearned.slice(0, 10)) {
    const where = [...m.where.entries()].sort((a, b) => b[1] - a[1]).map(([w]) => w);
    const dates = m.raw.every((v) => /^\d{4}-\d{2}-\d{2}/.test(v));
    for (const v of [...m.values.keys()]) if (v === "" || spoken(v) === spoken(m.key)) m.values.delete(v);
    const distinct = [...m.values.keys()];
    const enumerable =
      !dates &&
      distinct.length >= 1 &&
      distinct.length <=
        (/status|state|stage|phase/i.test(m.key) ? 12 : Math.max(2, Math.min(12, m.docs * 0.3))) &&
      distinct.every((v) => v.split(/\s+/).length <= 4 && v.length <= 40 && !/^\d/.test(v));
    const valueList = enumerable
      ? [...m.values.entries()].sort((a, b) => b[1] - a[1]).map(([v]) => v)
      : undefined;
    elements.push({
      kind: "metadata",
      name: m.key,
      share: share(m.docs, n),
      detail: `in ${where.join(", ")}${valueList ? `; values: ${valueList.join(", ")}` : dates ? "; a date (YYYY-MM-DD)" : ""}`,
    });
    const slug = `meta-${slugify(m.key)}`;
    if (slug === "meta-") continue;
    metaChecks.push({
      slug,
      kind: "required-frontmatter",
      level: m.docs / n >= 0.9 ? "SHOULD" : "INFO",
      category: "structure",
      relaxed: true,
      params: {
        key: m.key,
        ...(valueList ? { values: valueList } : {}),
        ...(dates ? { pattern: "\\d{4}-\\d{2}-\\d{2}" } : {}),
        ...(where.some((w) => siblingFiles.includes(w)) ? { files: siblingFiles } : {}),
      },
    });
  }
  for (const b of siblingFiles)
    elements.push({
      kind: "metadata",
      name: b,
      share: share(siblingNames.get(b)!, n),
      detail: "a sibling metadata file",
    });

  // ID patterns: the doc's own ID (SE-0123) and trace IDs (REQ-001).
  const idDocs = new Map<string, { docs: number; perDoc: number[]; width: number }>();
  for (const d of docs) {
    const found = new Map<string, Set<string>>();
    for (const m of d.text.matchAll(/\b([A-Z][A-Z0-9]{0,9})-(\d{2,6})\b/g)) {
      const key = `${m[1]}-${m[2]!.length}`;
      if (!found.has(key)) found.set(key, new Set());
      found.get(key)!.add(m[0]);
    }
    for (const [k, ids] of found) {
      const e = idDocs.get(k) ?? { docs: 0, perDoc: [], width: Number(k.split("-")[1]) };
      e.docs++;
      e.perDoc.push(ids.size);
      idDocs.set(k, e);
    }
  }
  const idChecks: CheckEntry[] = [];
  const tracePrefixes: string[] = [];
  for (const [k, e] of [...idDocs.entries()].sort((a, b) => b[1].docs - a[1].docs)) {
    if (e.docs / n < 0.3) continue;
    const prefix = k.split("-")[0]!;
    const example = `${prefix}-${"N".repeat(e.width)}`;
    const many = avg(e.perDoc) >= 3;
    elements.push({
      kind: "id-pattern",
      name: example,
      share: share(e.docs, n),
      detail: many ? `about ${Math.round(avg(e.perDoc))} per doc` : "the doc's own ID",
    });
    if (many && /^(?:REQ|FR|NFR|US|AC|DES|R|F)$/.test(prefix)) tracePrefixes.push(prefix);
    else if (!many && e.docs / n >= 0.9 && idChecks.length === 0)
      idChecks.push({
        slug: "doc-id",
        kind: "required-pattern",
        level: "INFO",
        category: "structure",
        relaxed: true,
        params: {
          what: `the doc's ID (${example})`,
          patterns: [`\\b${prefix}-\\d{${e.width}}\\b`],
          case_sensitive: true,
        },
      });
  }

  // Link patterns: where the docs link to (a discussion, an issue tracker, other docs of the set).
  const linkDocs = new Map<string, number>();
  for (const d of docs) {
    const seen = new Set<string>();
    for (const l of d.doc.links) {
      if (l.kind !== "link") continue;
      const abs = /^https?:\/\/([^/?#]+)(\/[^/?#]*)?/i.exec(l.href);
      let key: string | undefined;
      if (abs)
        key = `${abs[1]!.toLowerCase().replace(/^www\./, "")}${abs[2] && /^\/(?:t|issues?|pull|discussions|proposals?|cl|c|rfcs?|keps?)$/i.test(abs[2]) ? abs[2] : ""}`;
      else if (/^[^:#]+\.(?:md|markdown)(?:#.*)?$/i.test(l.href))
        key = "relative links to other docs of the set";
      if (key && !seen.has(key)) {
        seen.add(key);
        linkDocs.set(key, (linkDocs.get(key) ?? 0) + 1);
      }
    }
  }
  const linkChecks: CheckEntry[] = [];
  for (const [k, c] of [...linkDocs.entries()].sort((a, b) => b[1] - a[1]).slice(0, 6)) {
    if (c / n < 0.3) continue;
    elements.push({ kind: "link-pattern", name: k, share: share(c, n) });
    if (linkChecks.length === 0 && c / n >= 0.9 && k.includes("/") && !k.startsWith("relative"))
      linkChecks.push({
        slug: "discussion-link",
        kind: "required-pattern",
        level: "INFO",
        category: "structure",
        relaxed: true,
        params: { what: `a link to ${k}`, patterns: [escapeRe(k)] },
      });
  }

  // The checks.
  const openGroups = [...groups.values()].filter((g) => g.table?.open && g.docs.size > 0);
  const openPattern = patternOf([
    ...new Set([
      ...openGroups.flatMap((g) => g.names),
      "Open questions",
      "Unresolved questions",
      "Open issues",
      "Future directions",
      "Future work",
      "Future possibilities",
    ]),
  ]);
  const sectionChecks: CheckEntry[] = [];
  const usedSlugs = new Set<string>();
  const parentSlug = opts.parent?.checks.find(
    (c) => c.kind === "required-section" && c.level === "MUST",
  )?.slug;
  const designSlug = parentSlug ?? "design";
  usedSlugs.add(designSlug);
  sectionChecks.push({
    slug: designSlug,
    kind: "required-section",
    level: designCovered / n >= 0.9 ? "MUST" : "SHOULD",
    category: "completeness",
    description: "Where the design lives in these docs: without it there is nothing to build.",
    // A doc of the set written under headings of its own (a free-form design note) keeps its design there.
    params: { section: designPattern || "Design*|Proposal|Specification", freeform: true },
  });
  for (const g of frequent
    .filter((x) => !designGroups.includes(x))
    .sort((a, b) => b.docs.size - a.docs.size)) {
    const s = shareOf(g);
    if (s < 0.6 || sectionChecks.length >= 12) continue;
    let slug = `section-${slugify(g.display)}`;
    if (slug === "section-" || usedSlugs.has(slug)) slug = `section-${sectionChecks.length}`;
    usedSlugs.add(slug);
    sectionChecks.push({
      slug,
      kind: "required-section",
      level: s >= 0.9 ? "SHOULD" : "INFO",
      category: "completeness",
      relaxed: true,
      params: { section: patternOf(g.names), min_words: 1 },
    });
  }
  const orderNames = ordered.map((g) => patternOf(g.names));
  const otherChecks: CheckEntry[] = [
    {
      slug: "template-placeholder",
      kind: "forbidden-pattern",
      level: "MUST",
      category: "completeness",
      description: "Text of the template left in the doc; a builder cannot act on it.",
      message: "Template placeholder '{match}' is not filled in",
      params: { placeholders: true, patterns: PLACEHOLDER_PATTERNS, case_sensitive: true },
    },
    {
      slug: "undecided",
      kind: "forbidden-pattern",
      level: "MUST",
      category: "clarity",
      description: "An open decision where the design lives is a decision the builder makes alone.",
      message: "'{match}' in the design: decide it, or move it to the open questions",
      params: { phrases: UNDECIDED, sections: [designPattern], exclude_sections: [openPattern] },
    },
    {
      slug: "undecided-elsewhere",
      kind: "forbidden-pattern",
      level: "SHOULD",
      category: "clarity",
      relaxed: true,
      message: "'{match}' marks something undecided: decide it, or move it to the open questions",
      params: { phrases: UNDECIDED, sections: ["*"], exclude_sections: [designPattern, openPattern] },
    },
    {
      slug: "measurable",
      kind: "measurable",
      level: "SHOULD",
      category: "clarity",
      relaxed: true,
      params: { sections: [designPattern] },
    },
    {
      slug: "vague-quantity",
      kind: "vague-quantity",
      level: "SHOULD",
      category: "clarity",
      relaxed: true,
      description:
        "A requirement whose quantity is a vague word ('a reasonable time', 'a few retries') cannot be built or tested to.",
    },
    {
      slug: "contradiction",
      kind: "contradiction",
      level: "MUST",
      category: "clarity",
      description: "Two requirements that cannot both hold; the builder would pick one alone.",
    },
    {
      slug: "links-resolve",
      kind: "links-resolve",
      level: "MUST",
      category: "structure",
      description: "A link inside the bundle or repository that leads nowhere.",
    },
    ...(orderNames.length >= 2
      ? [
          {
            slug: "section-order",
            kind: "section-order",
            level: "INFO",
            category: "structure",
            relaxed: true,
            params: { order: orderNames },
          },
        ]
      : []),
    {
      slug: "empty-section",
      kind: "empty-section",
      level: "INFO",
      category: "structure",
      relaxed: true,
      params: { ignore: [openPattern] },
    },
  ];

  const title = opts.title ?? `${titleCase(opts.key)} (learned)`;
  const description = `Learned from ${n} accepted doc${n === 1 ? "" : "s"}: ${ordered
    .slice(0, 8)
    .map((g) => g.display)
    .join(", ")}.`;
  const headingHints = ordered.slice(0, 10).map((g) => patternOf(g.names.slice(0, 4)));

  const parent = opts.parent;
  const parentInput = parent ? profileInput(parent) : undefined;
  const parentCats = new Set(parent?.radar.map((r) => r.key) ?? []);
  const cat = (c: string) => (!parent || parentCats.has(c) ? c : parent.radar[0]!.key);

  let checks: CheckEntry[];
  if (opts.extends) {
    // Only what differs from the parent: the learned sections, metadata and design scope.
    const own = [...sectionChecks, ...metaChecks, ...idChecks, ...linkChecks];
    const generic = otherChecks.filter((c) =>
      ["undecided", "undecided-elsewhere", "section-order", "empty-section"].includes(c.slug),
    );
    checks = [
      ...own,
      ...generic.map((c) => ({ slug: c.slug, ...(c["params"] ? { params: c["params"] } : {}) })),
    ];
    if (parent) {
      const has = new Set(parent.checks.map((c) => c.slug));
      // Generic overrides of checks the parent lacks become whole entries.
      checks = checks.map((c) =>
        has.has(c.slug) || c["kind"] ? c : { ...otherChecks.find((o) => o.slug === c.slug)! },
      );
      // The parent's section and metadata checks these docs do not satisfy go.
      const mine = new Set(checks.map((c) => c.slug));
      const lint = calibrate(docs, input, buildParsed({}, parentInput!, parent.key));
      for (const c of parent.checks) {
        if (mine.has(c.slug)) continue;
        if (
          c.kind !== "required-section" &&
          c.kind !== "required-frontmatter" &&
          c.kind !== "required-pattern" &&
          c.kind !== "section-order"
        )
          continue;
        const failing = lint.failingDocs.get(c.slug) ?? 0;
        if (failing / n > 0.1) checks.push({ slug: c.slug, disabled: true });
      }
    }
    checks = checks.map((c) => (c["category"] ? { ...c, category: cat(c["category"] as string) } : c));
  } else checks = [...sectionChecks, ...otherChecks, ...metaChecks, ...idChecks, ...linkChecks];

  const body: Record<string, unknown> = {
    ...(opts.extends ? { extends: opts.extends } : {}),
    key: opts.key,
    title,
    description,
    ...(opts.extends ? {} : { template: "template.md" }),
    heading_hints: headingHints,
    ...(opts.extends
      ? {}
      : {
          radar: [
            {
              key: "completeness",
              title: "Completeness",
              description: "The sections this team writes are there and say something.",
            },
            {
              key: "clarity",
              title: "Clarity",
              description: "Nothing is left undecided where the design lives.",
            },
            {
              key: "structure",
              title: "Structure",
              description: "Metadata, links and section order hold together.",
            },
          ],
        }),
    ...(tracePrefixes.length > 0 ? { verify_prefixes: tracePrefixes } : {}),
    // One size: the learned checks apply to every doc (a parent's sizes may skip checks disabled here).
    sizes: { default: "standard", values: [{ key: "standard", title: "Any doc of this type" }] },
    checks,
  };

  // Calibrate: lint the learned docs with the result; a learned check they fail is lowered or dropped.
  const resolved = (b: Record<string, unknown>) => buildParsed(parentInput ?? {}, b, opts.key);
  let profile = resolved(body);
  for (let round = 0; round < 3 && profile; round++) {
    const lint = calibrate(docs, input, profile);
    let changed = false;
    const list = body["checks"] as CheckEntry[];
    for (let i = list.length - 1; i >= 0; i--) {
      const c = list[i]!;
      const failing = lint.failingDocs.get(c.slug) ?? 0;
      if (failing === 0 || GENERIC.has(c.slug) || c["disabled"] === true) continue;
      const effective = profile.checks.find((x) => x.slug === c.slug);
      if (!effective) continue;
      if (effective.level === "MUST" && failing / n > (c.slug === designSlug ? 0.1 : 0.03)) {
        list[i] = { ...c, level: "SHOULD" };
        changed = true;
      } else if (effective.level !== "MUST" && failing / n > 0.2 && c.slug !== designSlug) {
        const params = c["params"] as Record<string, unknown> | undefined;
        if (effective.kind === "required-frontmatter" && (params?.["values"] || params?.["pattern"])) {
          const { values: _v, pattern: _p, ...rest } = params;
          void _v;
          void _p;
          list[i] = { ...c, params: rest };
        } else list.splice(i, 1);
        changed = true;
      }
    }
    if (!changed) break;
    profile = resolved(body);
  }
  // Without the parent in hand (extends only named), the result is not calibrated.
  if (!profile && !(opts.extends && !parent))
    throw new Error("the learned profile does not validate (a bug): please report it");
  if (profile)
    for (const [path, why] of calibrate(docs, input, profile).mustByDoc) misfits.push({ path, why });
  for (const d of docs)
    if (
      !designGroups.some((g) => g.docs.has(docs.indexOf(d))) &&
      !sectionsMatching(d.doc, designPattern).length
    )
      if (!misfits.some((m) => m.path === d.path))
        misfits.push({
          path: d.path,
          why: `no section the design is found under (${designNames.slice(0, 4).join(", ")}…)`,
        });

  const yaml = `# yaml-language-server: $schema=../../schemas/profile.schema.json\n# Learned by \`spec-review profile infer\` from ${n} doc${n === 1 ? "" : "s"}; edit freely.\n${stringify(body, { lineWidth: 0, aliasDuplicateObjects: false })}`;
  const template = buildTemplate(title, ordered, designGroups, metaLearned, docs);
  elements.sort((a, b) => KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) || b.share - a.share);
  return { yaml, template, elements, misfits };
}

const KIND_ORDER: InferredElementKind[] = [
  "design-section",
  "section",
  "metadata",
  "id-pattern",
  "link-pattern",
];
const GENERIC = new Set(["template-placeholder", "undecided", "contradiction", "links-resolve"]);

/** The leading words of a metadata value: "Implemented (Swift 5.5)" -> "implemented", "Superseded by ADR-5" -> "superseded by". */
function statusHead(value: string): string {
  const words: string[] = [];
  for (const w of value.split(/[\s,;:()[\]]+/)) {
    if (w === "" && words.length === 0) continue;
    if (!/^[\p{L}'’-]+$/u.test(w) || words.length >= 4) break;
    words.push(w.toLowerCase());
  }
  return words.join(" ");
}

function slugify(s: string): string {
  return matchForm(s)
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40)
    .replace(/-+$/, "")
    .replace(/^(?=\d)/, "s");
}

function titleCase(key: string): string {
  return key
    .split("-")
    .map((w) => (w ? w[0]!.toUpperCase() + w.slice(1) : w))
    .join(" ");
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function buildParsed(
  parent: Record<string, unknown>,
  child: Record<string, unknown>,
  key: string,
): Profile | undefined {
  const hasParent = Object.keys(parent).length > 0;
  const own = hasParent ? { ...child, extends: parent["key"] as string } : child;
  const r = parseProfile(stringify({ ...own, key }), {
    key,
    // The parent handed in, resolved the way the profile loader resolves `extends`.
    ...(hasParent
      ? { parent: () => ({ yaml: stringify(parent), file: `(built-in ${String(parent["key"])})` }) }
      : {}),
  });
  return r.ok ? r.profile : undefined;
}

interface Calibration {
  /** Check slug -> docs with a finding of it (at any level). */
  failingDocs: Map<string, number>;
  /** Docs with MUST findings, and what they are. */
  mustByDoc: Array<[string, string]>;
}

function calibrate(
  docs: readonly LearnedDoc[],
  all: readonly InferDoc[],
  profile: Profile | undefined,
): Calibration {
  const failingDocs = new Map<string, number>();
  const mustByDoc: Array<[string, string]> = [];
  if (!profile) return { failingDocs, mustByDoc };
  const byDir = new Map<string, Map<string, string>>();
  for (const f of all) {
    const p = f.path.replace(/\\/g, "/");
    const dir = dirOf(p);
    if (!byDir.has(dir)) byDir.set(dir, new Map());
    byDir.get(dir)!.set(baseOf(p), f.text);
  }
  for (const d of docs) {
    const files = byDir.get(d.dir) ?? new Map([[d.base, d.text]]);
    const result = lintBundle({
      files,
      mainPath: d.base,
      profile,
      readFile: (p) => files.get(p),
    });
    const seen = new Set<string>();
    const must: string[] = [];
    for (const f of result.findings) {
      if (!seen.has(f.check)) {
        seen.add(f.check);
        failingDocs.set(f.check, (failingDocs.get(f.check) ?? 0) + 1);
      }
      if (f.level === "MUST") must.push(`${f.check}: ${f.message}`);
    }
    if (must.length > 0)
      mustByDoc.push([
        d.path,
        `MUST with the learned profile: ${must.slice(0, 3).join("; ")}${must.length > 3 ? ` (+${must.length - 3})` : ""}`,
      ]);
  }
  return { failingDocs, mustByDoc };
}

function buildTemplate(
  title: string,
  ordered: readonly Group[],
  designGroups: readonly Group[],
  meta: ReadonlyArray<{ key: string; where: Map<string, number>; values: Map<string, number> }>,
  docs: readonly LearnedDoc[],
): string {
  const lines: string[] = [];
  const fmKeys = meta.filter(
    (m) => (m.where.get("frontmatter") ?? 0) * 2 >= [...m.where.values()].reduce((a, b) => a + b, 0),
  );
  const lineKeys = meta.filter(
    (m) => (m.where.get("a header line") ?? 0) * 2 > [...m.where.values()].reduce((a, b) => a + b, 0),
  );
  const first = (m: { values: Map<string, number> }) =>
    [...m.values.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  if (fmKeys.length > 0) {
    lines.push("---");
    for (const m of fmKeys)
      lines.push(`${m.key}: ${/status/i.test(m.key) ? (first(m) ?? "{{value}}") : `"{{${m.key}}}"`}`);
    lines.push("---", "");
  }
  const h1 = docs.filter((d) => d.doc.sections.some((s) => s.level === 1)).length * 2 >= docs.length;
  const level = h1 ? "##" : "#";
  if (h1) lines.push(`# {{Title}}`, "");
  if (lineKeys.length > 0) {
    const bullet = docs.some((d) =>
      /^[*-]\s+\S[^:\n]{0,30}:/m.test(d.text.slice(d.doc.bodyCharStart, d.top[0]?.section.charStart)),
    );
    for (const m of lineKeys)
      lines.push(
        `${bullet ? "* " : ""}${m.key}: ${/status/i.test(m.key) ? (first(m) ?? "{{value}}") : `{{${m.key}}}`}`,
      );
    lines.push("");
  }
  const sections = ordered.length > 0 ? ordered : designGroups;
  for (const g of sections) {
    lines.push(`${level} ${g.display}`, "");
    if (designGroups.includes(g))
      lines.push(
        "<!-- The design: precise enough to build from. -->",
        "",
        `{{Describe the ${g.display.toLowerCase()}}}`,
        "",
      );
    else if (g.table?.open)
      lines.push("<!-- What is still open, and who decides it. -->", "", "{{List the open questions}}", "");
    else lines.push(`{{Write the ${g.display.toLowerCase()}}}`, "");
  }
  void title;
  return `${lines.join("\n").trimEnd()}\n`;
}
