/**
 * The edits the trace view makes to a main doc: `Covers <ID>.` at the end of a section,
 * and taking a link out of the frontmatter. Pure: text in, text out.
 */
import { isMap, isScalar, isSeq, parseDocument } from "yaml";
import { splitFrontmatter } from "../markdown/frontmatter.js";
import type { MarkdownDoc, Section } from "../markdown/document.js";
import { normalizeSlug, isUrl, type LinkKind } from "./links.js";
import { idUse } from "./ids.js";

/** The section whose heading path is `path` (titles compared trimmed); undefined when none. */
export function sectionByPath(doc: MarkdownDoc, path: readonly string[]): Section | undefined {
  if (path.length === 0) return undefined;
  const want = path.map((t) => t.trim());
  return doc.sections.find(
    (s) => s.heading_path.length === want.length && s.heading_path.every((t, i) => t.trim() === want[i]),
  );
}

export type CoverResult =
  { ok: true; text: string; changed: boolean } | { ok: false; reason: "section_not_found" };

/** Append `Covers <id>.` to the end of the section's own text (before its subsections). */
export function appendCover(doc: MarkdownDoc, path: readonly string[], id: string): CoverResult {
  const section = sectionByPath(doc, path);
  if (!section) return { ok: false, reason: "section_not_found" };
  const text = doc.text;
  const already = idUse({ ...doc, blocks: doc.blocks.filter((b) => b.section === section.index) }).covered;
  if (already.has(id)) return { ok: true, text, changed: false };
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  let end = section.ownCharEnd;
  while (end > section.charStart && /\s/.test(text[end - 1]!)) end--;
  const cover = `${text.slice(0, end)}${eol}${eol}Covers ${id}.`;
  // At the end of the file: end with one line break; else keep one blank line before the next heading.
  if (section.ownCharEnd === text.length) return { ok: true, text: `${cover}${eol}`, changed: true };
  const rest = text.slice(end);
  return { ok: true, text: `${cover}${rest.startsWith(eol + eol) ? "" : eol}${rest}`, changed: true };
}

export type RemoveLinkResult =
  { ok: true; text: string } | { ok: false; reason: "link_not_found" | "frontmatter_invalid" };

function sameTarget(written: unknown, target: string): boolean {
  if (typeof written !== "string") return false;
  const w = written.trim();
  return isUrl(target) ? w === target : normalizeSlug(w) === target;
}

/**
 * Take one link out of the frontmatter: an item of a link key (the key goes when its
 * list empties) for origin `frontmatter`, an entry of `links` for origin `adopted`.
 * Comments, key order and the line endings of the rest are kept.
 */
export function removeFrontmatterLink(
  text: string,
  kind: LinkKind,
  target: string,
  origin: "frontmatter" | "adopted",
): RemoveLinkResult {
  const split = splitFrontmatter(text);
  if (!split) return { ok: false, reason: "link_not_found" };
  const crlf = split.raw.includes("\r\n");
  const doc = parseDocument(crlf ? split.raw.replace(/\r\n/g, "\n") : split.raw);
  if (doc.errors.length > 0 || !isMap(doc.contents)) return { ok: false, reason: "frontmatter_invalid" };
  let removed = false;
  if (origin === "frontmatter") {
    const node = doc.get(kind, true);
    if (isSeq(node)) {
      const i = node.items.findIndex((it) => isScalar(it) && sameTarget(it.value, target));
      if (i >= 0) {
        node.items.splice(i, 1);
        removed = true;
        if (node.items.length === 0) doc.delete(kind);
      }
    } else if (isScalar(node) && sameTarget(node.value, target)) {
      doc.delete(kind);
      removed = true;
    }
  } else {
    const node = doc.get("links", true);
    if (isSeq(node)) {
      const i = node.items.findIndex(
        (it) => isMap(it) && it.get("kind") === kind && sameTarget(it.get("target"), target),
      );
      if (i >= 0) {
        node.items.splice(i, 1);
        removed = true;
        if (node.items.length === 0) doc.delete("links");
      }
    }
  }
  if (!removed) return { ok: false, reason: "link_not_found" };
  let yamlText = doc.contents.items.length === 0 ? "" : doc.toString({ lineWidth: 0 });
  if (yamlText !== "" && !yamlText.endsWith("\n")) yamlText += "\n";
  if (crlf) yamlText = yamlText.replace(/\n/g, "\r\n");
  return {
    ok: true,
    text: text.slice(0, split.rawStart) + yamlText + text.slice(split.rawStart + split.raw.length),
  };
}
