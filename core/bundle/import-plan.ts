/**
 * Planning an import (docs/import.md), pure: which markdown files of an import are spec
 * docs and with which profile, and how the files are laid out so each spec doc sits in
 * a folder of its own. The HTTP route reads the form and the archive and writes the
 * result; nothing here touches a request, the disk or the database.
 */
import { resolveInBundle } from "../lint/checks/links-resolve.js";
import { parseMarkdown } from "../markdown/document.js";
import { parseFrontmatter } from "../markdown/frontmatter.js";
import { rankProfiles } from "../profile/guess.js";
import type { Profile } from "../profile/schema.js";
import { baseName, classifyMarkdown, folderOf, isMarkdownPath, isUnder } from "./discover.js";

/** One file of an import, its path relative to the import's top. */
export interface ImportFile {
  path: string;
  bytes: Uint8Array;
}

/** Where a markdown file's profile comes from; `none`: not a spec doc. */
export type ProfileSourceKind = "frontmatter" | "docs" | "profile" | "guess" | "none";

export interface PlannedMarkdown {
  path: string;
  text: string;
  title?: string;
  /** Profile key; empty when none is known. */
  profile: string;
  source: ProfileSourceKind;
  /** True when the import writes it as a spec doc. */
  spec: boolean;
}

/** What the caller asked for: one `profile` for a single markdown file, or a pick per doc. */
export interface ClassifyRequest {
  profile?: string;
  docs?: ReadonlyArray<{ path: string; profile: string }>;
}

/** The profiles an import can name. */
export interface ProfileLookup {
  get(key: string): Profile | undefined;
  list(): Profile[];
}

/**
 * Called between the steps of a long plan; answers a promise when the caller wants the
 * event loop to have a turn (the server's slices), else undefined.
 */
export type Pause = () => Promise<void> | undefined;

const noPause: Pause = () => undefined;

/** An import the plan refuses: a stable code, a message, and the field at fault when there is one. */
export class ImportPlanError extends Error {
  constructor(
    readonly code: "unknown_profile" | "validation_failed",
    message: string,
    readonly field?: { field: string; message: string },
  ) {
    super(message);
    this.name = "ImportPlanError";
  }
}

/** A folder name made of a title or file name: lower-case ASCII words joined by `-`, at most 80 characters. */
export function slugifyName(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 80)
    .replace(/-+$/, "");
}

/** A file name without its extension. */
export function stem(fileName: string): string {
  return baseName(fileName).replace(/\.[^.]*$/, "");
}

const joinPath = (folder: string, path: string) => (folder === "." ? path : `${folder}/${path}`);

/** A doc's title: its frontmatter `title` (not a template placeholder), else its first H1. */
export function docTitle(text: string): string | undefined {
  const fmTitle = parseFrontmatter(text).data["title"];
  if (typeof fmTitle === "string" && fmTitle.trim() !== "" && !fmTitle.includes("{{")) return fmTitle.trim();
  const h1 = /^#[ \t]+(.+?)[ \t#]*$/m.exec(text);
  return h1?.[1]?.trim();
}

/** The bundle folder a spec doc lands in, under the import's `name`. */
export function bundleOf(name: string, docPath: string): string {
  const folder = folderOf(docPath);
  return folder === "." ? name : `${name}/${folder}`;
}

/**
 * Classify every markdown file of the import: the frontmatter's `type`, else the `docs`
 * pick, else `profile` (a single markdown file), else a guess (a single file, or any file
 * in a preview, where the guess is only offered). `top` is the folder stripped from the
 * import's paths, which `docs` paths may still name.
 */
export async function classifyImport(
  entries: readonly ImportFile[],
  request: ClassifyRequest,
  profiles: ProfileLookup,
  top: string | undefined,
  preview: boolean,
  pause: Pause = noPause,
): Promise<PlannedMarkdown[]> {
  const known = (key: string, where: string) => {
    if (key !== "" && !profiles.get(key))
      throw new ImportPlanError(
        "unknown_profile",
        `${where} names the profile ${JSON.stringify(key)}, which does not exist`,
      );
  };
  if (request.profile !== undefined) known(request.profile, "`profile`");
  const byPath = new Map(entries.map((e) => [e.path, e]));
  const picks = new Map<string, string>();
  for (const [i, d] of (request.docs ?? []).entries()) {
    let path = d.path;
    if (!byPath.has(path) && top !== undefined && path.startsWith(`${top}/`))
      path = path.slice(top.length + 1);
    if (!byPath.has(path) || !isMarkdownPath(path))
      throw new ImportPlanError(
        "validation_failed",
        `docs[${i}].path ${JSON.stringify(d.path)} is not a markdown file of the import`,
        { field: `body.docs.${i}.path`, message: "not a markdown file of the import" },
      );
    known(d.profile, `docs[${i}]`);
    picks.set(path, d.profile);
  }
  const decoder = new TextDecoder();
  const markdown = entries.filter((e) => isMarkdownPath(e.path));
  const single = markdown.length === 1;
  const list = profiles.list();
  const planned: PlannedMarkdown[] = [];
  for (const e of markdown) {
    await pause();
    planned.push(classifyOne(e));
  }
  return planned;

  function classifyOne(e: ImportFile): PlannedMarkdown {
    const text = decoder.decode(e.bytes);
    const title = docTitle(text);
    const base = { path: e.path, text, ...(title ? { title } : {}) };
    const type = classifyMarkdown(text).type;
    if (type) return { ...base, profile: type, source: "frontmatter", spec: true };
    const pick = picks.get(e.path);
    if (pick !== undefined)
      return { ...base, profile: pick, source: pick ? "docs" : "none", spec: pick !== "" };
    if (single && request.profile)
      return { ...base, profile: request.profile, source: "profile", spec: true };
    if (single || preview) {
      const guess = rankProfiles(text, list)[0];
      if (guess) return { ...base, profile: guess.key, source: "guess", spec: single };
    }
    return { ...base, profile: "", source: "none", spec: false };
  }
}

/**
 * The import's files laid out so each spec doc is in a folder of its own: docs that share
 * a folder each move into a sub-folder named after them, taking along the assets their
 * relative links and images name. Answers the files and each doc's new path. Linear in the
 * number of files and docs (maps and sets, no search of the entries per doc or link).
 */
export async function layoutImport(
  entries: readonly ImportFile[],
  specs: readonly Pick<PlannedMarkdown, "path" | "text">[],
  pause: Pause = noPause,
): Promise<{ files: Map<string, Uint8Array>; docPath: Map<string, string> }> {
  const files = new Map(entries.map((e) => [e.path, e.bytes]));
  const byPath = new Map(entries.map((e) => [e.path, e]));
  const docPath = new Map(specs.map((d) => [d.path, d.path]));
  const specPaths = new Set(specs.map((d) => d.path));
  const taken = new Set<string>();
  for (const e of entries) {
    // Every folder above the file, and the file: one slash at a time, linear in the path.
    const lower = e.path.toLowerCase();
    for (let at = lower.indexOf("/"); at >= 0; at = lower.indexOf("/", at + 1)) taken.add(lower.slice(0, at));
    taken.add(lower);
  }
  const nextSuffix = new Map<string, number>();
  const groups = new Map<string, Pick<PlannedMarkdown, "path" | "text">[]>();
  for (const d of specs) {
    const folder = folderOf(d.path);
    const group = groups.get(folder);
    if (group) group.push(d);
    else groups.set(folder, [d]);
  }
  for (const [folder, docs] of groups) {
    if (docs.length < 2) continue;
    for (const d of docs) {
      await pause();
      const s = slugifyName(stem(d.path)) || "doc";
      let sub = joinPath(folder, s);
      // Docs whose names make the same slug take -2, -3, ...: each search starts where the last ended.
      const key = sub.toLowerCase();
      let n = nextSuffix.get(key) ?? 2;
      while (taken.has(sub.toLowerCase())) sub = joinPath(folder, `${s}-${n++}`);
      nextSuffix.set(key, n);
      taken.add(sub.toLowerCase());
      const bytes = files.get(d.path)!;
      files.delete(d.path);
      const moved = joinPath(sub, baseName(d.path));
      files.set(moved, bytes);
      docPath.set(d.path, moved);
      // The assets the doc's relative links and images name, from inside its folder, go with it.
      for (const link of parseMarkdown(d.text).links) {
        const href = link.href.trim().replace(/[#?].*$/, "");
        if (href === "" || href.startsWith("/") || /^[a-z][a-z0-9+.-]*:/i.test(href)) continue;
        let ref = href;
        try {
          ref = decodeURI(href);
        } catch {
          /* keep it as written */
        }
        const target = resolveInBundle(d.path, ref);
        if (target === undefined || specPaths.has(target)) continue;
        const asset = byPath.get(target);
        if (!asset || !isUnder(target, folder)) continue;
        const rel = folder === "." ? target : target.slice(folder.length + 1);
        files.set(joinPath(sub, rel), asset.bytes);
      }
    }
  }
  return { files, docPath };
}
