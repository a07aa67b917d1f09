/** File system helpers of the local store: walking, hashing, atomic writes. */
import { createHash, randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { mkdir, open, readdir, rename, rm, rmdir, stat, lstat, realpath, unlink } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import pLimit from "p-limit";
import { slices } from "../slices.js";

/**
 * File operations a walk or a read of many files keeps in flight at once. Unbounded, a
 * folder of 10,000 files finished 10,000 stats in one turn of the loop (half a second
 * that no request was answered); the disk is not faster with more than a few in flight.
 */
export const IO_IN_FLIGHT = 32;

/**
 * Runs file operations IO_IN_FLIGHT at a time, and gives the loop a turn before the next
 * one once their completions have held it for a slice (server/slices.ts): completions
 * arrive in batches and each starts the next operation, so the bound alone let a walk of
 * 10,000 files hold the loop for over 100 ms.
 */
export function boundedIo(): <T>(op: () => Promise<T>) => Promise<T> {
  const limit = pLimit(IO_IN_FLIGHT);
  const pause = slices();
  return (op) =>
    limit(async () => {
      await pause();
      return op();
    });
}

export interface DiskFile {
  /** Relative to the walked root, posix separators. */
  path: string;
  size: number;
  mtimeMs: number;
}

/** Folders never walked: hidden ones (.git, .spec-review, …) and dependency trees. */
export function ignoredDir(name: string): boolean {
  return name.startsWith(".") || name === "node_modules";
}

/**
 * Every regular file under `root` (symlinks are not followed and not listed).
 * `skip(relFolder)` may prune folders.
 */
export async function walk(
  root: string,
  skip?: (relFolder: string) => boolean,
  prefix = "",
): Promise<DiskFile[]> {
  const out: DiskFile[] = [];
  const io = boundedIo();
  const visit = async (dir: string, rel: string): Promise<void> => {
    let entries;
    try {
      entries = await io(() => readdir(dir, { withFileTypes: true }));
    } catch {
      return;
    }
    const subdirs: Array<Promise<void>> = [];
    const files: Array<Promise<void>> = [];
    for (const e of entries) {
      const childRel = rel === "" ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (ignoredDir(e.name) || skip?.(prefix === "" ? childRel : `${prefix}/${childRel}`)) continue;
        subdirs.push(visit(join(dir, e.name), childRel));
      } else if (e.isFile()) {
        if (e.name.startsWith(".")) continue;
        files.push(
          io(() => stat(join(dir, e.name))).then(
            (s) => {
              out.push({ path: childRel, size: s.size, mtimeMs: Math.floor(s.mtimeMs) });
            },
            () => {},
          ),
        );
      }
    }
    await Promise.all([...files, ...subdirs]);
  };
  await visit(root, "");
  out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return out;
}

export function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** Write temp + fsync + rename (+ fsync of the folder): readers see the old or the new file, never half. */
export async function atomicWrite(file: string, bytes: Uint8Array): Promise<void> {
  const dir = dirname(file);
  await mkdir(dir, { recursive: true });
  const tmp = join(dir, `.sr-tmp-${randomBytes(6).toString("hex")}`);
  const fh = await open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
  try {
    await fh.writeFile(bytes);
    await fh.sync();
  } finally {
    await fh.close();
  }
  try {
    await rename(tmp, file);
  } catch (err) {
    await unlink(tmp).catch(() => {});
    throw err;
  }
  await fsyncDir(dir);
}

async function fsyncDir(dir: string): Promise<void> {
  try {
    const fh = await open(dir, constants.O_RDONLY);
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    // Some file systems refuse to fsync a folder; the rename is still atomic.
  }
}

/** Remove a file and then each folder above it that became empty, up to (not including) `stop`. */
export async function removeFile(file: string, stop: string): Promise<void> {
  await rm(file, { force: true });
  let dir = dirname(file);
  while (dir.startsWith(stop + sep) && dir !== stop) {
    try {
      await rmdir(dir);
    } catch {
      break;
    }
    dir = dirname(dir);
  }
}

/**
 * True when `rel` under `base` stays inside `base` once symlinks are resolved:
 * no existing component of the path is a symlink that leads outside, and the file
 * itself is not a symlink.
 */
export async function staysInside(base: string, rel: string): Promise<boolean> {
  const realBase = await realpath(base);
  const parts = rel.split("/");
  let cur = base;
  for (let i = 0; i < parts.length; i++) {
    cur = join(cur, parts[i]!);
    let st;
    try {
      st = await lstat(cur);
    } catch {
      return true; // the rest does not exist yet: it will be created inside
    }
    if (st.isSymbolicLink()) {
      if (i === parts.length - 1) return false;
      const target = await realpath(cur).catch(() => null);
      if (target === null) return false;
      const r = relative(realBase, target);
      if (r.startsWith("..") || r.startsWith(sep)) return false;
    }
  }
  return true;
}
