/**
 * The `types` of a repository's `.spec-review/config.yaml`: the type of markdown files
 * that name none in their frontmatter, by path or glob (picomatch) from the repository's
 * root (or the served folder's):
 *
 * ```yaml
 * types:
 *   "proposals/*.md": swift-proposal
 *   docs/adr/0007-outbox.md: adr
 * ```
 *
 * An exact path wins over a glob, a longer glob over a shorter one. A file the map names
 * is a spec doc even without frontmatter; a type its frontmatter names wins over the map.
 * One reading for `lint`, `serve`, the Action and the App. Pure: the callers read the file.
 */
import picomatch from "picomatch";
import { parseDocument } from "yaml";
import type { classifyMarkdown } from "./discover.js";

export const REPO_CONFIG_PATH = ".spec-review/config.yaml";

/** The `types` of a config file; a file that does not parse, or odd entries, count as none. */
export function configTypes(text: string | undefined): Record<string, string> {
  if (!text) return {};
  try {
    const doc = parseDocument(text);
    if (doc.errors.length > 0) return {};
    const types = (doc.toJS({ maxAliasCount: 100 }) as { types?: unknown } | null)?.types;
    if (!types || typeof types !== "object" || Array.isArray(types)) return {};
    return Object.fromEntries(
      Object.entries(types as Record<string, unknown>).filter(
        (e): e is [string, string] => typeof e[1] === "string" && e[1] !== "",
      ),
    );
  } catch {
    return {};
  }
}

/** The type the map gives a path (relative to the root, posix), if any. */
export type TypeOf = (path: string) => string | undefined;

const clean = (p: string) =>
  p
    .trim()
    .replace(/\\/g, "/")
    .replace(/^(\.\/)+/, "");

/** A lookup over `types`: exact paths first, then globs, the longest first. */
export function typesMap(types: Readonly<Record<string, string>>): TypeOf {
  const exact = new Map<string, string>();
  const globs: { pattern: string; type: string; test: (p: string) => boolean }[] = [];
  for (const [raw, type] of Object.entries(types)) {
    const pattern = clean(raw);
    if (pattern === "") continue;
    if (picomatch.scan(pattern).isGlob)
      globs.push({ pattern, type, test: picomatch(pattern, { dot: true }) });
    else if (!exact.has(pattern)) exact.set(pattern, type);
  }
  globs.sort((a, b) => b.pattern.length - a.pattern.length || (a.pattern < b.pattern ? -1 : 1));
  if (exact.size === 0 && globs.length === 0) return () => undefined;
  return (path) => {
    const p = clean(path);
    return exact.get(p) ?? globs.find((g) => g.test(p))?.type;
  };
}

type Classified = ReturnType<typeof classifyMarkdown>;

/**
 * What a markdown file is, its frontmatter first, then the map: a file whose frontmatter
 * names no type (and is not broken) takes the type the map gives its path.
 */
export function classifyWithTypes(classified: Classified, typeOf: TypeOf, path: string): Classified {
  if (classified.type !== undefined || classified.error) return classified;
  const type = typeOf(path);
  return type === undefined ? classified : { type };
}
