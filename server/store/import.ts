/**
 * Writing new bundle folders under the served folder, safely: creating one from a
 * template (POST /bundles) and importing files (POST /bundles/import).
 *
 * Everything is checked before anything is written: paths (no `..`, absolute paths,
 * backslashes, duplicates), sizes (max_file_mb, max_bundle_mb), and for a .zip the
 * central directory (symlinks, ZIP64, encryption, declared sizes and ratios) before
 * any entry is inflated. The files are then written to a staging folder inside
 * `<served>/.spec-review/import/` and renamed into place in one step, so a failure
 * leaves nothing behind and a reader never sees half a bundle.
 */
import { randomBytes } from "node:crypto";
import { lstat, mkdir, readdir, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { Inflate } from "fflate";
import { ApiError, BadPathError, TooLargeError } from "../errors.js";
import { slices, type Pause } from "../slices.js";
import type { Limits } from "./local.js";
import { staysInside } from "./fsutil.js";
import { Mutex } from "./mutex.js";
import { safeRelativePath } from "./paths.js";

const MB = 1024 * 1024;

/** A file of an import: a path relative to the import's top folder, and its bytes. */
export interface ImportEntry {
  path: string;
  bytes: Uint8Array;
}

// ---------------------------------------------------------------------- names

/**
 * Checks a bundle folder name: a safe relative path (one folder, or nested folders such
 * as `payments/refunds`), no hidden segment, no `..`, no name over 255 bytes. Answers
 * it in NFC.
 */
export function checkBundleName(name: string): string {
  return safeRelativePath(name, "name");
}

export { slugifyName } from "../../core/bundle/import-plan.js";

/**
 * True when `name` (or a case-variant of any of its segments) exists under `root`, so
 * a new folder there would clash on a case-insensitive file system too.
 */
export async function nameTaken(root: string, name: string): Promise<boolean> {
  let dir = root;
  for (const seg of name.split("/")) {
    let entries: string[];
    try {
      entries = await readdir(dir);
    } catch {
      return false;
    }
    const match = entries.find(
      (e) => e.normalize("NFC").toLowerCase() === seg.normalize("NFC").toLowerCase(),
    );
    if (match === undefined) return false;
    dir = join(dir, match);
  }
  return true;
}

// ---------------------------------------------------------------------- paths

/**
 * Checks one path of an import (a zip entry or a dropped file's name). Answers the path,
 * or undefined for files that are never part of a bundle and are left out (hidden files
 * and folders such as `.DS_Store`, `.git/`, and `__MACOSX/`).
 */
export function importPath(raw: string, what: string): string | undefined {
  const fail = (why: string): never => {
    throw new BadPathError(raw, `(${what}) ${why}; nothing was written`);
  };
  if (raw.includes("\\")) fail("contains a backslash");
  if (raw.startsWith("/") || /^[A-Za-z]:/.test(raw)) fail("is absolute");
  const segs = raw.split("/");
  if (segs.includes("..")) fail("leads outside the import (..)");
  const parts = segs.filter((s, i) => !(s === "." && i === 0));
  if (parts.some((s) => s.startsWith(".") || s === "__MACOSX")) return undefined;
  return safeRelativePath(parts.join("/"), what);
}

/** Refuses two paths that are equal up to case and Unicode normalization, or a file used as a folder. */
export function checkDuplicates(paths: readonly string[]): void {
  const files = new Map<string, string>();
  const folders = new Map<string, string>();
  for (const p of paths) {
    const key = p.normalize("NFC").toLowerCase();
    const other = files.get(key);
    if (other !== undefined)
      throw new ApiError(
        "duplicate_path",
        `${JSON.stringify(other)} and ${JSON.stringify(p)} are the same path`,
      );
    files.set(key, p);
    const segs = key.split("/");
    for (let i = 1; i < segs.length; i++) folders.set(segs.slice(0, i).join("/"), p);
  }
  for (const [key, p] of files) {
    const inside = folders.get(key);
    if (inside !== undefined)
      throw new ApiError(
        "duplicate_path",
        `${JSON.stringify(p)} is a file, and ${JSON.stringify(inside)} uses it as a folder`,
      );
  }
}

/** Refuses a file over max_file_mb or a total over max_bundle_mb. */
export function checkSizes(entries: ReadonlyArray<{ path: string; size: number }>, limits: Limits): void {
  let total = 0;
  for (const e of entries) {
    if (e.size > limits.maxFileMb * MB)
      throw new ApiError(
        "file_too_large",
        `${e.path} is ${e.size} bytes; the limit is max_file_mb = ${limits.maxFileMb} MB`,
      );
    total += e.size;
  }
  if (total > limits.maxBundleMb * MB) throw new TooLargeError("bundle", total, limits.maxBundleMb);
}

/** When every path sits in one top folder (a zipped or dropped folder), drop it and name it. */
export function stripCommonTop<T extends { path: string }>(entries: T[]): { entries: T[]; top?: string } {
  if (entries.length === 0) return { entries };
  const first = entries[0]!.path.split("/")[0]!;
  if (!entries.every((e) => e.path.startsWith(first + "/"))) return { entries };
  return { entries: entries.map((e) => ({ ...e, path: e.path.slice(first.length + 1) })), top: first };
}

// ----------------------------------------------------------------------- zip

/** A big entry may not declare more than this many times its compressed size. */
export const MAX_RATIO = 100;
/** Entries at or under this size are not held to MAX_RATIO (small text compresses well). */
const RATIO_FLOOR = MB;
/** Compressed bytes fed to the inflater at a time, so it never runs far past a declared size. */
const INFLATE_STEP = 1024;

interface CentralEntry {
  name: string;
  method: number;
  compSize: number;
  size: number;
  localOffset: number;
}

function badZip(why: string): ApiError {
  return new ApiError("bad_zip", `the .zip file cannot be read: ${why}; nothing was written`);
}

/**
 * Reads a .zip file into entries, refusing (before inflating anything) symlinks, ZIP64,
 * encrypted entries, unsafe or duplicate paths, a file over max_file_mb, declared sizes
 * summing over max_bundle_mb, and big entries declaring more than MAX_RATIO times their
 * compressed size. While inflating, an entry that yields more than it declared is a
 * `zip_bomb`, and inflation stops there.
 *
 * It works in slices (server/slices.ts), giving the request loop a turn every few
 * milliseconds, so a .zip of thousands of entries or a large one does not hold other
 * requests.
 */
export async function readZip(zip: Uint8Array, limits: Limits): Promise<ImportEntry[]> {
  const pause = slices();
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const u16 = (at: number) => view.getUint16(at, true);
  const u32 = (at: number) => view.getUint32(at, true);
  if (zip.length < 22) throw badZip("it is too short to be a .zip");
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--)
    if (u32(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  if (eocd < 0) throw badZip("no end of central directory record");
  const count = u16(eocd + 10);
  const cdSize = u32(eocd + 12);
  const cdOffset = u32(eocd + 16);
  if (count === 0xffff || cdOffset === 0xffffffff || cdSize === 0xffffffff)
    throw badZip("ZIP64 archives are not supported");
  if (cdOffset + cdSize > zip.length) throw badZip("the central directory lies outside the file");

  const decoder = new TextDecoder("utf-8");
  const central: CentralEntry[] = [];
  let at = cdOffset;
  for (let n = 0; n < count; n++) {
    await pause();
    if (at + 46 > zip.length || u32(at) !== 0x02014b50)
      throw badZip(`central directory entry ${n} is damaged`);
    const flags = u16(at + 8);
    const method = u16(at + 10);
    const compSize = u32(at + 20);
    const size = u32(at + 24);
    const nameLen = u16(at + 28);
    const extraLen = u16(at + 30);
    const commentLen = u16(at + 32);
    const external = u32(at + 38);
    const localOffset = u32(at + 42);
    const name = decoder.decode(zip.subarray(at + 46, at + 46 + nameLen));
    at += 46 + nameLen + extraLen + commentLen;
    if (name.includes("\0"))
      throw new BadPathError(name, "(zip entry) contains a NUL byte; nothing was written");
    // Unix mode in the high 16 bits of the external attributes: S_IFLNK is 0o120000.
    if (((external >>> 16) & 0o170000) === 0o120000)
      throw new ApiError(
        "zip_symlink",
        `the .zip entry ${JSON.stringify(name)} is a symbolic link; nothing was written`,
      );
    if (flags & 1) throw badZip(`the entry ${JSON.stringify(name)} is encrypted`);
    if (compSize === 0xffffffff || size === 0xffffffff || localOffset === 0xffffffff)
      throw badZip("ZIP64 entries are not supported");
    if (name.endsWith("/")) {
      importPath(name.slice(0, -1), "zip entry"); // a folder: its path must be safe too
      continue;
    }
    if (method !== 0 && method !== 8)
      throw badZip(
        `the entry ${JSON.stringify(name)} uses compression method ${method} (only stored and deflate)`,
      );
    central.push({ name, method, compSize, size, localOffset });
  }

  // Decide everything from the declared values before inflating a byte.
  const kept: Array<CentralEntry & { path: string }> = [];
  for (const e of central) {
    await pause();
    const path = importPath(e.name, "zip entry");
    if (path !== undefined) kept.push({ ...e, path });
  }
  checkDuplicates(kept.map((e) => e.path));
  for (const e of kept)
    if (e.size > RATIO_FLOOR && e.size > MAX_RATIO * Math.max(1, e.compSize))
      throw new ApiError(
        "zip_bomb",
        `the .zip entry ${e.path} declares ${e.size} bytes from ${e.compSize} compressed (over ${MAX_RATIO}:1); nothing was written`,
      );
  checkSizes(kept, limits);

  const entries: ImportEntry[] = [];
  for (const e of kept) {
    await pause();
    const lo = e.localOffset;
    if (lo + 30 > zip.length || u32(lo) !== 0x04034b50)
      throw badZip(`the local header of ${e.path} is damaged`);
    const start = lo + 30 + u16(lo + 26) + u16(lo + 28);
    if (start + e.compSize > zip.length) throw badZip(`the data of ${e.path} lies outside the file`);
    const data = zip.subarray(start, start + e.compSize);
    if (e.method === 0) {
      if (e.compSize !== e.size) throw badZip(`the stored entry ${e.path} has two different sizes`);
      entries.push({ path: e.path, bytes: data.slice() });
    } else entries.push({ path: e.path, bytes: await inflateBounded(data, e.size, e.path, pause) });
  }
  return entries;
}

/** Inflates `data`, refusing (and stopping) as soon as the output passes `declared` bytes. */
async function inflateBounded(
  data: Uint8Array,
  declared: number,
  path: string,
  pause: Pause,
): Promise<Uint8Array> {
  const out = new Uint8Array(declared);
  let filled = 0;
  let over = false;
  const inflater = new Inflate((chunk) => {
    if (over) return;
    if (filled + chunk.length > declared) {
      over = true;
      return;
    }
    out.set(chunk, filled);
    filled += chunk.length;
  });
  try {
    for (let i = 0; i < data.length && !over; i += INFLATE_STEP) {
      inflater.push(data.subarray(i, i + INFLATE_STEP), i + INFLATE_STEP >= data.length);
      await pause();
    }
    if (data.length === 0) inflater.push(new Uint8Array(0), true);
  } catch (err) {
    throw badZip(
      `the entry ${path} is not valid deflate data (${err instanceof Error ? err.message : String(err)})`,
    );
  }
  if (over)
    throw new ApiError(
      "zip_bomb",
      `the .zip entry ${path} inflates to more than the ${declared} bytes it declares; nothing was written`,
    );
  if (filled !== declared)
    throw badZip(`the entry ${path} inflates to ${filled} bytes, not the ${declared} it declares`);
  return out;
}

// ------------------------------------------------------------ frontmatter links

/** A link written into a doc's frontmatter: `links: [{kind, target}]`, target a bundle slug. */
export interface FrontmatterLink {
  kind: string;
  target: string;
}

// -------------------------------------------------------------------- writing

/**
 * Writes new bundle folders. One instance per app: writes run one at a time, so two
 * requests cannot both claim a name.
 */
export class BundleWriter {
  private readonly lock = new Mutex();

  /**
   * Writes `files` (paths relative to the new folder) into a new folder `name` under the
   * served folder: staged in `.spec-review/import/<random>/`, then renamed into place.
   * A name that exists (in any letter case) is `bundle_exists`; nothing is written then.
   */
  write(root: string, name: string, files: ReadonlyMap<string, Uint8Array>): Promise<void> {
    return this.lock.run(async () => {
      checkBundleName(name);
      if (await nameTaken(root, name))
        throw new ApiError(
          "bundle_exists",
          `${name} already exists under the served folder; pick another name`,
        );
      if (!(await staysInside(root, name)))
        throw new BadPathError(name, "(name) goes through a symbolic link; nothing was written");
      const stage = join(root, ".spec-review", "import", randomBytes(8).toString("hex"));
      await mkdir(stage, { recursive: true });
      try {
        const top = join(stage, "bundle");
        await mkdir(top);
        for (const [path, bytes] of files) {
          const file = join(top, safeRelativePath(path));
          await mkdir(dirname(file), { recursive: true });
          await writeFile(file, bytes, { flag: "wx" });
        }
        const target = join(root, name);
        await mkdir(dirname(target), { recursive: true });
        const clash = await lstat(target).then(
          () => true,
          () => false,
        );
        if (clash) throw new ApiError("bundle_exists", `${name} already exists under the served folder`);
        await rename(top, target);
      } finally {
        await rm(stage, { recursive: true, force: true });
      }
    });
  }
}
