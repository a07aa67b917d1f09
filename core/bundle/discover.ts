/**
 * Which folders are bundles. Pure: the caller lists the files and hands in a reader.
 *
 * A spec doc is a markdown file whose frontmatter names a `type`. A bundle is a
 * folder that directly holds exactly one spec doc; every other file under it
 * (outside nested bundles) is an asset. A folder directly holding two or more
 * spec docs is a problem, not a bundle. Markdown naming no type outside every
 * bundle is "skipped": offered for adoption.
 */
import {
  parseFrontmatter,
  frontmatterType,
  splitFrontmatter,
  type FrontmatterError,
} from "../markdown/frontmatter.js";

export interface DiscoveredDoc {
  /** Path of the spec doc relative to the root, posix separators. */
  path: string;
  /** The `type` the frontmatter names (the profile key). */
  type: string;
  /** Set when the frontmatter is not valid YAML; the type was read from its `type:` line. */
  frontmatterError?: FrontmatterError;
}

export interface DiscoveredBundle {
  /** Folder relative to the root ("." for the root itself). */
  slug: string;
  /** The folder's own name. */
  title: string;
  doc: DiscoveredDoc;
  /** Every file of the bundle, relative to the bundle folder, sorted; includes the doc. */
  files: string[];
}

export interface DiscoveryProblem {
  path: string;
  message: string;
}

export interface Discovery {
  bundles: DiscoveredBundle[];
  problems: DiscoveryProblem[];
  /** Markdown files outside every bundle that name no type, sorted. */
  skipped: string[];
}

const MARKDOWN = /\.(md|markdown)$/i;
const TYPE_LINE = /^type:[ \t]*["']?([A-Za-z0-9_.-]+)["']?[ \t]*(?:#.*)?$/m;

export function isMarkdownPath(path: string): boolean {
  return MARKDOWN.test(path);
}

export function folderOf(path: string): string {
  const i = path.lastIndexOf("/");
  return i < 0 ? "." : path.slice(0, i);
}

export function baseName(path: string): string {
  const i = path.lastIndexOf("/");
  return i < 0 ? path : path.slice(i + 1);
}

/** True when `path` lies inside `folder` ("." holds everything). */
export function isUnder(path: string, folder: string): boolean {
  return folder === "." || path.startsWith(folder + "/");
}

/** A `key: value` line whose value is a plain word or phrase: no quotes, flow, anchors, tags, comments or colons. */
const PLAIN_LINE = /^([A-Za-z_][A-Za-z0-9_-]*):(?:[ ]+([\p{L}\p{N}_(/][\p{L}\p{N}_ ./()+=,'’-]*?))?[ ]*$/u;
/** A type YAML reads as a string: it opens with a letter and is no boolean or null. */
const PLAIN_TYPE = /^[A-Za-z][A-Za-z0-9_.-]*$/;
const NOT_STRINGS = new Set(["null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE"]);

/**
 * The `type` of a frontmatter made only of plain `key: value` lines (blank lines and
 * `#` comments aside), read without the YAML parser; undefined when the block holds
 * anything else, and then YAML reads it. Finding the bundles of a large tree reads every
 * markdown file, and parsing its YAML was most of that; this reading gives the same type
 * as the parse for every block it answers for (test/core/bundle/discover.test.ts).
 */
export function plainFrontmatterType(text: string): { type: string | undefined } | undefined {
  const split = splitFrontmatter(text);
  if (!split) return { type: undefined }; // no frontmatter block: no type, no error
  const raw = split.raw;
  if (raw.length > 4096 || raw.includes("\r")) return undefined;
  const keys = new Set<string>();
  let type: string | undefined;
  for (const line of raw.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const m = PLAIN_LINE.exec(line);
    // A line of anything else, or a key given twice (an error): the parser decides.
    if (!m || keys.has(m[1]!)) return undefined;
    keys.add(m[1]!);
    if (m[1] !== "type" || m[2] === undefined) continue;
    if (!PLAIN_TYPE.test(m[2]) || NOT_STRINGS.has(m[2])) return undefined;
    type = m[2];
  }
  return { type };
}

/** Read the spec-doc facts of one markdown text: its type, or why it has none. */
export function classifyMarkdown(
  text: string,
): { type: string; error?: FrontmatterError } | { type: undefined; error?: FrontmatterError } {
  const plain = plainFrontmatterType(text);
  if (plain) return plain;
  const fm = parseFrontmatter(text);
  if (fm.error) {
    // The block is broken, but a plain `type:` line still says what the author meant.
    const m = TYPE_LINE.exec(fm.raw);
    return { type: m?.[1], error: fm.error };
  }
  return { type: frontmatterType(fm) };
}

/**
 * @param paths every file under the root (relative, posix), already without ignored folders
 * @param readMarkdown returns the text of a markdown file (only called for markdown paths)
 * @param rootName the name shown as the title of a bundle at the root
 */
export function discoverBundles(
  paths: readonly string[],
  readMarkdown: (path: string) => string,
  rootName = ".",
): Discovery {
  return discoverClassified(paths, (path) => classifyMarkdown(readMarkdown(path)), rootName);
}

/** Like discoverBundles, for a caller that already knows each markdown file's classification (a cache). */
export function discoverClassified(
  paths: readonly string[],
  classify: (path: string) => ReturnType<typeof classifyMarkdown>,
  rootName = ".",
): Discovery {
  const typedByFolder = new Map<string, DiscoveredDoc[]>();
  const untyped: string[] = [];
  const problems: DiscoveryProblem[] = [];
  for (const path of paths) {
    if (!isMarkdownPath(path)) continue;
    let info: ReturnType<typeof classifyMarkdown>;
    try {
      info = classify(path);
    } catch (err) {
      problems.push({ path, message: `cannot read: ${err instanceof Error ? err.message : String(err)}` });
      continue;
    }
    if (info.type === undefined) {
      if (info.error)
        problems.push({
          path,
          message: `invalid frontmatter at line ${info.error.line}, column ${info.error.column}: ${info.error.message}`,
        });
      else untyped.push(path);
      continue;
    }
    const folder = folderOf(path);
    const list = typedByFolder.get(folder) ?? [];
    list.push(
      info.error ? { path, type: info.type, frontmatterError: info.error } : { path, type: info.type },
    );
    typedByFolder.set(folder, list);
  }

  const bundleFolders: string[] = [];
  // Folders whose files belong to no outer bundle: bundles and problem folders.
  const claimed = new Set<string>();
  for (const [folder, docs] of typedByFolder) {
    claimed.add(folder);
    if (docs.length === 1) bundleFolders.push(folder);
    else
      problems.push({
        path: folder,
        message: `folder holds ${docs.length} spec docs (${docs
          .map((d) => baseName(d.path))
          .sort()
          .join(", ")}); a bundle holds exactly one: move each into its own folder`,
      });
  }
  // The innermost claimed folder above a path.
  const owner = (path: string): string | undefined => {
    let folder = folderOf(path);
    for (;;) {
      if (claimed.has(folder)) return folder;
      if (folder === ".") return undefined;
      folder = folderOf(folder);
    }
  };

  const filesOf = new Map<string, string[]>(bundleFolders.map((f) => [f, []]));
  const skipped: string[] = [];
  for (const path of paths) {
    const folder = owner(path);
    if (folder === undefined) continue;
    filesOf.get(folder)?.push(folder === "." ? path : path.slice(folder.length + 1));
  }
  for (const path of untyped) if (owner(path) === undefined) skipped.push(path);

  const bundles = bundleFolders
    .map((slug): DiscoveredBundle => {
      const doc = typedByFolder.get(slug)![0]!;
      return {
        slug,
        title: slug === "." ? rootName : baseName(slug),
        doc: { ...doc, path: slug === "." ? doc.path : doc.path.slice(slug.length + 1) },
        files: (filesOf.get(slug) ?? []).sort(),
      };
    })
    .sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
  problems.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { bundles, problems, skipped: skipped.sort() };
}
