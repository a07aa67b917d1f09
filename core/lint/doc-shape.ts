/**
 * What kind of doc this is when it is not a spec at all: a stub pointing to where the
 * design lives, an index of the folder's docs, a process or team doc, a short folder note.
 * The design sections of a profile are not asked of these at MUST. Conservative on
 * purpose: a spec with its design deleted must still look like a spec.
 */
import type { MarkdownDoc } from "../markdown/document.js";
import { matchesHeadingPattern, parseHeadingPattern, readerWords, withoutPlaceholders } from "./helpers.js";

export interface DocShape {
  kind: "pointer" | "index" | "process" | "note";
  /** Why, for the finding's message. */
  why: string;
}

/** A sentence sending the reader elsewhere for the content. */
const POINTER =
  /\b(?:moved|renamed|relocated|superseded|replaced|obsoleted|merged|folded|withdrawn|has become|became|now lives|lives (?:at|in)|can be found|is (?:now )?(?:kept|maintained|tracked|recorded|described|documented|written) (?:at|in|on)|continued (?:at|in))\b/i;
/** "See [the proposal](...)." alone in its paragraph. */
const SEE = /^\W*(?:please\s+)?(?:see|refer to|read)\b[^\n]*\]\([^)]*\)[\s.!)*_]*$/i;
/** A status a record keeps when its content is here: accepted, approved, implemented... */
const LIVE_STATUS = /^\W*(?:accepted|approved|implemented|final|active|adopted|decided|done|in effect)\b/i;
/** The content is kept where this repository cannot show it. */
const PRIVATE = /\b(?:private|internal|confidential|access-restricted|not public(?:ly available)?)\b/i;
/** Titles of docs about how a team works, not about something to build. */
const PROCESS =
  /\b(?:principles|guidelines|process|policy|policies|charter|roadmap|governance|code of conduct|working group|team|teams|meeting notes|retrospective|handbook|onboarding)\b/i;

const LOCAL_MD = /^(?![a-z][a-z0-9+.-]*:|\/\/)[^#?]*\.(?:md|markdown)(?:[#?].*)?$/i;

function basename(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

function titleOf(doc: MarkdownDoc): string {
  const t = doc.frontmatter.data["title"];
  if (typeof t === "string" && t.trim() !== "") return t;
  return doc.sections.find((s) => s.level === 1)?.title ?? "";
}

/** The doc's status as written: frontmatter, a "Status: X" line, or the first words of a "Status" section. */
function statusOf(doc: MarkdownDoc): string {
  const fm = doc.frontmatter.data["status"];
  if (typeof fm === "string") return fm;
  for (const b of doc.blocks) {
    if (b.kind !== "paragraph") continue;
    const line = /^\W*status\W*[:=]\W*(.*)$/im.exec(b.text);
    if (line) return line[1]!;
    const section = doc.sections[b.section]!;
    if (section.level > 0 && /^\W*status\W*$/i.test(section.title)) return b.text;
  }
  return "";
}

/** Words of prose, lists and tables (headings, code and comments left out). */
function bodyWords(doc: MarkdownDoc): number {
  let n = 0;
  for (const b of doc.blocks) {
    if (b.kind === "paragraph" || b.kind === "table") n += readerWords(withoutPlaceholders(b.text));
    else if (b.kind === "html")
      n += readerWords(b.text.replace(/<!--[\s\S]*?(?:-->|$)/g, " ").replace(/<[^>]*>/g, " "));
  }
  return n;
}

/** Sections answering to a known role of a proposal (its motivation, alternatives, design...). */
function knownSections(doc: MarkdownDoc): number {
  const known = parseHeadingPattern("@not-design|@design");
  return doc.sections.filter((s) => s.level >= 2 && matchesHeadingPattern(s, known)).length;
}

const cache = new WeakMap<MarkdownDoc, Map<string, DocShape | null>>();

/** The doc's shape when it is not a spec (undefined for a spec). `file` is its bundle path, `files` the bundle's. */
export function docShape(doc: MarkdownDoc, file: string, files: ReadonlySet<string>): DocShape | undefined {
  let perDoc = cache.get(doc);
  if (!perDoc) cache.set(doc, (perDoc = new Map<string, DocShape | null>()));
  let shape = perDoc.get(file);
  if (shape === undefined) {
    shape = computeShape(doc, file, files) ?? null;
    perDoc.set(file, shape);
  }
  return shape ?? undefined;
}

function computeShape(doc: MarkdownDoc, file: string, files: ReadonlySet<string>): DocShape | undefined {
  const words = bodyWords(doc);
  const subsections = doc.sections.filter((s) => s.level >= 2).length;
  const name = basename(file).toLowerCase();
  const landing = /^(?:readme|index|_index)\.(?:md|markdown)$/.test(name);
  const folder = file.includes("/") ? file.slice(0, file.lastIndexOf("/") + 1) : "";
  const siblings = [...files].filter(
    (f) =>
      f !== file &&
      f.startsWith(folder) &&
      !f.slice(folder.length).includes("/") &&
      /\.(?:md|markdown)$/i.test(f),
  ).length;

  // An accepted record is held to its content, whatever it links to.
  if (LIVE_STATUS.test(statusOf(doc))) return undefined;
  // A stub: a few sentences that send the reader to the content (a link, a superseding record, a private doc).
  if (words <= 60) {
    for (const b of doc.blocks) {
      // A status line ("- Status: superseded by [ADR-5](...)") does not make a record a stub.
      if (b.kind !== "paragraph" || b.listDepth > 0 || /^\W*status\b/i.test(b.text)) continue;
      const linked = /\]\(|\]\[|<https?:|https?:\/\//.test(b.text);
      const pointer = POINTER.test(b.text) || SEE.test(b.text);
      if (
        (pointer && linked) ||
        (PRIVATE.test(b.text) && /\b(?:doc|document|record|design|proposal|spec)/i.test(b.text))
      )
        return { kind: "pointer", why: "it points to where its content lives" };
    }
  }
  // A landing page of a folder of docs, or a list of links to docs.
  const items = doc.blocks.filter((b) => b.kind === "list_item");
  const linkItems = new Set<number>();
  for (const l of doc.links)
    if (l.kind === "link" && LOCAL_MD.test(l.href)) {
      let item: number | undefined;
      for (const b of items) if (b.charStart <= l.charStart && l.charEnd <= b.charEnd) item = b.charStart;
      if (item !== undefined) linkItems.add(item);
    }
  if (landing && siblings >= 2) return { kind: "index", why: "it is the landing page of a folder of docs" };
  if (linkItems.size >= 3 && linkItems.size >= 0.6 * items.length)
    return { kind: "index", why: "it is an index of other docs" };
  if (landing && subsections === 0 && words > 0 && words < 200)
    return { kind: "note", why: "it is a short note about its folder" };
  // A process doc is not a proposal ("Proposal: a new release process") and follows no proposal template.
  const title = titleOf(doc);
  if (
    PROCESS.test(title) &&
    !/^\W*(?:proposal|rfc|kep|design|draft)\b/i.test(title) &&
    knownSections(doc) <= 2
  )
    return { kind: "process", why: "it is about how a team works, not a build" };
  return undefined;
}
