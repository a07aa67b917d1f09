/**
 * The local bundle store: one folder on disk is the truth for file contents; the
 * database keeps every version (content-addressed blobs) so any old version reads
 * back exactly.
 *
 * Writes: per-bundle lock -> pick up edits made on disk -> compare base_version ->
 * temp + fsync + rename -> one transaction recording the version. Edits by other
 * programs are found by a watcher (and by a stat check before each single-bundle
 * read or write) and recorded as versions authored by `local`.
 */
import { EventEmitter } from "node:events";
import { randomUUID } from "node:crypto";
import { statSync } from "node:fs";
import { readFile, realpath, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { and, asc, desc, eq, gt, inArray, isNull, sql } from "drizzle-orm";
import {
  discoverClassified,
  classifyMarkdown,
  isMarkdownPath,
  folderOf,
  type Discovery,
} from "../../core/bundle/discover.js";
import type { FrontmatterError } from "../../core/markdown/frontmatter.js";
import type { Db } from "../db/index.js";
import { blobs, bundles, diskFiles, dismissedDocs, docs, versionFiles, versions } from "../db/schema.js";
import type { Clock, Logger } from "../deps.js";
import { ApiError, BadPathError, NotFoundError, TooLargeError, VersionConflictError } from "../errors.js";
import { atomicWrite, removeFile, sha256, staysInside, walk, type DiskFile } from "./fsutil.js";
import { joinPath, safeRelativePath } from "./paths.js";
import { Mutex } from "./mutex.js";

export const LOCAL_AUTHOR = "local";

export interface Limits {
  maxFileMb: number;
  maxBundleMb: number;
}

export interface LocalStoreOptions {
  root: string;
  db: Db;
  clock: Clock;
  logger: Logger;
  /** Watch the folder for edits by other programs (default true). */
  watch?: boolean;
  /** Current size limits (workspace settings); defaults 10 MB and 50 MB. */
  limits?: () => Promise<Limits>;
}

export interface VersionRecord {
  id: string;
  number: number;
  created_by: string;
  message: string;
  created_at: string;
}

export interface FileEntry {
  path: string;
  size: number;
  sha256: string;
}

export interface WriteResult {
  version: VersionRecord;
  changed: boolean;
}

export interface VersionEvent {
  bundleId: string;
  docId: string;
  version: VersionRecord;
}

interface FileState {
  sha256: string;
  size: number;
  mtimeMs: number;
}

/** What the store keeps in memory of one bundle: its head and the disk state at head. */
interface BundleState {
  id: string;
  slug: string;
  docId: string;
  docPath: string;
  headId: string | null;
  headNumber: number;
  /** path -> what is on disk (and in the head version). */
  files: Map<string, FileState>;
  /** What the docs row says (path, profile, problems), to skip writes that change nothing. */
  docKey: string;
  /** The folder was missing at the last scan. */
  gone: boolean;
}

function docKeyOf(path: string, profileKey: string, problems: unknown): string {
  return JSON.stringify([path, profileKey, problems ?? null]);
}

interface FileChange {
  path: string;
  /** null: the file is removed. */
  bytes: Uint8Array | null;
}

const DEFAULT_LIMITS: Limits = { maxFileMb: 10, maxBundleMb: 50 };
const MB = 1024 * 1024;

function versionRecord(row: typeof versions.$inferSelect): VersionRecord {
  return {
    id: row.id,
    number: row.number,
    created_by: row.createdBy,
    message: row.message,
    created_at: row.createdAt.toISOString(),
  };
}

function docProblems(err: FrontmatterError | undefined) {
  return err
    ? [{ message: `invalid frontmatter: ${err.message}`, line: err.line, column: err.column }]
    : null;
}

export class LocalStore {
  /** `version`: a new version; `changed`: anything else a bundle list shows (doc fields, presence). */
  readonly events = new EventEmitter<{ version: [VersionEvent]; changed: [{ bundleId: string }] }>();
  readonly db: Db;
  private root: string;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly watch: boolean;
  private readonly limits: () => Promise<Limits>;
  private readonly states = new Map<string, BundleState>();
  private readonly locks = new Map<string, Mutex>();
  private readonly scanLock = new Mutex();
  private readonly mdCache = new Map<
    string,
    { size: number; mtimeMs: number; info: ReturnType<typeof classifyMarkdown> }
  >();
  private discovery: Discovery = { bundles: [], problems: [], skipped: [] };
  /** Folders (relative to root) that hold a spec doc: bundles and problem folders. */
  private claimed = new Set<string>();
  private watcher: { close(): Promise<void> } | undefined;
  private rescanTimer: NodeJS.Timeout | undefined;
  private pendingScan: Promise<void> | undefined;
  /** Absolute path -> mtime (ms) of the files write() put on disk, to ignore their watcher echo. */
  private readonly ownWrites = new Map<string, number>();

  constructor(opts: LocalStoreOptions) {
    this.root = opts.root;
    this.db = opts.db;
    this.clock = opts.clock;
    this.logger = opts.logger;
    this.watch = opts.watch ?? true;
    this.limits = opts.limits ?? (() => Promise.resolve(DEFAULT_LIMITS));
  }

  /** The size limits in force now (workspace settings). */
  currentLimits(): Promise<Limits> {
    return this.limits();
  }

  get folder(): string {
    return this.root;
  }

  async start(): Promise<void> {
    this.root = await realpath(this.root);
    await this.loadStates();
    await this.scanAll();
    if (this.watch) await this.startWatcher();
  }

  async stop(): Promise<void> {
    clearTimeout(this.rescanTimer);
    await this.watcher?.close();
    this.watcher = undefined;
    await this.pendingScan?.catch(() => {});
    await this.scanLock.run(() => Promise.resolve());
  }

  // ---------------------------------------------------------------- discovery

  private async loadStates(): Promise<void> {
    const rows = await this.db
      .select({ b: bundles, d: docs })
      .from(bundles)
      .innerJoin(docs, eq(docs.bundleId, bundles.id))
      .where(eq(bundles.sourceKind, "local"));
    const files = await this.db.select().from(diskFiles);
    const byBundle = new Map<string, BundleState["files"]>();
    for (const f of files) {
      let m = byBundle.get(f.bundleId);
      if (!m) byBundle.set(f.bundleId, (m = new Map<string, FileState>()));
      m.set(f.path, { sha256: f.sha256, size: f.size, mtimeMs: f.mtimeMs });
    }
    for (const { b, d } of rows) {
      this.states.set(b.id, {
        id: b.id,
        slug: b.slug,
        docId: d.id,
        docPath: d.path,
        headId: b.headVersionId,
        headNumber: b.headNumber,
        files: byBundle.get(b.id) ?? new Map<string, FileState>(),
        docKey: docKeyOf(d.path, d.profileKey, d.problems),
        gone: b.goneAt !== null,
      });
    }
  }

  private stateBySlug(slug: string): BundleState | undefined {
    for (const s of this.states.values()) if (s.slug === slug) return s;
    return undefined;
  }

  private async readMarkdownCached(files: Map<string, DiskFile>): Promise<Map<string, string>> {
    // Read the markdown files whose size or mtime changed since the last scan.
    const texts = new Map<string, string>();
    const toRead = [...files.values()].filter((f) => {
      if (!isMarkdownPath(f.path)) return false;
      const c = this.mdCache.get(f.path);
      return !c || c.size !== f.size || c.mtimeMs !== f.mtimeMs;
    });
    await Promise.all(
      toRead.map(async (f) => {
        try {
          texts.set(f.path, await readFile(join(this.root, f.path), "utf8"));
        } catch {
          /* vanished while scanning: the next scan sees it gone */
        }
      }),
    );
    return texts;
  }

  /** Walk the whole folder, find bundles, and record what changed on disk as versions. */
  scanAll(): Promise<void> {
    const run = this.scanLock.run(() => this.doScanAll());
    this.pendingScan = run;
    return run;
  }

  private async doScanAll(): Promise<void> {
    const list = await walk(this.root);
    const byPath = new Map(list.map((f) => [f.path, f]));
    const texts = await this.readMarkdownCached(byPath);
    for (const [path, text] of texts) {
      const f = byPath.get(path)!;
      this.mdCache.set(path, { size: f.size, mtimeMs: f.mtimeMs, info: classifyMarkdown(text) });
    }
    for (const path of this.mdCache.keys()) if (!byPath.has(path)) this.mdCache.delete(path);
    this.discovery = discoverClassified(
      list.map((f) => f.path),
      (path) => {
        const cached = this.mdCache.get(path);
        if (!cached) throw new Error("vanished during the scan");
        return cached.info;
      },
      basename(this.root),
    );
    this.claimed = new Set(this.discovery.bundles.map((b) => b.slug));
    for (const p of this.discovery.problems) if (!isMarkdownPath(p.path)) this.claimed.add(p.path);

    for (const found of this.discovery.bundles) {
      const existing = this.stateBySlug(found.slug);
      const folderFiles = found.files.map((rel) => byPath.get(joinPath(found.slug, rel))!).filter(Boolean);
      const docProblemList = docProblems(found.doc.frontmatterError);
      if (!existing) {
        await this.createBundle(found.slug, found.title, found.doc.path, found.doc.type, docProblemList);
        continue;
      }
      await this.withLock(existing.id, async () => {
        await this.reviveAndUpdateDoc(existing, found.doc.path, found.doc.type, docProblemList);
        if (this.differs(existing, found.slug, folderFiles)) await this.syncState(existing);
      });
    }
    const found = new Set(this.discovery.bundles.map((b) => b.slug));
    for (const s of this.states.values()) {
      if (s.gone || found.has(s.slug)) continue;
      await this.db.update(bundles).set({ goneAt: this.clock.now() }).where(eq(bundles.id, s.id));
      s.gone = true;
      this.events.emit("changed", { bundleId: s.id });
    }
  }

  private differs(state: BundleState, slug: string, disk: DiskFile[]): boolean {
    if (disk.length !== state.files.size) return true;
    for (const f of disk) {
      const rel = slug === "." ? f.path : f.path.slice(slug.length + 1);
      const known = state.files.get(rel);
      if (!known || known.size !== f.size || known.mtimeMs !== f.mtimeMs) return true;
    }
    return false;
  }

  private async reviveAndUpdateDoc(
    state: BundleState,
    docPath: string,
    profileKey: string,
    problems: ReturnType<typeof docProblems>,
  ): Promise<void> {
    if (state.gone) {
      await this.db.update(bundles).set({ goneAt: null }).where(eq(bundles.id, state.id));
      state.gone = false;
      this.events.emit("changed", { bundleId: state.id });
    }
    const key = docKeyOf(docPath, profileKey, problems);
    if (key === state.docKey) return;
    await this.db
      .update(docs)
      .set({ path: docPath, profileKey, problems, updatedAt: this.clock.now() })
      .where(eq(docs.id, state.docId));
    state.docPath = docPath;
    state.docKey = key;
    this.events.emit("changed", { bundleId: state.id });
  }

  /** Files of a bundle folder on disk, without nested bundles. */
  private async walkBundle(slug: string): Promise<DiskFile[]> {
    const base = slug === "." ? this.root : join(this.root, slug);
    return walk(base, (relFolder) => this.claimed.has(joinPath(slug, relFolder)), "");
  }

  private async createBundle(
    slug: string,
    title: string,
    docPath: string,
    profileKey: string,
    problems: ReturnType<typeof docProblems>,
  ): Promise<BundleState> {
    const now = this.clock.now();
    const id = randomUUID();
    const docId = randomUUID();
    await this.db
      .insert(bundles)
      .values({ id, sourceKind: "local", slug, title, createdAt: now, updatedAt: now });
    await this.db.insert(docs).values({
      id: docId,
      bundleId: id,
      path: docPath,
      profileKey,
      problems,
      createdAt: now,
      updatedAt: now,
    });
    const state: BundleState = {
      id,
      slug,
      docId,
      docPath,
      headId: null,
      headNumber: 0,
      files: new Map(),
      docKey: docKeyOf(docPath, profileKey, problems),
      gone: false,
    };
    this.states.set(id, state);
    await this.withLock(id, () => this.syncState(state, "Found on disk"));
    return state;
  }

  /**
   * Compare a bundle's folder with its head version and record a version by `local`
   * when they differ. Call under the bundle's lock.
   */
  private async syncState(state: BundleState, message = "Changed on disk"): Promise<void> {
    const disk = await this.walkBundle(state.slug);
    const base = state.slug === "." ? this.root : join(this.root, state.slug);
    const next = new Map<string, { sha256: string; size: number; mtimeMs: number }>();
    const newBlobs = new Map<string, Uint8Array>();
    for (const f of disk) {
      const known = state.files.get(f.path);
      if (known && known.size === f.size && known.mtimeMs === f.mtimeMs) {
        next.set(f.path, known);
        continue;
      }
      let bytes: Uint8Array;
      try {
        bytes = await readFile(join(base, f.path));
      } catch {
        continue;
      }
      const sha = sha256(bytes);
      next.set(f.path, { sha256: sha, size: bytes.length, mtimeMs: f.mtimeMs });
      newBlobs.set(sha, bytes);
    }
    const contentChanged =
      state.headId === null ||
      next.size !== state.files.size ||
      [...next].some(([p, f]) => state.files.get(p)?.sha256 !== f.sha256);
    if (!contentChanged) {
      // Only mtimes moved (a touch): remember them so the next check is cheap.
      state.files = next;
      await this.saveDiskFiles(this.db, state.id, next);
      return;
    }
    await this.commitVersion(state, next, newBlobs, LOCAL_AUTHOR, message);
  }

  private async saveDiskFiles(db: Db, bundleId: string, files: BundleState["files"]): Promise<void> {
    await db.delete(diskFiles).where(eq(diskFiles.bundleId, bundleId));
    const rows = [...files].map(([path, f]) => ({
      bundleId,
      path,
      size: f.size,
      mtimeMs: f.mtimeMs,
      sha256: f.sha256,
    }));
    for (let i = 0; i < rows.length; i += 500) await db.insert(diskFiles).values(rows.slice(i, i + 500));
  }

  /** One transaction: blobs, the version row, its file list, the bundle head, the disk state. */
  private async commitVersion(
    state: BundleState,
    files: BundleState["files"],
    newBlobs: Map<string, Uint8Array>,
    author: string,
    message: string,
  ): Promise<VersionRecord> {
    const now = this.clock.now();
    const version = await this.db.transaction(async (tx) => {
      const [locked] = await tx
        .select({ headId: bundles.headVersionId, headNumber: bundles.headNumber })
        .from(bundles)
        .where(eq(bundles.id, state.id))
        .for("update");
      if (!locked) throw new NotFoundError("bundle", state.id);
      if (locked.headId !== state.headId)
        throw new VersionConflictError(state.headId ?? "(none)", {
          id: locked.headId ?? "",
          number: locked.headNumber,
        });
      for (const [sha, bytes] of newBlobs)
        await tx
          .insert(blobs)
          .values({ sha256: sha, size: bytes.length, content: bytes })
          .onConflictDoNothing();
      const [row] = await tx
        .insert(versions)
        .values({
          id: randomUUID(),
          bundleId: state.id,
          number: locked.headNumber + 1,
          createdBy: author,
          message,
          createdAt: now,
        })
        .returning();
      const fileRows = [...files].map(([path, f]) => ({
        versionId: row!.id,
        path,
        sha256: f.sha256,
        size: f.size,
      }));
      for (let i = 0; i < fileRows.length; i += 500)
        await tx.insert(versionFiles).values(fileRows.slice(i, i + 500));
      await tx
        .update(bundles)
        .set({ headVersionId: row!.id, headNumber: row!.number, updatedAt: now, goneAt: null })
        .where(eq(bundles.id, state.id));
      await tx.update(docs).set({ updatedAt: now }).where(eq(docs.id, state.docId));
      await this.saveDiskFiles(tx, state.id, files);
      return versionRecord(row!);
    });
    state.headId = version.id;
    state.headNumber = version.number;
    state.files = files;
    this.events.emit("version", { bundleId: state.id, docId: state.docId, version });
    return version;
  }

  private withLock<T>(bundleId: string, fn: () => Promise<T>): Promise<T> {
    let m = this.locks.get(bundleId);
    if (!m) this.locks.set(bundleId, (m = new Mutex()));
    return m.run(fn);
  }

  // ------------------------------------------------------------------ watcher

  private async startWatcher(): Promise<void> {
    const { watch } = await import("chokidar");
    const w = watch(this.root, {
      ignoreInitial: true,
      ignored: (path: string) => {
        const rel = path.slice(this.root.length + 1);
        return rel !== "" && rel.split("/").some((seg) => seg.startsWith(".") || seg === "node_modules");
      },
    });
    w.on("all", (event: string, path: string) => {
      if (!this.isOwnWrite(event, path)) this.scheduleRescan();
    });
    w.on("error", (err) => this.logger.warn("watcher error", { error: String(err) }));
    await new Promise<void>((resolve) => w.once("ready", () => resolve()));
    this.watcher = w;
  }

  /**
   * True when a watcher event is only the echo of a file write() just recorded (same
   * mtime): rescanning the whole folder for it would find nothing new.
   */
  private isOwnWrite(event: string, path: string): boolean {
    const mtimeMs = this.ownWrites.get(path);
    if (mtimeMs === undefined || (event !== "change" && event !== "add")) return false;
    try {
      if (Math.floor(statSync(path).mtimeMs) === mtimeMs) return true;
    } catch {
      /* gone since: a change to scan */
    }
    this.ownWrites.delete(path);
    return false;
  }

  private scheduleRescan(): void {
    clearTimeout(this.rescanTimer);
    this.rescanTimer = setTimeout(() => {
      this.scanAll().catch((err: unknown) => this.logger.error("rescan failed", { error: String(err) }));
    }, 75);
  }

  // -------------------------------------------------------------------- reads

  /** Problems of the last scan: bundle-like folders that are not valid bundles. */
  problems(): Discovery["problems"] {
    return this.discovery.problems;
  }

  /** Markdown outside every bundle that names no type and nobody dismissed. */
  async skipped(): Promise<string[]> {
    const dismissed = new Set(
      (await this.db.select({ path: dismissedDocs.path }).from(dismissedDocs)).map((r) => r.path),
    );
    return this.discovery.skipped.filter((p) => !dismissed.has(p));
  }

  isSkipped(path: string): boolean {
    return this.discovery.skipped.includes(path);
  }

  /** True when some scanned markdown file lives at this path. */
  isMarkdownFile(path: string): boolean {
    return this.mdCache.has(path);
  }

  /** Folder (relative to the root) of each bundle and of each folder with several spec docs. */
  specFolders(): ReadonlySet<string> {
    return this.claimed;
  }

  /** Bring one bundle up to date with the disk before a read or a write. */
  async refreshBundle(bundleId: string): Promise<void> {
    const state = this.states.get(bundleId);
    if (!state) return;
    await this.withLock(bundleId, async () => {
      const disk = await this.walkBundle(state.slug);
      const withSlug = disk.map((f) => ({ ...f, path: joinPath(state.slug, f.path) }));
      if (this.differs(state, state.slug, withSlug)) await this.syncState(state);
    });
  }

  private stateOfDoc(docId: string): BundleState {
    for (const s of this.states.values()) if (s.docId === docId) return s;
    throw new NotFoundError("doc", docId);
  }

  /** True when the current version of the doc's bundle has a file at `path`. */
  hasFile(docId: string, path: string): boolean {
    return this.stateOfDoc(docId).files.has(path);
  }

  bundleIdOfDoc(docId: string): string {
    return this.stateOfDoc(docId).id;
  }

  /** The version `ref` names (its id, or its number), or the head. */
  async resolveVersion(bundleId: string, ref?: string): Promise<VersionRecord> {
    let row;
    if (ref === undefined || ref === "") {
      const state = this.states.get(bundleId);
      if (!state?.headId) throw new NotFoundError("bundle", bundleId);
      [row] = await this.db.select().from(versions).where(eq(versions.id, state.headId));
    } else if (/^\d+$/.test(ref)) {
      [row] = await this.db
        .select()
        .from(versions)
        .where(and(eq(versions.bundleId, bundleId), eq(versions.number, Number(ref))));
    } else if (/^[0-9a-f-]{36}$/i.test(ref)) {
      [row] = await this.db
        .select()
        .from(versions)
        .where(and(eq(versions.bundleId, bundleId), eq(versions.id, ref.toLowerCase())));
    }
    if (!row) throw new ApiError("bad_version", `version ${ref} is not a version of this bundle`);
    return versionRecord(row);
  }

  async files(versionId: string): Promise<FileEntry[]> {
    const rows = await this.db
      .select({ path: versionFiles.path, size: versionFiles.size, sha256: versionFiles.sha256 })
      .from(versionFiles)
      .where(eq(versionFiles.versionId, versionId))
      .orderBy(asc(versionFiles.path));
    return rows;
  }

  async fileBytes(versionId: string, path: string): Promise<{ entry: FileEntry; bytes: Uint8Array }> {
    const [row] = await this.db
      .select({
        path: versionFiles.path,
        size: versionFiles.size,
        sha256: versionFiles.sha256,
        content: blobs.content,
      })
      .from(versionFiles)
      .innerJoin(blobs, eq(blobs.sha256, versionFiles.sha256))
      .where(and(eq(versionFiles.versionId, versionId), eq(versionFiles.path, path)));
    if (!row) throw new ApiError("file_not_found", `${path} is not in this version`);
    return { entry: { path: row.path, size: row.size, sha256: row.sha256 }, bytes: row.content };
  }

  /** All files of a version with their bytes. */
  async snapshot(versionId: string): Promise<Map<string, Uint8Array>> {
    const rows = await this.db
      .select({ path: versionFiles.path, content: blobs.content })
      .from(versionFiles)
      .innerJoin(blobs, eq(blobs.sha256, versionFiles.sha256))
      .where(eq(versionFiles.versionId, versionId))
      .orderBy(asc(versionFiles.path));
    return new Map(rows.map((r) => [r.path, r.content]));
  }

  async versions(bundleId: string, opts: { limit: number; before?: number }): Promise<VersionRecord[]> {
    const rows = await this.db
      .select()
      .from(versions)
      .where(
        opts.before === undefined
          ? eq(versions.bundleId, bundleId)
          : and(eq(versions.bundleId, bundleId), sql`${versions.number} < ${opts.before}`),
      )
      .orderBy(desc(versions.number))
      .limit(opts.limit);
    return rows.map(versionRecord);
  }

  /** Visible local bundles after `cursor` (a slug), by slug. */
  async listBundleRows(opts: { limit: number; after?: string }) {
    // Pick the page from bundles alone, then join only its rows: joining first made every
    // page read the docs and head versions of all bundles before sorting and cutting.
    const page = this.db
      .select({ id: bundles.id })
      .from(bundles)
      .where(
        and(
          eq(bundles.sourceKind, "local"),
          isNull(bundles.goneAt),
          sql`${bundles.headVersionId} is not null`,
          opts.after === undefined ? undefined : gt(bundles.slug, opts.after),
        ),
      )
      .orderBy(asc(bundles.slug))
      .limit(opts.limit);
    return this.db
      .select({ b: bundles, d: docs, v: versions })
      .from(bundles)
      .innerJoin(docs, eq(docs.bundleId, bundles.id))
      .innerJoin(versions, eq(versions.id, bundles.headVersionId))
      .where(inArray(bundles.id, page))
      .orderBy(asc(bundles.slug));
  }

  /** Visible local bundles among `ids` (with their doc and head version). */
  async bundleRowsByIds(ids: string[]) {
    if (ids.length === 0) return [];
    return this.db
      .select({ b: bundles, d: docs, v: versions })
      .from(bundles)
      .innerJoin(docs, eq(docs.bundleId, bundles.id))
      .innerJoin(versions, eq(versions.id, bundles.headVersionId))
      .where(and(inArray(bundles.id, ids), isNull(bundles.goneAt)));
  }

  async bundleRow(bundleId: string) {
    const [row] = await this.db
      .select({ b: bundles, d: docs, v: versions })
      .from(bundles)
      .innerJoin(docs, eq(docs.bundleId, bundles.id))
      .innerJoin(versions, eq(versions.id, bundles.headVersionId))
      .where(and(eq(bundles.id, bundleId), isNull(bundles.goneAt)));
    if (!row) throw new NotFoundError("bundle", bundleId);
    return row;
  }

  async docRow(docId: string) {
    const [row] = await this.db
      .select({ b: bundles, d: docs, v: versions })
      .from(docs)
      .innerJoin(bundles, eq(docs.bundleId, bundles.id))
      .innerJoin(versions, eq(versions.id, bundles.headVersionId))
      .where(and(eq(docs.id, docId), isNull(bundles.goneAt)));
    if (!row) throw new NotFoundError("doc", docId);
    return row;
  }

  // ------------------------------------------------------------------- writes

  /**
   * Apply file changes to a bundle as one new version, based on `base`.
   * A change that leaves every file as it was creates no version.
   */
  async write(
    docId: string,
    base: string,
    changes: FileChange[],
    author: string,
    message: string,
  ): Promise<WriteResult> {
    const state = this.stateOfDoc(docId);
    return this.withLock(state.id, async () => {
      // Edits made on disk since the caller read count as newer versions.
      const disk = await this.walkBundle(state.slug);
      if (
        this.differs(
          state,
          state.slug,
          disk.map((f) => ({ ...f, path: joinPath(state.slug, f.path) })),
        )
      )
        await this.syncState(state);
      if (state.headId !== base)
        throw new VersionConflictError(base, { id: state.headId ?? "", number: state.headNumber });

      const limits = await this.limits();
      const bundleDir = state.slug === "." ? this.root : join(this.root, state.slug);
      const next = new Map(state.files);
      const newBlobs = new Map<string, Uint8Array>();
      for (const ch of changes) {
        await this.checkWritablePath(state, bundleDir, ch.path);
        if (ch.bytes === null) {
          next.delete(ch.path);
          continue;
        }
        if (ch.bytes.length > limits.maxFileMb * MB)
          throw new TooLargeError("file", ch.bytes.length, limits.maxFileMb);
        const sha = sha256(ch.bytes);
        next.set(ch.path, { sha256: sha, size: ch.bytes.length, mtimeMs: 0 });
        newBlobs.set(sha, ch.bytes);
      }
      const total = [...next.values()].reduce((n, f) => n + f.size, 0);
      if (total > limits.maxBundleMb * MB) throw new TooLargeError("bundle", total, limits.maxBundleMb);
      this.checkSpecDocRules(state, changes);

      const changed =
        next.size !== state.files.size || [...next].some(([p, f]) => state.files.get(p)?.sha256 !== f.sha256);
      if (!changed) return { version: await this.resolveVersion(state.id), changed: false };

      // Disk first (atomically per file), then the record; undo the disk on failure.
      const undo: Array<() => Promise<void>> = [];
      try {
        for (const ch of changes) {
          const abs = join(bundleDir, ch.path);
          const old = state.files.get(ch.path);
          // The disk matches the head here (synced above): keep the old bytes from the disk,
          // which is cheaper than reading the blob back from the database.
          const oldBytes = old
            ? await readFile(abs).catch(async () => (await this.fileBytes(state.headId!, ch.path)).bytes)
            : null;
          if (ch.bytes === null) {
            if (!old) continue;
            await removeFile(abs, bundleDir);
          } else if (old?.sha256 === sha256(ch.bytes)) {
            continue;
          } else {
            await atomicWrite(abs, ch.bytes);
          }
          undo.push(() => (oldBytes ? atomicWrite(abs, oldBytes) : removeFile(abs, bundleDir)));
        }
        for (const ch of changes) {
          if (ch.bytes === null) continue;
          const s = await stat(join(bundleDir, ch.path));
          const f = next.get(ch.path)!;
          next.set(ch.path, { ...f, mtimeMs: Math.floor(s.mtimeMs) });
          if (this.watch) this.ownWrites.set(join(bundleDir, ch.path), Math.floor(s.mtimeMs));
        }
        const version = await this.commitVersion(state, next, newBlobs, author, message);
        await this.afterMainDocChange(state, changes);
        return { version, changed: true };
      } catch (err) {
        for (const u of undo.reverse()) await u().catch(() => {});
        throw err;
      }
    });
  }

  private async checkWritablePath(state: BundleState, bundleDir: string, path: string): Promise<void> {
    safeRelativePath(path);
    // A path inside a nested bundle belongs to that bundle.
    let folder = folderOf(path);
    while (folder !== ".") {
      if (this.claimed.has(joinPath(state.slug, folder)))
        throw new BadPathError(
          path,
          `lies in the folder of another bundle (${joinPath(state.slug, folder)})`,
        );
      folder = folderOf(folder);
    }
    if (!(await staysInside(bundleDir, path)))
      throw new BadPathError(path, "is or crosses a symlink leading outside the bundle");
  }

  /** A bundle keeps exactly one spec doc: no second typed doc at its top, no untyping the main doc. */
  private checkSpecDocRules(state: BundleState, changes: FileChange[]): void {
    for (const ch of changes) {
      const top = !ch.path.includes("/") && isMarkdownPath(ch.path);
      if (ch.path === state.docPath) {
        if (ch.bytes === null)
          throw new ApiError(
            "main_doc_required",
            `${ch.path} is the bundle's spec doc; delete the bundle instead`,
          );
        const info = classifyMarkdown(new TextDecoder().decode(ch.bytes));
        if (info.type === undefined)
          throw new ApiError(
            "main_doc_required",
            `${ch.path} is the bundle's spec doc; its frontmatter must keep a \`type\``,
          );
      } else if (top && ch.bytes !== null) {
        const info = classifyMarkdown(new TextDecoder().decode(ch.bytes));
        if (info.type !== undefined)
          throw new ApiError(
            "two_spec_docs",
            `${ch.path} names a type, which would make it a second spec doc in this bundle; put it in its own folder`,
          );
      }
    }
  }

  private async afterMainDocChange(state: BundleState, changes: FileChange[]): Promise<void> {
    const main = changes.find((c) => c.path === state.docPath && c.bytes !== null);
    if (!main?.bytes) return;
    const info = classifyMarkdown(new TextDecoder().decode(main.bytes));
    if (info.type === undefined) return;
    const problems = docProblems(info.error);
    const key = docKeyOf(state.docPath, info.type, problems);
    if (key === state.docKey) return; // commitVersion already moved updated_at
    await this.db
      .update(docs)
      .set({ profileKey: info.type, problems, updatedAt: this.clock.now() })
      .where(eq(docs.id, state.docId));
    state.docKey = key;
    this.events.emit("changed", { bundleId: state.id });
  }

  /** Rename or move a file inside the bundle as one version. */
  async rename(docId: string, base: string, from: string, to: string, author: string): Promise<WriteResult> {
    const state = this.stateOfDoc(docId);
    safeRelativePath(from, "from");
    safeRelativePath(to, "to");
    if (!state.files.has(from)) throw new ApiError("file_not_found", `${from} is not in the current version`);
    if (state.files.has(to) && to !== from)
      throw new ApiError("file_exists", `${to} already exists; delete it first`);
    if (from === state.docPath) {
      if (to.includes("/") || !isMarkdownPath(to))
        throw new ApiError(
          "main_doc_required",
          "the spec doc must stay a markdown file at the top of its bundle",
        );
    }
    if (from === to) return { version: await this.resolveVersion(state.id), changed: false };
    const { bytes } = await this.fileBytes(state.headId!, from);
    const mainMoves = from === state.docPath;
    if (mainMoves) state.docPath = to; // the spec-doc rules apply to the new name
    try {
      const result = await this.write(
        docId,
        base,
        [
          { path: to, bytes },
          { path: from, bytes: null },
        ],
        author,
        `Rename ${from} to ${to}`,
      );
      if (mainMoves)
        await this.db
          .update(docs)
          .set({ path: to, updatedAt: this.clock.now() })
          .where(eq(docs.id, state.docId));
      if (mainMoves) this.events.emit("changed", { bundleId: state.id });
      return result;
    } catch (err) {
      if (mainMoves) state.docPath = from;
      throw err;
    }
  }

  /** Delete a bundle's own files from disk (nested bundles stay) and every record of it. */
  async deleteBundle(bundleId: string): Promise<{ files: number }> {
    const state = this.states.get(bundleId);
    if (!state) throw new NotFoundError("bundle", bundleId);
    return this.withLock(bundleId, async () => {
      const bundleDir = state.slug === "." ? this.root : join(this.root, state.slug);
      const disk = await this.walkBundle(state.slug);
      for (const f of disk) await removeFile(join(bundleDir, f.path), bundleDir);
      if (state.slug !== ".") await removeFile(bundleDir, this.root).catch(() => {});
      await this.db.delete(bundles).where(eq(bundles.id, bundleId));
      await this.deleteOrphanBlobs();
      this.states.delete(bundleId);
      this.locks.delete(bundleId);
      this.events.emit("changed", { bundleId });
      return { files: disk.length };
    });
  }

  private async deleteOrphanBlobs(): Promise<void> {
    await this.db.execute(
      sql`delete from ${blobs} where not exists (select 1 from ${versionFiles} where ${versionFiles.sha256} = ${blobs.sha256})`,
    );
  }

  /** Version counts and sizes for the delete plan. */
  async bundleStats(bundleId: string): Promise<{ versions: number; files: number; bytes: number }> {
    const state = this.states.get(bundleId);
    if (!state) throw new NotFoundError("bundle", bundleId);
    const [row] = await this.db
      .select({ n: sql<number>`count(*)::int` })
      .from(versions)
      .where(eq(versions.bundleId, bundleId));
    const bytes = [...state.files.values()].reduce((n, f) => n + f.size, 0);
    return { versions: row?.n ?? 0, files: state.files.size, bytes };
  }

  // ---------------------------------------------------- skipped and dismissed

  /** Write a `type` into skipped markdown files so they become spec docs (one request, all picks). */
  async adoptSkipped(
    picks: Array<{ path: string; profile: string }>,
    write: (text: string, type: string) => string,
  ): Promise<string[]> {
    return this.scanLock.run(async () => {
      const folders = new Map<string, string>();
      for (const p of picks) {
        safeRelativePath(p.path);
        if (!this.discovery.skipped.includes(p.path))
          throw new ApiError("validation_failed", `${p.path} is not a skipped markdown file`, {
            errors: [{ field: "body.docs.path", message: "not in GET /skipped" }],
          });
        const folder = folderOf(p.path);
        const other = folders.get(folder);
        if (other !== undefined)
          throw new ApiError(
            "two_spec_docs",
            `${other} and ${p.path} are in the same folder; a bundle holds one spec doc, so pick one or move the other to its own folder`,
          );
        if (this.claimed.has(folder))
          throw new ApiError("two_spec_docs", `${folder} already holds a spec doc`);
        folders.set(folder, p.path);
      }
      const texts = await Promise.all(picks.map((p) => readFile(join(this.root, p.path), "utf8")));
      // Compute every new text before writing any, so a bad file changes nothing.
      const next = picks.map((p, i) => write(texts[i]!, p.profile));
      for (let i = 0; i < picks.length; i++)
        await atomicWrite(join(this.root, picks[i]!.path), new TextEncoder().encode(next[i]));
      return picks.map((p) => folderOf(p.path));
    });
  }

  async dismissed(): Promise<Array<{ path: string; created_by: string; created_at: string }>> {
    const rows = await this.db.select().from(dismissedDocs).orderBy(asc(dismissedDocs.path));
    return rows.map((r) => ({
      path: r.path,
      created_by: r.createdBy,
      created_at: r.createdAt.toISOString(),
    }));
  }

  async dismiss(path: string, by: string): Promise<{ path: string; created_by: string; created_at: string }> {
    safeRelativePath(path);
    if (!isMarkdownPath(path) || !this.mdCache.has(path))
      throw new ApiError("file_not_found", `${path} is not a markdown file under the served folder`);
    const now = this.clock.now();
    await this.db.insert(dismissedDocs).values({ path, createdBy: by, createdAt: now }).onConflictDoNothing();
    const [row] = await this.db.select().from(dismissedDocs).where(eq(dismissedDocs.path, path));
    return { path: row!.path, created_by: row!.createdBy, created_at: row!.createdAt.toISOString() };
  }

  async undismiss(path: string): Promise<boolean> {
    safeRelativePath(path);
    const rows = await this.db.delete(dismissedDocs).where(eq(dismissedDocs.path, path)).returning();
    return rows.length > 0;
  }

  /** Ids of the given slugs' bundles (after a scan). */
  async bundleIdsOfSlugs(slugs: string[]): Promise<string[]> {
    if (slugs.length === 0) return [];
    const rows = await this.db
      .select({ id: bundles.id })
      .from(bundles)
      .where(and(eq(bundles.sourceKind, "local"), inArray(bundles.slug, slugs)));
    return rows.map((r) => r.id);
  }
}
