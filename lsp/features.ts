/**
 * Reading help in the editor: hover (a finding's explanation; a trace ID's or a linked
 * bundle's title and verdict), completion in the frontmatter (`type`, `status`, bundle
 * slugs in link keys), go to definition (a bundle link to the bundle's doc, a trace ID to
 * where it is defined) and document symbols (the sections).
 */
import { readFileSync } from "node:fs";
import { dirname, relative } from "node:path";
import { pathToFileURL } from "node:url";
import {
  CompletionItemKind,
  MarkupKind,
  SymbolKind,
  type CompletionItem,
  type DocumentSymbol,
  type Hover,
  type Location,
  type Position,
} from "vscode-languageserver/node";
import { checkKind } from "../core/lint/checks/index.js";
import { ENGINE_CHECKS } from "../core/lint/engine.js";
import { parseMarkdown, type MarkdownDoc } from "../core/markdown/document.js";
import type { Profile } from "../core/profile/schema.js";
import { definedIds, idScheme, type DefinedId } from "../core/trace/ids.js";
import { LINK_KINDS } from "../core/trace/links.js";
import type { Verdict } from "../core/verdict/verdict.js";
import { checkDocHref, kindOf } from "./diagnostics.js";
import { charOf, rangeOf, type Encoding } from "./positions.js";
import type { LintedDoc, Settings, Workspace } from "./workspace.js";

/** A buffer the features read: linted when it is a spec doc, parsed only otherwise. */
export interface OpenDoc {
  uri: string;
  path: string;
  doc: MarkdownDoc;
  linted?: LintedDoc;
}

const ID_TOKEN = /^[A-Z][A-Z0-9]*-[\p{L}\p{N}_]+$/u;

/** The word under a string index: slugs, trace IDs, keys (letters, digits, `_ . / -`). */
function wordAt(text: string, at: number): { word: string; start: number; end: number } {
  const isWord = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}_./-]/u.test(c);
  let s = at;
  let e = at;
  while (s > 0 && isWord(text[s - 1])) s--;
  while (e < text.length && isWord(text[e])) e++;
  // A word ends before a sentence's full stop.
  while (e > s && /[./-]/.test(text[e - 1]!)) e--;
  return { word: text.slice(s, e), start: s, end: e };
}

function inFrontmatter(doc: MarkdownDoc, at: number): boolean {
  return doc.frontmatterCharStart >= 0 && at >= doc.frontmatterCharStart && at < doc.bodyCharStart;
}

const RESULT_WORDS: Record<Verdict["result"], string> = {
  build_ready: "Build Ready",
  not_build_ready: "Not Build Ready",
  stale: "stale",
};

function verdictLine(v: Verdict): string {
  return `${RESULT_WORDS[v.result]} (lint): ${v.must} MUST, ${v.should} SHOULD, ${v.info} INFO, score ${v.score}`;
}

interface IdDefinition {
  def: DefinedId;
  path: string;
  doc: MarkdownDoc;
  slug?: string;
}

/** Where a trace ID is defined: this doc first, then the spec docs of the workspace folder. */
function findIdDefinition(ws: Workspace, open: OpenDoc, id: string): IdDefinition | undefined {
  if (open.linted) {
    const here = definedIds(open.doc, open.path, idScheme(open.linted.profile)).find((d) => d.id === id);
    if (here) return { def: here, path: open.path, doc: open.doc };
  }
  const root = open.linted?.root ?? ws.rootOf(open.path);
  const key = `ids:${root}`;
  let table = ws.memo.get(key) as Map<string, IdDefinition> | undefined;
  if (!table) {
    table = new Map();
    for (const b of ws.bundles(root).bundles) {
      const bundle = ws.bundle(root, b.slug)!;
      if (bundle.docPath === open.path) continue;
      const profile = ws.profiles(bundle.dir).profiles.find((p) => p.key === b.doc.type);
      if (!profile) continue;
      let doc: MarkdownDoc;
      try {
        doc = parseMarkdown(readFileSync(bundle.docPath, "utf8"));
      } catch {
        continue;
      }
      for (const def of definedIds(doc, bundle.docPath, idScheme(profile)))
        if (!table.has(def.id)) table.set(def.id, { def, path: bundle.docPath, doc, slug: b.slug });
    }
    ws.memo.set(key, table);
  }
  return table.get(id);
}

function defRange(d: IdDefinition, enc: Encoding) {
  const index = d.doc.index;
  return rangeOf(index, index.charOf(d.def.anchor.start), index.charOf(d.def.anchor.end), enc);
}

function findingHover(linted: LintedDoc, at: number, settings: Settings): string[] {
  const index = linted.doc.index;
  const out: string[] = [];
  for (const f of linted.lint.result.findings) {
    const s = index.charOf(f.anchor.start);
    const e = index.charOf(f.anchor.end);
    if (at < s || at > e) continue;
    const entry = linted.profile.checks.find((c) => c.slug === f.check);
    const kind = entry ? checkKind(entry.kind) : undefined;
    const lines = [`**${f.level}** \`${f.check}\`: ${f.message}`];
    if (entry?.description) lines.push("", `Why it matters: ${entry.description}`);
    if (kind) lines.push("", `The check (${kind.kind}): ${kind.description}.`);
    if (!entry && f.check in ENGINE_CHECKS)
      lines.push("", "Reported by the lint engine itself, whatever the profile.");
    const href = checkDocHref(entry ? kindOf(linted.profile, f.check) : undefined, settings);
    lines.push("", `[About this check](${href}) · profile \`${linted.profile.key}\``);
    out.push(lines.join("\n"));
  }
  return out;
}

export function hover(ws: Workspace, open: OpenDoc, pos: Position, enc: Encoding): Hover | null {
  const at = charOf(open.doc.index, pos, enc);
  const parts = open.linted ? findingHover(open.linted, at, ws.settings) : [];
  const { word } = wordAt(open.doc.text, at);
  const root = open.linted?.root ?? ws.rootOf(open.path);
  if (word && inFrontmatter(open.doc, at) && ws.bundle(root, word)) {
    const saved = ws.savedLint(root, word);
    parts.push(
      saved ? `**${saved.title}** (\`${word}\`)\n\n${verdictLine(saved.lint.verdict)}` : `Bundle \`${word}\``,
    );
  } else if (ID_TOKEN.test(word)) {
    const d = findIdDefinition(ws, open, word);
    if (d) {
      const where =
        d.path === open.path
          ? "this doc"
          : `${d.slug ? (ws.savedLint(root, d.slug)?.title ?? d.slug) : relative(root, d.path)}`;
      const verdict = d.slug ? ws.savedLint(root, d.slug)?.lint.verdict : open.linted?.lint.verdict;
      parts.push(
        [
          `**${word}**, defined in ${where}: ${d.def.text}`,
          ...(verdict ? ["", verdictLine(verdict)] : []),
        ].join("\n"),
      );
    }
  }
  if (parts.length === 0) return null;
  return { contents: { kind: MarkupKind.Markdown, value: parts.join("\n\n---\n\n") } };
}

/** The bundle a frontmatter link names under the cursor: its slug and its doc's path in the bundle. */
export function linkedBundleAt(
  ws: Workspace,
  open: OpenDoc,
  pos: Position,
  enc: Encoding,
): { slug: string; path: string } | undefined {
  const at = charOf(open.doc.index, pos, enc);
  if (!inFrontmatter(open.doc, at)) return undefined;
  const { word } = wordAt(open.doc.text, at);
  const b = word ? ws.bundle(open.linted?.root ?? ws.rootOf(open.path), word) : undefined;
  return b && { slug: word, path: relative(b.dir, b.docPath).split("\\").join("/") };
}

export function definition(ws: Workspace, open: OpenDoc, pos: Position, enc: Encoding): Location | null {
  const at = charOf(open.doc.index, pos, enc);
  const { word } = wordAt(open.doc.text, at);
  if (!word) return null;
  const root = open.linted?.root ?? ws.rootOf(open.path);
  if (inFrontmatter(open.doc, at)) {
    const b = ws.bundle(root, word);
    if (b)
      return {
        uri: pathToFileURL(b.docPath).href,
        range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
      };
  }
  if (ID_TOKEN.test(word)) {
    const d = findIdDefinition(ws, open, word);
    if (d)
      return { uri: d.path === open.path ? open.uri : pathToFileURL(d.path).href, range: defRange(d, enc) };
  }
  return null;
}

/** Values a profile allows for `status` (its required-frontmatter checks of that key). */
function statusValues(profile: Profile | undefined): string[] {
  const values = new Set<string>();
  for (const c of profile?.checks ?? []) {
    if (c.kind !== "required-frontmatter") continue;
    const p = c.params as { key?: unknown; aliases?: unknown; values?: unknown };
    const names = [p.key, ...(Array.isArray(p.aliases) ? (p.aliases as unknown[]) : [])];
    if (!names.includes("status") || !Array.isArray(p.values)) continue;
    for (const v of p.values) if (typeof v === "string") values.add(v);
  }
  return [...values];
}

const LINK_KEY = new RegExp(`^(?:${LINK_KINDS.join("|")}):`);

export function completion(ws: Workspace, open: OpenDoc, pos: Position, enc: Encoding): CompletionItem[] {
  const { doc } = open;
  const at = charOf(doc.index, pos, enc);
  if (!inFrontmatter(doc, at)) return [];
  const lineStart = doc.index.charOfLine(doc.index.lineOfChar(at));
  const before = doc.text.slice(lineStart, at);
  const word = /[\p{L}\p{N}_./-]*$/u.exec(before)![0];
  const range = rangeOf(doc.index, at - word.length, at, enc);
  const item = (label: string, kind: CompletionItemKind, detail?: string): CompletionItem => ({
    label,
    kind,
    ...(detail ? { detail } : {}),
    textEdit: { range, newText: label },
  });
  const dir = dirname(open.path);
  if (/^type:\s*[\w.-]*$/.test(before))
    return ws.profiles(dir).profiles.map((p) => item(p.key, CompletionItemKind.EnumMember, p.title));
  if (/^status:\s*[\w-]*$/.test(before)) {
    const profile =
      open.linted?.profile ?? ws.profiles(dir).profiles.find((p) => p.key === doc.frontmatter.data["type"]);
    return statusValues(profile).map((v) => item(v, CompletionItemKind.Value, `status of ${profile!.key}`));
  }
  // A bundle slug: after a link key, in a list under one, or as a `target:` of `links:`.
  let linkValue = LINK_KEY.test(before) || /^\s+(?:-\s+)?target:\s*\S*$/.test(before);
  if (!linkValue && /^\s*-\s*[\w./-]*$/.test(before)) {
    for (let line = doc.index.lineOfChar(at) - 1; line >= 0; line--) {
      const text = doc.text.slice(doc.index.charOfLine(line), doc.index.charOfLine(line + 1));
      if (/^\s/.test(text) || /^\s*-/.test(text)) continue;
      linkValue = LINK_KEY.test(text);
      break;
    }
  }
  if (!linkValue) return [];
  const root = open.linted?.root ?? ws.rootOf(open.path);
  const own = open.linted?.slug;
  return ws
    .bundles(root)
    .bundles.filter((b) => b.slug !== own && b.slug !== ".")
    .map((b) => item(b.slug, CompletionItemKind.Reference, `${b.doc.type}: ${b.doc.path}`));
}

export function symbols(doc: MarkdownDoc, enc: Encoding): DocumentSymbol[] {
  const index = doc.index;
  const made = new Map<number, DocumentSymbol>();
  const top: DocumentSymbol[] = [];
  for (const s of doc.sections) {
    if (s.level === 0) continue;
    let headEnd = doc.text.indexOf("\n", s.charStart);
    if (headEnd < 0 || headEnd > s.charEnd) headEnd = s.charEnd;
    if (doc.text[headEnd - 1] === "\r") headEnd--;
    const sym: DocumentSymbol = {
      name: s.title || "(untitled)",
      detail: "#".repeat(s.level),
      kind: SymbolKind.String,
      range: rangeOf(index, s.charStart, s.charEnd, enc),
      selectionRange: rangeOf(index, s.charStart, Math.max(s.charStart, headEnd), enc),
      children: [],
    };
    made.set(s.index, sym);
    const parent = made.get(s.parent);
    if (parent) parent.children!.push(sym);
    else top.push(sym);
  }
  return top;
}
