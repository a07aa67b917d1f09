/**
 * Disk side of `spec-review profile infer` (core/profile/infer.ts is pure): read a team's
 * accepted docs from folders or files, and the `types:` globs that map those folders to
 * the learned profile in `.spec-review/config.yaml`.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import type { InferDoc } from "../core/profile/infer.js";
import { walkFiles } from "./walk.js";

const toPosix = (p: string) => (sep === "/" ? p : p.split(sep).join("/"));
const TEXT = /\.(?:md|markdown|ya?ml|json)$/i;
/** Text read per file at most; a larger file is listed (links to it resolve) but not read. */
const MAX_BYTES = 2_000_000;

/** The repository around `start`: the nearest folder at or above it holding `.git`, else `start`'s folder. */
export function repositoryRoot(start: string): string {
  let dir = resolve(start);
  if (existsSync(dir) && !statSync(dir).isDirectory()) dir = dirname(dir);
  const from = dir;
  for (;;) {
    if (existsSync(join(dir, ".git"))) return dir;
    const up = dirname(dir);
    if (up === dir) return from;
    dir = up;
  }
}

function read(abs: string, rel: string): InferDoc {
  if (!TEXT.test(rel)) return { path: rel, text: "" };
  try {
    if (statSync(abs).size > MAX_BYTES) return { path: rel, text: "" };
    return { path: rel, text: readFileSync(abs, "utf8") };
  } catch {
    return { path: rel, text: "" };
  }
}

/**
 * The files under each input (a folder: every file under it; a file: it and the files
 * beside it), paths relative to `root` (posix). Throws for an input that does not exist.
 */
export function readInferInputs(inputs: readonly string[], root: string): InferDoc[] {
  const out = new Map<string, InferDoc>();
  for (const input of inputs) {
    const abs = resolve(input);
    if (!existsSync(abs)) throw new Error(`no such file or folder: ${input}`);
    const dir = statSync(abs).isDirectory() ? abs : dirname(abs);
    const only = dir === abs ? undefined : basename(abs);
    for (const f of walkFiles(dir)) {
      // A file input brings only its own folder's files (its sibling metadata), not every doc beside it.
      if (only !== undefined && (f.includes("/") || (/\.(?:md|markdown)$/i.test(f) && f !== only))) continue;
      const rel = toPosix(relative(root, join(dir, f)));
      if (!out.has(rel)) out.set(rel, read(join(dir, f), rel));
    }
  }
  return [...out.values()];
}

/**
 * The `types:` entries that name the learned docs: per input folder a glob of its docs
 * (`proposals/[0-9]*.md` when they are numbered, `keps/**\/README.md` when each doc is a
 * folder's README, else `design/*.md` or `design/**\/*.md`); a file input is named exactly.
 */
export function typesGlobs(inputs: readonly string[], root: string, learned: readonly string[]): string[] {
  const globs: string[] = [];
  for (const input of inputs) {
    const abs = resolve(input);
    const rel = toPosix(relative(root, abs));
    if (!statSync(abs).isDirectory()) {
      globs.push(rel);
      continue;
    }
    const glob = folderGlob(rel, learned);
    if (glob !== undefined) globs.push(glob);
  }
  return [...new Set(globs)];
}

/**
 * The `types:` glob of the learned docs under one folder (`rel`, posix, relative to the
 * repository root; "" for the root), from their paths alone; undefined when none is there.
 */
export function folderGlob(rel: string, learned: readonly string[]): string | undefined {
  const prefix = rel === "" ? "" : `${rel}/`;
  const mine = learned.filter((p) => p.startsWith(prefix)).map((p) => p.slice(prefix.length));
  if (mine.length === 0) return undefined;
  const bases = new Set(mine.map((p) => p.slice(p.lastIndexOf("/") + 1)));
  const nested = mine.some((p) => p.includes("/"));
  const deep = nested ? "**/" : "";
  if (bases.size === 1 && mine.length > 1) return `${prefix}${deep}${[...bases][0]!}`;
  if (mine.every((p) => /^\d/.test(p.slice(p.lastIndexOf("/") + 1)))) return `${prefix}${deep}[0-9]*.md`;
  return `${prefix}${deep}*.md`;
}
