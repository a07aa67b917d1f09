/**
 * The document model the lint engine, anchors and section diffs work on.
 *
 * Built on markdown-it's token stream (line maps), not on a full syntax tree: it is
 * about 15x faster than a remark parse and gives everything lint needs (see
 * PERFORMANCE.md). Exact offsets inside a block are found in the source text of the
 * block's lines.
 *
 * Offsets: every `start`/`end` is a UTF-8 BYTE offset into the whole file (frontmatter
 * included), as the API speaks (contract 2.7). Every `charStart`/`charEnd` is the
 * matching JavaScript string index into `doc.text`. Lines are 1-based.
 */
import { slug as githubSlug } from "github-slugger";
import MarkdownIt from "markdown-it";
import type { MarkdownIt as MarkdownItParser, Token } from "markdown-it";
import { parseFrontmatter, splitFrontmatter, type Frontmatter } from "./frontmatter.js";
import { TextIndex } from "./text.js";

/**
 * One section: a heading and everything up to the next heading of the same or a
 * higher level. `sections[0]` is always the root (level 0, empty `heading_path`): it
 * spans the whole file and its own text is everything before the first heading,
 * frontmatter included. So the own ranges `[start, own_end)` of all sections tile the
 * file exactly, in order.
 */
export interface Section {
  /** Position in `doc.sections`. */
  index: number;
  /** Titles from the outermost heading down to this one; `[]` for the root. */
  heading_path: string[];
  /** Heading text without markup; "" for the root. */
  title: string;
  /** 1-6; 0 for the root. */
  level: number;
  /** Byte where the section starts (the heading line); 0 for the root. */
  start: number;
  /** Byte where the section ends, subsections included. */
  end: number;
  /** Byte where its content starts, after the heading (for the root: after the frontmatter). */
  content_start: number;
  /** Byte where its own text ends: the first subsection's heading, or `end`. */
  own_end: number;
  /** 1-based line of the heading (of the first body line for the root). */
  line: number;
  /** Index of the parent section; -1 for the root. */
  parent: number;
  /** GitHub-style anchor slug of the heading ("" for the root), unique in the doc. */
  slug: string;
  charStart: number;
  charEnd: number;
  contentCharStart: number;
  ownCharEnd: number;
}

export type BlockKind = "heading" | "paragraph" | "list_item" | "table" | "code" | "html" | "hr";

export interface Block {
  kind: BlockKind;
  /** 1-based first line. */
  line: number;
  /** 1-based line after the last one. */
  endLine: number;
  /** Bytes of the block's source, trailing blank lines trimmed. */
  start: number;
  end: number;
  charStart: number;
  charEnd: number;
  /** Index of the section that holds the block. */
  section: number;
  /** List nesting depth: 0 outside lists; a top-level item and its content are at 1. */
  listDepth: number;
  /** For paragraphs and headings: the inline source; for code: its content; for tables: cells joined by " | ". */
  text: string;
  /** Heading level (headings only). */
  level?: number;
  /** Fence info string (code only); "" for an indented block. */
  info?: string;
  /** Table cells, header row first (tables only). */
  rows?: string[][];
  /** Byte/char ranges of each table row (tables only), header first, delimiter row excluded. */
  rowRanges?: { charStart: number; charEnd: number }[];
}

export interface MarkdownLink {
  kind: "link" | "image";
  /** Destination as written (backslash escapes and entities decoded, not percent-encoded). */
  href: string;
  /** Range of the destination in the source; the link's block when it cannot be found (reference links). */
  start: number;
  end: number;
  charStart: number;
  charEnd: number;
  line: number;
  section: number;
}

export interface MarkdownDoc {
  text: string;
  index: TextIndex;
  frontmatter: Frontmatter;
  /** String index where the frontmatter's YAML starts (after the opening fence); -1 without frontmatter. */
  frontmatterCharStart: number;
  /** String index and byte where the markdown body starts (after the frontmatter). */
  bodyCharStart: number;
  bodyStart: number;
  sections: Section[];
  /** Blocks in document order. A list item comes before the blocks it holds. */
  blocks: Block[];
  links: MarkdownLink[];
}

let parser: MarkdownItParser | undefined;
function markdownParser(): MarkdownItParser {
  if (parser) return parser;
  const md = new MarkdownIt("default", { html: true, linkify: false, typographer: false });
  // We read destinations as written; nothing here is rendered.
  md.normalizeLink = (url: string) => url;
  md.validateLink = () => true;
  // Inline markup is read for two things only: a heading's plain title and the links of a
  // block. A block with no "[" (links, images, references) and no "<" (autolinks) holds no
  // link, and its text is taken from the source, so its inline parse (a third of the
  // whole parse, and of a lint run's garbage) is skipped.
  md.core.ruler.at("inline", (state) => {
    const tokens = state.tokens;
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i]!;
      if (t.type !== "inline") continue;
      if (tokens[i - 1]?.type !== "heading_open" && !/[[<]/.test(t.content)) continue;
      state.md.inline.parse(t.content, state.md, state.env, (t.children ??= []));
    }
  });
  parser = md;
  return md;
}

/** Plain text of an inline token: text and code spans, markup dropped. */
function inlinePlain(token: Token | undefined): string {
  if (!token) return "";
  if (!token.children) return token.content;
  let out = "";
  for (const c of token.children) {
    if (c.type === "text" || c.type === "code_inline") out += c.content;
    else if (c.type === "softbreak" || c.type === "hardbreak") out += " ";
    else if (c.type === "image") out += inlinePlain(c);
  }
  return out.replace(/\s+/g, " ").trim();
}

const slugCache = new Map<string, string>();

/** GitHub's heading slug (github-slugger: the rules github.com uses), without de-duplication. */
export function headingSlug(title: string): string {
  // Remembered: the same titles recur across the docs of a run, and the slug's Unicode
  // pattern was a tenth of a parse.
  let slug = slugCache.get(title);
  if (slug === undefined) {
    if (slugCache.size >= 5000) slugCache.clear();
    slug = githubSlug(title);
    slugCache.set(title, slug);
  }
  return slug;
}

/**
 * A heading's attribute block, as mdBook, kramdown and Pandoc write it after the title:
 * `## Title {#id}`, `{#id .class key=value}`, `{.unnumbered}`, `{-}`. Returns the title
 * without it and the id it gives, or undefined when the title ends in no such block.
 */
export function headingAttributes(title: string): { title: string; id?: string } | undefined {
  if (!title.endsWith("}")) return undefined;
  const m = /\s*\{([^{}]*)\}$/.exec(title);
  if (!m) return undefined;
  const tokens = m[1]!.trim().split(/\s+/);
  let id: string | undefined;
  for (const t of tokens) {
    if (/^#[^\s#{}]+$/.test(t)) id ??= t.slice(1);
    else if (!/^(?:\.[\w-]+|[\w-]+=\S*|-)$/.test(t)) return undefined;
  }
  if (tokens.length === 0 || tokens[0] === "") return undefined;
  const rest = title.slice(0, m.index).trimEnd();
  return id === undefined ? { title: rest } : { title: rest, id };
}

/** Unique slugs in one doc, as github-slugger's `slug` makes them: a repeat gets "-1", "-2"... */
class Slugs {
  private readonly occurrences = new Map<string, number>();
  /** An id the author gave (`{#id}`): used as is, and taken, so a later heading's slug does not repeat it. */
  claim(id: string): string {
    if (!this.occurrences.has(id)) this.occurrences.set(id, 0);
    return id;
  }
  slug(title: string): string {
    const original = headingSlug(title);
    let result = original;
    while (this.occurrences.has(result)) {
      const n = this.occurrences.get(original)! + 1;
      this.occurrences.set(original, n);
      result = `${original}-${n}`;
    }
    this.occurrences.set(result, 0);
    return result;
  }
}

/**
 * Where each reference definition (`[label]: href`) writes its destination: one pass over
 * the text, so finding the destination of every reference link stays linear.
 */
function referenceDefinitions(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of text.matchAll(/^[ ]{0,3}\[[^\]\n]+\]:[ \t]*<?([^\s>]+)/gm)) {
    const href = m[1]!;
    if (!out.has(href)) out.set(href, m.index + m[0].length - href.length);
  }
  return out;
}

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

/**
 * Parse a markdown text (a whole file, frontmatter included). Never throws on any input:
 * a broken frontmatter is reported in `frontmatter.error` and the body is still parsed.
 */
export function parseMarkdown(text: string): MarkdownDoc {
  const index = new TextIndex(text);
  const frontmatter = parseFrontmatter(text);
  const bodyCharStart = frontmatter.bodyStart;
  const frontmatterCharStart = frontmatter.present ? (splitFrontmatter(text)?.rawStart ?? -1) : -1;
  const bodyStart = index.byteOf(bodyCharStart);
  const lineOffset = frontmatter.bodyLine - 1;
  // A byte-order mark is not part of the first line's markdown.
  const bom = bodyCharStart === 0 && text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const tokens = markdownParser().parse(text.slice(bodyCharStart + bom), {});

  const root: Section = {
    index: 0,
    heading_path: [],
    title: "",
    level: 0,
    start: 0,
    end: index.byteLength,
    content_start: bodyStart,
    own_end: index.byteLength,
    line: frontmatter.bodyLine,
    parent: -1,
    slug: "",
    charStart: 0,
    charEnd: text.length,
    contentCharStart: bodyCharStart,
    ownCharEnd: text.length,
  };
  const sections: Section[] = [root];
  const blocks: Block[] = [];
  const links: MarkdownLink[] = [];
  const slugger = new Slugs();
  // Open sections, outermost first.
  const stack: Section[] = [root];
  let listDepth = 0;
  let current = 0;

  const lineChar = (l: number) => (l === 0 && bom ? bom : index.charOfLine(l + lineOffset));
  /** Char range of token lines, trailing whitespace trimmed. */
  const rangeOf = (map: [number, number]): [number, number] => {
    const s = lineChar(map[0]);
    let e = lineChar(map[1]);
    while (e > s && isSpace(text.charCodeAt(e - 1))) e--;
    return [s, e];
  };
  const pushBlock = (kind: BlockKind, map: [number, number], extra: Partial<Block> = {}): Block => {
    const [cs, ce] = rangeOf(map);
    const block: Block = {
      kind,
      line: map[0] + lineOffset + 1,
      endLine: map[1] + lineOffset + 1,
      start: index.byteOf(cs),
      end: index.byteOf(ce),
      charStart: cs,
      charEnd: ce,
      section: current,
      listDepth,
      text: "",
      ...extra,
    };
    blocks.push(block);
    return block;
  };
  let definitions: Map<string, number> | undefined;
  const collectLinks = (inline: Token, cs: number, ce: number) => {
    if (!inline.children) return;
    let cursor = cs;
    let own: string | undefined;
    for (const child of inline.children) {
      let kind: "link" | "image";
      let value: unknown;
      if (child.type === "link_open") {
        kind = "link";
        value = child.attrGet("href");
      } else if (child.type === "image") {
        kind = "image";
        value = child.attrGet("src");
      } else continue;
      if (typeof value !== "string") continue;
      const href = value;
      // Search the block's own text only (a search to the doc's end for every link would
      // make parsing quadratic): the destination right after "](" (or "](<"), else its first
      // occurrence (the label may repeat it); a reference link's destination sits in its
      // definition, maybe at the far end of the doc, found once through the definitions map.
      own ??= text.slice(cs, ce);
      let at = -1;
      if (href !== "" && cursor < ce) {
        const from = cursor - cs;
        if ((at = own.indexOf(`](${href}`, from)) >= 0) at += 2;
        else if ((at = own.indexOf(`](<${href}`, from)) >= 0) at += 3;
        else at = own.indexOf(href, from);
      }
      if (at >= 0) at += cs;
      else if (href !== "") at = (definitions ??= referenceDefinitions(text)).get(href) ?? -1;
      const nextLine = index.lineOfChar(cs) + 1;
      // Where the block's first line ends (its newline), or -1 on the last line.
      const lineEnd = nextLine < index.lineCount ? index.charOfLine(nextLine) - 1 : -1;
      const charStart = at < 0 ? cs : at;
      const charEnd = at < 0 ? (lineEnd < 0 || lineEnd > ce ? ce : lineEnd) : at + href.length;
      if (at >= cs && at <= ce) cursor = charEnd;
      links.push({
        kind,
        href,
        start: index.byteOf(charStart),
        end: index.byteOf(charEnd),
        charStart,
        charEnd,
        line: index.lineOfChar(charStart) + 1,
        section: current,
      });
    }
  };

  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    switch (t.type) {
      case "heading_open": {
        const map = t.map as [number, number];
        const inline = tokens[i + 1];
        let title = inlinePlain(inline);
        const attrs = headingAttributes(title);
        if (attrs) title = attrs.title;
        const level = Number(t.tag.slice(1));
        if (t.level === 0) {
          const cs = lineChar(map[0]);
          while (stack.length > 1 && stack[stack.length - 1]!.level >= level) {
            const done = stack.pop()!;
            done.charEnd = cs;
          }
          const parent = stack[stack.length - 1]!;
          if (parent.ownCharEnd === text.length || parent.ownCharEnd > cs) parent.ownCharEnd = cs;
          const slug = attrs?.id !== undefined ? slugger.claim(attrs.id) : slugger.slug(title);
          const contentChar = lineChar(map[1]);
          const section: Section = {
            index: sections.length,
            heading_path: [...parent.heading_path, title],
            title,
            level,
            start: 0,
            end: 0,
            content_start: 0,
            own_end: 0,
            line: map[0] + lineOffset + 1,
            parent: parent.index,
            slug,
            charStart: cs,
            charEnd: text.length,
            contentCharStart: contentChar,
            ownCharEnd: text.length,
          };
          sections.push(section);
          stack.push(section);
          current = section.index;
        }
        const block = pushBlock("heading", map, { text: title, level });
        if (inline) collectLinks(inline, block.charStart, block.charEnd);
        i += 2;
        break;
      }
      case "paragraph_open": {
        const inline = tokens[i + 1];
        const block = pushBlock("paragraph", t.map as [number, number], { text: inline?.content ?? "" });
        if (inline) collectLinks(inline, block.charStart, block.charEnd);
        i += 2;
        break;
      }
      case "bullet_list_open":
      case "ordered_list_open":
        listDepth++;
        break;
      case "bullet_list_close":
      case "ordered_list_close":
        listDepth--;
        break;
      case "list_item_open":
        pushBlock("list_item", t.map as [number, number]);
        break;
      case "fence":
      case "code_block":
        pushBlock("code", t.map as [number, number], { text: t.content, info: t.info.trim() });
        break;
      case "html_block":
        pushBlock("html", t.map as [number, number], { text: t.content });
        break;
      case "hr":
        pushBlock("hr", t.map as [number, number]);
        break;
      case "table_open": {
        const rows: string[][] = [];
        const rowRanges: { charStart: number; charEnd: number }[] = [];
        let row: string[] | undefined;
        let j = i + 1;
        for (; j < tokens.length && tokens[j]!.type !== "table_close"; j++) {
          const u = tokens[j]!;
          if (u.type === "tr_open") {
            row = [];
            rows.push(row);
            if (u.map) rowRanges.push({ charStart: lineChar(u.map[0]), charEnd: lineChar(u.map[0] + 1) - 1 });
          } else if (u.type === "inline" && row) row.push(u.content.trim());
        }
        const block = pushBlock("table", t.map as [number, number], {
          rows,
          rowRanges: rowRanges.map((r) => ({
            charStart: r.charStart,
            charEnd: Math.max(r.charStart, r.charEnd),
          })),
          text: rows.map((r) => r.join(" | ")).join("\n"),
        });
        for (let k = i + 1; k < j; k++) {
          const u = tokens[k]!;
          if (u.type === "inline") collectLinks(u, block.charStart, block.charEnd);
        }
        i = j;
        break;
      }
      default:
        break;
    }
  }

  for (const s of sections) {
    if (s.ownCharEnd > s.charEnd) s.ownCharEnd = s.charEnd;
    s.start = index.byteOf(s.charStart);
    s.end = index.byteOf(s.charEnd);
    s.content_start = index.byteOf(s.contentCharStart);
    s.own_end = index.byteOf(s.ownCharEnd);
  }
  return {
    text,
    index,
    frontmatter,
    frontmatterCharStart,
    bodyCharStart,
    bodyStart,
    sections,
    blocks,
    links,
  };
}

/** The section holding a string index (the innermost one). */
export function sectionAtChar(doc: MarkdownDoc, charIndex: number): Section {
  // Sections are in document order and own ranges tile the text: the last section
  // starting at or before the index owns it.
  const list = doc.sections;
  let lo = 1;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]!.charStart <= charIndex) lo = mid + 1;
    else hi = mid;
  }
  return list[lo - 1]!;
}

/**
 * One entry per section for a "diff by section": the section's heading path and its OWN
 * text (heading line and content up to the first subsection). Concatenating every `text`
 * in order gives back the whole file. `key` tells apart sections with the same path
 * (`heading_path` joined by " > ", with "#2", "#3"... on repeats); the root's key is "".
 * Diff two versions by matching keys.
 */
export interface SectionText {
  key: string;
  heading_path: string[];
  level: number;
  /** Bytes of the own text in the file. */
  start: number;
  end: number;
  text: string;
}

export function sectionTexts(doc: MarkdownDoc): SectionText[] {
  const seen = new Map<string, number>();
  return doc.sections.map((s) => {
    const base = s.heading_path.join(" > ");
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return {
      key: n === 1 ? base : `${base}#${n}`,
      heading_path: s.heading_path,
      level: s.level,
      start: s.start,
      end: s.own_end,
      text: doc.text.slice(s.charStart, s.ownCharEnd),
    };
  });
}

/** Normalized heading title for matching: lowercase, numbering ("2.1", "3)") and trailing colon dropped. */
export function normalizeTitle(title: string): string {
  return title
    .toLowerCase()
    .replace(/^\s*(?:\d+[.)]?)+(?:\s+|$)/, "")
    .replace(/[:.]\s*$/, "")
    .replace(/\s+/g, " ")
    .trim();
}
