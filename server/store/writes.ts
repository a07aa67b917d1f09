/**
 * Writes of the local store: the checks a change must pass before anything is touched
 * (paths, sizes, the one-spec-doc rule) and putting the files on disk with an undo.
 */
import type { EventEmitter } from "node:events";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { classifyMarkdown, folderOf, isMarkdownPath } from "../../core/bundle/discover.js";
import type { FrontmatterError } from "../../core/markdown/frontmatter.js";
import { ApiError, BadPathError, TooLargeError } from "../errors.js";
import { atomicWrite, removeFile, sha256, staysInside } from "./fsutil.js";
import { joinPath } from "./paths.js";
import type { FileState } from "./scan.js";
import type { Logger } from "../deps.js";
import type { FileChange, Limits, StoreEvents } from "./types.js";

const MB = 1024 * 1024;
const decoder = new TextDecoder();

/** The file set after `changes`, with the blobs it adds; 413 when a file or the bundle is too large. */
export function nextFiles(
  current: ReadonlyMap<string, FileState>,
  changes: readonly FileChange[],
  limits: Limits,
): { next: Map<string, FileState>; newBlobs: Map<string, Uint8Array> } {
  const next = new Map(current);
  const newBlobs = new Map<string, Uint8Array>();
  for (const ch of changes) {
    if (ch.bytes === null) {
      if (!next.has(ch.path))
        throw new ApiError("file_not_found", `${ch.path} is not in the current version`);
      next.delete(ch.path);
      continue;
    }
    if (ch.bytes.length > limits.maxFileMb * MB)
      throw new TooLargeError("file", ch.bytes.length, limits.maxFileMb);
    const sha = sha256(ch.bytes);
    next.set(ch.path, { sha256: sha, size: ch.bytes.length, mtimeMs: current.get(ch.path)?.mtimeMs ?? 0 });
    newBlobs.set(sha, ch.bytes);
  }
  const total = [...next.values()].reduce((n, f) => n + f.size, 0);
  if (total > limits.maxBundleMb * MB) throw new TooLargeError("bundle", total, limits.maxBundleMb);
  // A file cannot also be a folder: `main.md/x` next to `main.md`, or `a` next to `a/b`.
  for (const ch of changes) {
    if (ch.bytes === null) continue;
    let folder = folderOf(ch.path);
    while (folder !== ".") {
      if (next.has(folder))
        throw new BadPathError(ch.path, `uses the file ${JSON.stringify(folder)} as a folder`);
      folder = folderOf(folder);
    }
    const prefix = ch.path + "/";
    for (const p of next.keys())
      if (p.startsWith(prefix))
        throw new BadPathError(ch.path, `is a folder of the bundle (it holds ${JSON.stringify(p)})`);
  }
  return { next, newBlobs };
}

export function sameFiles(a: ReadonlyMap<string, FileState>, b: ReadonlyMap<string, FileState>): boolean {
  if (a.size !== b.size) return false;
  for (const [p, f] of a) if (b.get(p)?.sha256 !== f.sha256) return false;
  return true;
}

/**
 * A path of a write: not inside a nested bundle, not through a symlink leading outside.
 * `known`: the walk of the bundle just listed this path as a regular file (a walk never
 * goes through a symlink), so there is no symlink to look for.
 */
export async function checkWritablePath(
  slug: string,
  bundleDir: string,
  path: string,
  claimed: ReadonlySet<string>,
  known = false,
): Promise<void> {
  let folder = folderOf(path);
  while (folder !== ".") {
    if (claimed.has(joinPath(slug, folder)))
      throw new BadPathError(path, `lies in the folder of another bundle (${joinPath(slug, folder)})`);
    folder = folderOf(folder);
  }
  if (!known && !(await staysInside(bundleDir, path)))
    throw new BadPathError(path, "is or crosses a symlink leading outside the bundle");
}

/**
 * A bundle keeps exactly one spec doc: no second typed doc at its top, no untyping the
 * main doc. Answers what the main doc's new text says (its type and frontmatter error),
 * when the changes write it.
 */
export function checkSpecDocRules(
  docPath: string,
  changes: readonly FileChange[],
  /** The type the repository's config gives the main doc (a doc it types needs no frontmatter). */
  mapped?: string,
): { type: string; error?: FrontmatterError } | undefined {
  let main: { type: string; error?: FrontmatterError } | undefined;
  for (const ch of changes) {
    const top = !ch.path.includes("/") && isMarkdownPath(ch.path);
    if (ch.path === docPath) {
      if (ch.bytes === null)
        throw new ApiError(
          "main_doc_required",
          `${ch.path} is the bundle's spec doc; delete the bundle instead`,
        );
      const read = classifyMarkdown(decoder.decode(ch.bytes));
      const info = read.type === undefined && !read.error && mapped !== undefined ? { type: mapped } : read;
      if (info.type === undefined)
        throw new ApiError(
          "main_doc_required",
          `${ch.path} is the bundle's spec doc; its frontmatter must keep a \`type\``,
        );
      main = info.error ? { type: info.type, error: info.error } : { type: info.type };
    } else if (top && ch.bytes !== null && classifyMarkdown(decoder.decode(ch.bytes)).type !== undefined) {
      throw new ApiError(
        "two_spec_docs",
        `${ch.path} names a type, which would make it a second spec doc in this bundle; put it in its own folder`,
      );
    }
  }
  return main;
}

/** A file system error on a request path, as the 400 it is (the name cannot exist on this disk). */
function pathError(err: unknown, path: string): unknown {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === "ENAMETOOLONG") return new BadPathError(path, "is too long for the file system");
  if (code === "ENOTDIR" || code === "EEXIST")
    return new BadPathError(path, "uses a file as a folder on disk");
  if (code === "EISDIR") return new BadPathError(path, "is a folder on disk");
  if (code === "EILSEQ") return new BadPathError(path, "is not a name this file system can hold");
  return err;
}

/**
 * Tell the store's listeners that a version with this spec doc is being written (the
 * `writing` event). Called once the write has begun, so they work while it runs; a
 * listener that throws is logged and does not stop the write.
 */
export function announceWriting(
  events: EventEmitter<StoreEvents>,
  logger: Logger,
  ids: { bundleId: string; docId: string },
  mainPath: string,
  mainBytes: Uint8Array | undefined,
  next: ReadonlyMap<string, unknown>,
  profileKey: string | undefined,
): void {
  if (!mainBytes || profileKey === undefined) return;
  try {
    events.emit("writing", { ...ids, mainPath, mainBytes, paths: [...next.keys()], profileKey });
  } catch (err) {
    logger.error("a listener of a write failed", { doc: ids.docId, error: String(err) });
  }
}

async function writeAndStat(abs: string, bytes: Uint8Array): Promise<number> {
  await atomicWrite(abs, bytes);
  return (await stat(abs)).mtimeMs;
}

/**
 * Put changed files on disk (each atomically). Answers the new mtimes of the written
 * files and an undo that puts the disk back as it was. On failure the disk is put back
 * and the error thrown.
 */
export async function applyToDisk(
  bundleDir: string,
  current: ReadonlyMap<string, FileState>,
  changes: readonly FileChange[],
  opts: {
    /** The bytes of a current file, to put it back (from the head version's blobs). */
    storedBytes: (path: string) => Promise<Uint8Array>;
    /** Before a file is written, then after (its new mtime; undefined when the write failed). */
    onWriting: (abs: string) => void;
    onWritten: (abs: string, mtimeMs?: number) => void;
    /** Writes a file atomically and answers its mtime (default: `atomicWrite` and a stat). */
    write?: (abs: string, bytes: Uint8Array) => Promise<number>;
  },
): Promise<{ mtimes: Map<string, number>; undo: () => Promise<void> }> {
  const steps: Array<() => Promise<void>> = [];
  const undo = async () => {
    for (const u of steps.reverse()) await u().catch(() => {});
  };
  const mtimes = new Map<string, number>();
  try {
    for (const ch of changes) {
      const abs = join(bundleDir, ch.path);
      const old = current.get(ch.path);
      if (ch.bytes !== null && old?.sha256 === sha256(ch.bytes)) continue;
      // The disk matches the head here (the caller synced it), so an undo restores the
      // head's bytes, read back from the version only if the undo is needed.
      const restore = async () =>
        old ? atomicWrite(abs, await opts.storedBytes(ch.path)) : removeFile(abs, bundleDir);
      if (ch.bytes === null) {
        try {
          await removeFile(abs, bundleDir);
        } catch (err) {
          throw pathError(err, ch.path);
        }
        steps.push(restore);
        continue;
      }
      opts.onWriting(abs);
      let mtime: number | undefined;
      try {
        const written = opts.write ? await opts.write(abs, ch.bytes) : await writeAndStat(abs, ch.bytes);
        steps.push(restore);
        mtime = Math.floor(written);
        mtimes.set(ch.path, mtime);
      } catch (err) {
        throw pathError(err, ch.path);
      } finally {
        opts.onWritten(abs, mtime);
      }
    }
    return { mtimes, undo };
  } catch (err) {
    await undo();
    throw err;
  }
}
