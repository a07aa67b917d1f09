/**
 * What the readers may read: the bundle's text files and the main docs of its linked
 * bundles, cut into sections. Quotes are checked against this text (`found`), and each
 * reader prompt carries only the sections a question needs (the ones it cites, then the
 * best matches by shared words), so an edit to one section changes only the prompts
 * that read it, and the step cache answers the rest.
 */
import { anchorAt, locateQuote, type Anchor } from "../anchor/anchor.js";
import { parseMarkdown, type MarkdownDoc, type Section } from "../markdown/document.js";

export interface ReviewFile {
  /** Bundle-relative posix path. */
  path: string;
  text: string;
}

export interface LinkedBundle {
  /** How prompts name it: the bundle's slug. */
  name: string;
  /** Its main doc. */
  file: ReviewFile;
}

export interface ReviewBundle {
  /** Text files of the bundle (markdown and other text); binary files are left out. */
  files: ReviewFile[];
  /** Path of the spec doc among `files`. */
  mainPath: string;
  linked: LinkedBundle[];
}

/** One section of one file of the corpus. */
export interface CorpusSection {
  /** `file#heading > path` (with `@bundle:` for a linked bundle), unique in the corpus. */
  key: string;
  /** `main` (the spec doc), `bundle` (another file of the bundle) or `linked`. */
  source: "main" | "bundle" | "linked";
  file: string;
  bundle?: string;
  heading_path: string[];
  /** The section's own text (heading line and content up to its first subsection); no frontmatter. */
  text: string;
  /** Index in the main doc's `sections` (main sections only). */
  sectionIndex?: number;
  /** Lowercased distinctive words, for matching questions to sections. */
  words: ReadonlySet<string>;
}

export interface Corpus {
  main: MarkdownDoc;
  mainPath: string;
  /** Main-doc sections with text, in document order; the stages work section by section. */
  mainSections: CorpusSection[];
  /** Every section of every file, main doc first. */
  sections: CorpusSection[];
  /** Whitespace-collapsed text of every file, for quote checks. */
  haystacks: Array<{ file: string; bundle?: string; text: string }>;
}

const STOP = new Set(
  (
    "about above after again against also because been before being below between both could does doing down during each " +
    "every from further have having here itself just more most must once only other over same shall should some such than " +
    "that their them then there these they this those through under until very were what when where which while will with " +
    "within without would your yours into onto upon each used uses using like make made need needs want wants able"
  ).split(" "),
);

export function wordsOf(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.toLowerCase().matchAll(/[\p{L}\p{N}][\p{L}\p{N}_-]{3,}/gu)) {
    const w = m[0];
    if (!STOP.has(w)) out.add(w);
  }
  return out;
}

/** Whitespace runs as one space, typographic quotes as plain ones; for comparing quotes. */
export function normalizeSpace(text: string): string {
  return text
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/\s+/g, " ")
    .trim();
}

function sectionsOf(
  doc: MarkdownDoc,
  file: string,
  source: CorpusSection["source"],
  bundle?: string,
): CorpusSection[] {
  const out: CorpusSection[] = [];
  const seen = new Map<string, number>();
  for (const s of doc.sections) {
    const from = s.index === 0 ? doc.bodyCharStart : s.charStart;
    const text = doc.text.slice(from, s.ownCharEnd).trim();
    // A heading with nothing under it but subsections has nothing to read or ask about.
    const body = s.index === 0 ? text : doc.text.slice(s.contentCharStart, s.ownCharEnd).trim();
    if (body === "") continue;
    const base = `${bundle ? `@${bundle}:` : ""}${file}#${s.heading_path.join(" > ")}`;
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    out.push({
      key: n === 1 ? base : `${base}#${n}`,
      source,
      file,
      ...(bundle ? { bundle } : {}),
      heading_path: s.heading_path,
      text,
      ...(source === "main" ? { sectionIndex: s.index } : {}),
      words: wordsOf(text),
    });
  }
  return out;
}

export function buildCorpus(bundle: ReviewBundle): Corpus {
  const mainFile = bundle.files.find((f) => f.path === bundle.mainPath);
  const main = parseMarkdown(mainFile?.text ?? "");
  const mainSections = sectionsOf(main, bundle.mainPath, "main");
  const sections = [...mainSections];
  const haystacks: Corpus["haystacks"] = [{ file: bundle.mainPath, text: normalizeSpace(main.text) }];
  for (const f of bundle.files) {
    if (f.path === bundle.mainPath) continue;
    haystacks.push({ file: f.path, text: normalizeSpace(f.text) });
    if (/\.(md|markdown)$/i.test(f.path))
      sections.push(...sectionsOf(parseMarkdown(f.text), f.path, "bundle"));
  }
  for (const l of bundle.linked) {
    haystacks.push({ file: l.file.path, bundle: l.name, text: normalizeSpace(l.file.text) });
    sections.push(...sectionsOf(parseMarkdown(l.file.text), l.file.path, "linked", l.name));
  }
  return { main, mainPath: bundle.mainPath, mainSections, sections, haystacks };
}

/** Where a quote is in the corpus (whitespace and quote marks aside); undefined when nowhere. */
export function findQuote(corpus: Corpus, quote: string): { file: string; bundle?: string } | undefined {
  const q = normalizeSpace(quote.replace(/^(?:\.\.\.|…)|(?:\.\.\.|…)$/g, ""));
  if (q.length < 3) return undefined;
  for (const h of corpus.haystacks)
    if (h.text.includes(q)) return { file: h.file, ...(h.bundle ? { bundle: h.bundle } : {}) };
  return undefined;
}

/** A section label as prompts show it. */
export function sectionLabel(s: CorpusSection): string {
  const where = s.bundle ? `linked bundle ${s.bundle}, ${s.file}` : s.file;
  return s.heading_path.length > 0 ? `${where} › ${s.heading_path.join(" › ")}` : `${where} (top)`;
}

/**
 * The sections a question is answered from: those it cites, then up to `extra` more that
 * share the most distinctive words with it (corpus order breaks ties), within `maxChars`.
 */
export function contextFor(
  corpus: Corpus,
  cited: readonly string[],
  query: string,
  opts: { extra?: number; maxChars?: number } = {},
): CorpusSection[] {
  const extra = opts.extra ?? 2;
  const maxChars = opts.maxChars ?? 16_000;
  const picked: CorpusSection[] = [];
  const keys = new Set<string>();
  for (const key of cited) {
    const s = corpus.sections.find((x) => x.key === key);
    if (s && !keys.has(s.key)) {
      picked.push(s);
      keys.add(s.key);
    }
  }
  const q = wordsOf(query);
  // A word found in most sections says little: weigh by rarity.
  const df = new Map<string, number>();
  for (const s of corpus.sections) for (const w of q) if (s.words.has(w)) df.set(w, (df.get(w) ?? 0) + 1);
  const scored = corpus.sections
    .map((s, i) => {
      let score = 0;
      for (const w of q) if (s.words.has(w)) score += 1 / (df.get(w) ?? 1);
      return { s, i, score };
    })
    .filter((x) => x.score > 0 && !keys.has(x.s.key))
    .sort((a, b) => b.score - a.score || a.i - b.i);
  for (const { s } of scored.slice(0, extra)) {
    picked.push(s);
    keys.add(s.key);
  }
  let total = 0;
  return picked.filter((s) => (total += s.text.length) <= maxChars || s === picked[0]);
}

/**
 * The sections readers answer a build question from: those it cites, then the two that
 * share the most words with the question and the statement it quotes. The quote counts
 * because a terse question ("What does REQ-001 require?") names little of its subject,
 * while the statement it asks about does; what readers see then does not hang on how
 * many words the model spent on the question.
 */
export function readerContext(
  corpus: Corpus,
  cited: readonly string[],
  question: string,
  quote: string,
): CorpusSection[] {
  return contextFor(corpus, cited, `${question}\n${quote}`);
}

/** The main-doc section a corpus section stands for. */
export function mainSection(corpus: Corpus, s: CorpusSection): Section | undefined {
  return s.sectionIndex === undefined ? undefined : corpus.main.sections[s.sectionIndex];
}

/** The anchor of a section's heading line (the root: its first line of text). */
export function sectionAnchor(corpus: Corpus, section: Section): Anchor {
  const doc = corpus.main;
  const from = section.index === 0 ? doc.bodyCharStart : section.charStart;
  let at = from;
  while (at < section.ownCharEnd && /\s/.test(doc.text[at]!)) at++;
  let end = doc.text.indexOf("\n", at);
  if (end < 0 || end > section.ownCharEnd) end = section.ownCharEnd;
  while (end > at && /\s/.test(doc.text[end - 1]!)) end--;
  return anchorAt(doc, corpus.mainPath, at, end);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Anchor a quote the model gave: exactly in the section, then with any whitespace, then
 * anywhere in the main doc; a quote found nowhere is anchored to the section's heading
 * (never to a made-up offset).
 */
export function anchorQuote(
  corpus: Corpus,
  section: Section,
  quote: string,
): { anchor: Anchor; located: boolean } {
  const doc = corpus.main;
  const q = quote.trim();
  if (q !== "") {
    const inSection = locateQuote(doc, corpus.mainPath, q, { within: [section.charStart, section.charEnd] });
    if (inSection) return { anchor: inSection, located: true };
    const words = q.split(/\s+/).map(escapeRegExp);
    if (words.length > 0) {
      const re = new RegExp(words.join("\\s+"), "g");
      for (const range of [
        [section.charStart, section.charEnd],
        [0, doc.text.length],
      ] as const) {
        re.lastIndex = range[0];
        const m = re.exec(doc.text);
        if (m && m.index + m[0].length <= range[1])
          return { anchor: anchorAt(doc, corpus.mainPath, m.index, m.index + m[0].length), located: true };
      }
    }
  }
  return { anchor: sectionAnchor(corpus, section), located: false };
}

/** Trace IDs (`ABC-123`) named in a text. */
export function traceIdsOf(text: string): string[] {
  return [...new Set([...text.matchAll(/\b[A-Z][A-Z0-9]*-\d{1,6}\b/g)].map((m) => m[0]))];
}

/** Where a trace ID first appears in the main doc. */
export function anchorTraceId(corpus: Corpus, id: string): Anchor | undefined {
  const re = new RegExp(`(?<![\\p{L}\\p{N}_-])${escapeRegExp(id)}(?![\\p{L}\\p{N}_])`, "u");
  const m = re.exec(corpus.main.text.slice(corpus.main.bodyCharStart));
  if (!m) return undefined;
  const at = corpus.main.bodyCharStart + m.index;
  return anchorAt(corpus.main, corpus.mainPath, at, at + id.length);
}
