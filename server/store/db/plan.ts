/**
 * New bundles of the database store from a set of files (POST /bundles, an import): which
 * folders of the set are bundles, checked before anything is stored. A set is laid out as
 * the local store would find it on disk (core/bundle/discover.ts), but with no folder
 * around it, a file outside every bundle has nowhere to live: it is refused, not dropped.
 */
import { discoverBundles } from "../../../core/bundle/discover.js";
import type { FrontmatterError } from "../../../core/markdown/frontmatter.js";
import { ApiError, BadPathError } from "../../errors.js";
import { checkDuplicates } from "../import.js";
import { joinPath, safeRelativePath } from "../paths.js";
import type { FileState } from "../scan.js";
import type { DocProblem, Limits } from "../types.js";
import { nextFiles } from "../writes.js";

const decoder = new TextDecoder();

/** A spec doc's own problems (a frontmatter that does not parse), as the docs row keeps them. */
export function docProblems(err: FrontmatterError | undefined): DocProblem[] | null {
  return err
    ? [{ message: `invalid frontmatter: ${err.message}`, line: err.line, column: err.column }]
    : null;
}

export interface PlannedBundle {
  slug: string;
  title: string;
  docPath: string;
  profileKey: string;
  problems: DocProblem[] | null;
  /** path -> sha256 and size, by path. */
  files: Map<string, FileState>;
  /** sha256 -> bytes of the bundle's files. */
  blobs: Map<string, Uint8Array>;
  /** The spec doc's bytes. */
  main: Uint8Array;
}

/**
 * The bundles `files` (paths relative to the new folder `folder`) make. Refuses a path that
 * is not safe, two paths that are one, a folder with two spec docs, a file outside every
 * bundle, a set with no spec doc, and a file or bundle over the limits.
 */
export function planNewBundles(
  folder: string,
  files: ReadonlyMap<string, Uint8Array>,
  limits: Limits,
): PlannedBundle[] {
  const byPath = new Map<string, Uint8Array>();
  for (const [raw, bytes] of files) byPath.set(safeRelativePath(raw), bytes);
  checkDuplicates([...byPath.keys()]);
  const paths = [...byPath.keys()].sort();
  const found = discoverBundles(paths, (p) => decoder.decode(byPath.get(p)), baseOf(folder));
  const crowded = found.problems.find((p) => !/\.(md|markdown)$/i.test(p.path));
  if (crowded) throw new ApiError("two_spec_docs", `${joinPath(folder, crowded.path)}: ${crowded.message}`);
  if (found.bundles.length === 0)
    throw new ApiError(
      "no_spec_doc",
      `no markdown file under ${folder} names a \`type\`; nothing was written`,
    );
  const owned = new Set(found.bundles.flatMap((b) => b.files.map((f) => joinPath(b.slug, f))));
  const loose = paths.find((p) => !owned.has(p));
  if (loose !== undefined)
    throw new BadPathError(
      joinPath(folder, loose),
      "lies outside every bundle: a bundle held in the database keeps only the files of its own folder and its subfolders; move it into a bundle's folder or leave it out. Nothing was written",
    );
  return found.bundles.map((b) => {
    const changes = b.files.map((f) => ({ path: f, bytes: byPath.get(joinPath(b.slug, f))! }));
    const { next, newBlobs } = nextFiles(new Map(), changes, limits);
    return {
      slug: b.slug === "." ? folder : `${folder}/${b.slug}`,
      title: b.slug === "." ? baseOf(folder) : b.title,
      docPath: b.doc.path,
      profileKey: b.doc.type,
      problems: docProblems(b.doc.frontmatterError),
      files: next,
      blobs: newBlobs,
      main: byPath.get(joinPath(b.slug, b.doc.path))!,
    };
  });
}

function baseOf(folder: string): string {
  return folder.slice(folder.lastIndexOf("/") + 1);
}
