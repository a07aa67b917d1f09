/**
 * Folder scanning of the local store: walk the served folder (or one new folder in it),
 * classify its markdown (cached by size and mtime), and say which folders are bundles,
 * which are problems and which markdown is skipped.
 */
import { open, readFile } from "node:fs/promises";
import { basename, join } from "node:path";
import {
  classifyMarkdown,
  discoverClassified,
  folderOf,
  isMarkdownPath,
  isUnder,
  type Discovery,
} from "../../core/bundle/discover.js";
import {
  classifyWithTypes,
  configTypes,
  REPO_CONFIG_PATH,
  typesMap,
  type TypeOf,
} from "../../core/bundle/types-map.js";
import { boundedIo, walk, type DiskFile } from "./fsutil.js";
import { joinPath } from "./paths.js";

/** What the store last saw of one file on disk (and recorded in the head version). */
export interface FileState {
  sha256: string;
  size: number;
  mtimeMs: number;
}

type Classified = ReturnType<typeof classifyMarkdown>;

/** Bytes of a markdown file read first to classify it: its frontmatter is at the top. */
const HEAD_BYTES = 64 * 1024;

/**
 * What a markdown file says it is (classifyMarkdown). A large file is classified on its
 * first HEAD_BYTES when they hold a typed frontmatter without an error, else read whole:
 * decoding a 10 MB doc only to read its frontmatter held the request loop for 50 ms.
 */
async function classifyFile(file: string, size: number): Promise<Classified> {
  if (size > HEAD_BYTES) {
    const fh = await open(file, "r");
    let head: Buffer;
    try {
      const buf = Buffer.alloc(HEAD_BYTES);
      const { bytesRead } = await fh.read(buf, 0, HEAD_BYTES, 0);
      head = buf.subarray(0, bytesRead);
    } finally {
      await fh.close();
    }
    const info = classifyMarkdown(head.toString("utf8"));
    if (info.type !== undefined && !info.error) return info;
  }
  return classifyMarkdown(await readFile(file, "utf8"));
}

export class FolderScanner {
  discovery: Discovery = { bundles: [], problems: [], skipped: [] };
  /** Folders (relative to root) that hold a spec doc: bundles and problem folders. */
  claimed = new Set<string>();
  private readonly mdCache = new Map<string, { size: number; mtimeMs: number; info: Classified }>();
  /**
   * The types the served folder's `.spec-review/config.yaml` gives markdown that names none
   * (core/bundle/types-map.ts), read again on every whole scan.
   */
  typeOf: TypeOf = () => undefined;

  constructor(public root: string) {}

  /** True when some scanned markdown file lives at this path. */
  isMarkdownFile(path: string): boolean {
    return this.mdCache.has(path);
  }

  private async classify(files: readonly DiskFile[], base: string): Promise<void> {
    // Read the markdown files whose size or mtime changed since the last scan.
    const toRead = files.filter((f) => {
      if (!isMarkdownPath(f.path)) return false;
      const c = this.mdCache.get(joinPath(base, f.path));
      return !c || c.size !== f.size || c.mtimeMs !== f.mtimeMs;
    });
    const io = boundedIo();
    await Promise.all(
      toRead.map(async (f) => {
        const path = joinPath(base, f.path);
        try {
          const info = await io(() => classifyFile(join(this.root, path), f.size));
          this.mdCache.set(path, { size: f.size, mtimeMs: f.mtimeMs, info });
        } catch {
          this.mdCache.delete(path); // vanished while scanning: the next scan sees it gone
        }
      }),
    );
  }

  private discover(paths: string[]): Discovery {
    return discoverClassified(
      paths,
      (path) => {
        const cached = this.mdCache.get(path);
        if (!cached) throw new Error("vanished during the scan");
        return classifyWithTypes(cached.info, this.typeOf, path);
      },
      basename(this.root),
    );
  }

  private claim(d: Discovery): void {
    for (const b of d.bundles) this.claimed.add(b.slug);
    for (const p of d.problems) if (!isMarkdownPath(p.path)) this.claimed.add(p.path);
  }

  /** Walk the whole folder: every file (by path) and what is a bundle. */
  async scanAll(): Promise<Map<string, DiskFile>> {
    let config: string | undefined;
    try {
      config = await readFile(join(this.root, REPO_CONFIG_PATH), "utf8");
    } catch {
      config = undefined;
    }
    this.typeOf = typesMap(configTypes(config));
    const list = await walk(this.root);
    const byPath = new Map(list.map((f) => [f.path, f]));
    await this.classify(list, ".");
    for (const path of this.mdCache.keys()) if (!byPath.has(path)) this.mdCache.delete(path);
    this.discovery = this.discover(list.map((f) => f.path));
    this.claimed = new Set();
    this.claim(this.discovery);
    return byPath;
  }

  /**
   * True when `folder` lies in (or is) a folder that holds a spec doc: a new folder there
   * changes an existing bundle's files, so only a whole scan sees it right.
   */
  insideClaimed(folder: string): boolean {
    if (this.claimed.has(".")) return true;
    let f = folder;
    for (;;) {
      if (this.claimed.has(f)) return true;
      if (f === "." || !f.includes("/")) return false;
      f = folderOf(f);
    }
  }

  /**
   * Scan one new folder (not inside a claimed folder, see `insideClaimed`) and merge
   * what it holds into the discovery. Answers its files by path (relative to root) and
   * what is in it.
   */
  async scanFolder(folder: string): Promise<{ byPath: Map<string, DiskFile>; found: Discovery }> {
    const list = (await walk(join(this.root, folder))).map((f) => ({ ...f, path: joinPath(folder, f.path) }));
    const byPath = new Map(list.map((f) => [f.path, f]));
    await this.classify(list, ".");
    const found = this.discover(list.map((f) => f.path));
    const outside = <T extends { path: string }>(xs: T[]) => xs.filter((x) => !isUnder(x.path, folder));
    const d = this.discovery;
    this.discovery = {
      bundles: [
        ...d.bundles.filter((b) => !isUnder(b.slug, folder) && b.slug !== folder),
        ...found.bundles,
      ].sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0)),
      problems: [...outside(d.problems.filter((p) => p.path !== folder)), ...found.problems].sort((a, b) =>
        a.path < b.path ? -1 : a.path > b.path ? 1 : 0,
      ),
      skipped: [...d.skipped.filter((p) => !isUnder(p, folder)), ...found.skipped].sort(),
    };
    this.claim(found);
    return { byPath, found };
  }

  /** Files of a bundle folder on disk, relative to it, without nested bundles. */
  walkBundle(slug: string): Promise<DiskFile[]> {
    const base = slug === "." ? this.root : join(this.root, slug);
    return walk(base, (relFolder) => this.claimed.has(joinPath(slug, relFolder)), "");
  }
}

/** True when the files on disk (paths relative to the bundle) differ in size or mtime from what is known. */
export function differs(known: ReadonlyMap<string, FileState>, disk: readonly DiskFile[]): boolean {
  if (disk.length !== known.size) return true;
  for (const f of disk) {
    const k = known.get(f.path);
    if (!k || k.size !== f.size || k.mtimeMs !== f.mtimeMs) return true;
  }
  return false;
}
