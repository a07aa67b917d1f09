/**
 * The local bundle store: one folder on disk is the truth for file contents; the
 * database keeps every version (content-addressed blobs, see versions.ts) so any old
 * version reads back exactly.
 *
 * Writes: per-bundle lock -> pick up edits made on disk -> compare base_version ->
 * temp + fsync + rename -> one transaction recording the version. Edits by other
 * programs are found by a watcher (and by a stat check before each single-bundle
 * read or write) and recorded as versions authored by `local`.
 *
 * Parts: scan.ts (walking and discovery), watch.ts (the watcher), writes.ts (checks and
 * disk writes), disk-state.ts (what is known of each bundle), versions.ts (versions and
 * blobs), queries.ts (bundle records), skipped.ts (skipped and dismissed docs).
 */
import { EventEmitter } from "node:events";
import { readFile, realpath, stat } from "node:fs/promises";
import { join } from "node:path";
import { and, eq, sql } from "drizzle-orm";
import { folderOf, isMarkdownPath, isUnder, type DiscoveredBundle } from "../../core/bundle/discover.js";
import { checkRename, renameChanges } from "./rename.js";
import type { Db } from "../db/index.js";
import { bundles, docs } from "../db/schema.js";
import type { Clock, Logger } from "../deps.js";
import { ApiError, NotFoundError, VersionConflictError } from "../errors.js";
import {
  diskFileSteps,
  docKeyOf,
  docProblems,
  loadStates,
  saveDiskFiles,
  type BundleState,
} from "./disk-state.js";
import { recordFound } from "./found.js";
import { StateIndex } from "./state-index.js";
import { removeFile, sha256, type DiskFile } from "./fsutil.js";
import { DiskWriter } from "./disk-writer.js";
import { BundleWriter, nameTaken } from "./import.js";
import { Mutex } from "./mutex.js";
import { joinPath, safeRelativePath } from "./paths.js";
import { BundleQueries } from "./queries.js";
import { differs, FolderScanner, type FileState } from "./scan.js";
import { adoptFiles, DismissedDocs } from "./skipped.js";
import type {
  BundleStore,
  DiffInputs,
  DismissedDoc,
  DocProblem,
  DocRecord,
  DocStatus,
  FileChange,
  FileEntry,
  Limits,
  ListedFile,
  StoreEvents,
  VersionRecord,
  WriteResult,
} from "./types.js";
import { VersionRepository, type Manifest } from "./versions.js";
import { FolderWatcher } from "./watch.js";
import { slices } from "../slices.js";
import {
  announceWriting,
  applyToDisk,
  checkSpecDocRules,
  checkWritablePath,
  nextFiles,
  sameFiles,
} from "./writes.js";

export type { FileChange, FileEntry, Limits, VersionEvent, VersionRecord, WriteResult } from "./types.js";

export const LOCAL_AUTHOR = "local";

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

const DEFAULT_LIMITS: Limits = { maxFileMb: 10, maxBundleMb: 50 };

function byPathOrder(a: FileEntry, b: FileEntry): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

export class LocalStore implements BundleStore {
  readonly events = new EventEmitter<StoreEvents>();
  readonly db: Db;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly watch: boolean;
  private readonly limits: () => Promise<Limits>;
  private readonly versionRepo: VersionRepository;
  private readonly queries: BundleQueries;
  private readonly dismissedDocs: DismissedDocs;
  private readonly scanner: FolderScanner;
  private readonly writer = new BundleWriter();
  private watcher: FolderWatcher | undefined;
  /** Bundles by id, doc, slug and head version, with their locks. */
  private readonly index = new StateIndex();
  private readonly scanLock = new Mutex();
  private pendingScan: Promise<void> | undefined;
  /** The watcher's start (see `start`). */
  private watching: Promise<void> | undefined;

  constructor(opts: LocalStoreOptions) {
    this.db = opts.db;
    this.clock = opts.clock;
    this.logger = opts.logger;
    this.watch = opts.watch ?? true;
    this.limits = opts.limits ?? (() => Promise.resolve(DEFAULT_LIMITS));
    this.versionRepo = new VersionRepository(opts.db);
    this.queries = new BundleQueries(opts.db, "local");
    this.dismissedDocs = new DismissedDocs(opts.db, opts.clock);
    this.scanner = new FolderScanner(opts.root);
  }

  /** Saves write their files on a thread of their own (server/store/disk-writer.ts). */
  private readonly disk = new DiskWriter();

  currentLimits(): Promise<Limits> {
    return this.limits();
  }

  /** The served folder (its real path once started). */
  get folder(): string {
    return this.scanner.root;
  }

  async start(): Promise<void> {
    this.scanner.root = await realpath(this.scanner.root);
    for (const s of await loadStates(this.db)) this.index.track(s);
    await this.rememberHeads([...this.index.all()]);
    await this.scanAll();
    if (this.watch) {
      const watcher = new FolderWatcher(this.scanner.root, this.logger, () => this.scanAll());
      this.watcher = watcher;
      // The watcher's first walk of a large folder takes seconds (1,000 bundles: about 2 s
      // of a first start's CPU): requests are answered meanwhile, and one scan once it is
      // ready picks up what changed on disk while it was not watching yet.
      this.watching = watcher
        .start()
        .then(() => this.scanAll())
        .catch((err: unknown) => this.logger.error("watching the folder failed", { error: String(err) }));
    }
  }

  async stop(): Promise<void> {
    await this.watching;
    await this.watcher?.stop();
    this.watcher = undefined;
    await this.pendingScan?.catch(() => {});
    await this.scanLock.run(() => Promise.resolve());
    await this.disk.close();
  }

  private async rememberHeads(list: BundleState[]): Promise<void> {
    for (const r of await this.queries.byIds(list.filter((s) => s.headId).map((s) => s.id)))
      this.index.rememberHead(r.bundle.id, r.head);
  }

  private bundleDir(s: BundleState): string {
    return s.slug === "." ? this.scanner.root : join(this.scanner.root, s.slug);
  }

  // ----------------------------------------------------------------- discovery

  /** Walk the whole folder, find bundles, and record what changed on disk as versions. */
  scanAll(): Promise<void> {
    const run = this.scanLock.run(() => this.doScanAll());
    this.pendingScan = run;
    return run;
  }

  private async doScanAll(): Promise<void> {
    const byPath = await this.scanner.scanAll();
    await this.reconcile(this.scanner.discovery.bundles, byPath);
    const found = new Set(this.scanner.discovery.bundles.map((b) => b.slug));
    for (const s of this.index.all()) {
      if (s.gone || found.has(s.slug)) continue;
      await this.db.update(bundles).set({ goneAt: this.clock.now() }).where(eq(bundles.id, s.id));
      s.gone = true;
      this.events.emit("changed", { bundleId: s.id });
    }
  }

  /**
   * Register what a scan found: new bundles are created in one batch; known ones get
   * their doc fields and files brought up to date.
   */
  private async reconcile(
    found: readonly DiscoveredBundle[],
    byPath: ReadonlyMap<string, DiskFile>,
  ): Promise<void> {
    const fresh: DiscoveredBundle[] = [];
    for (const f of found) {
      const s = this.index.bySlugOf(f.slug);
      if (!s) {
        fresh.push(f);
        continue;
      }
      const disk = f.files
        .map((rel) => byPath.get(f.slug === "." ? rel : `${f.slug}/${rel}`))
        .filter((x): x is DiskFile => x !== undefined)
        .map((d) => ({ ...d, path: f.slug === "." ? d.path : d.path.slice(f.slug.length + 1) }));
      await this.index.withLock(s.id, async () => {
        await this.reviveAndUpdateDoc(s, f.doc.path, f.doc.type, docProblems(f.doc.frontmatterError));
        if (differs(s.files, disk)) await this.syncState(s);
      });
    }
    if (fresh.length > 0) await this.createBundles(fresh, byPath);
  }

  private async reviveAndUpdateDoc(
    state: BundleState,
    docPath: string,
    profileKey: string,
    problems: DocProblem[] | null,
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

  /** Record bundles found on disk, with their first versions, and lint them in bulk. */
  private async createBundles(
    found: readonly DiscoveredBundle[],
    byPath: ReadonlyMap<string, DiskFile>,
  ): Promise<void> {
    const made = await recordFound(this.db, this.versionRepo, this.scanner.root, found, byPath, {
      now: this.clock.now(),
      author: LOCAL_AUTHOR,
      message: "Found on disk",
    });
    for (const { state, record } of made) {
      this.index.track(state);
      this.index.setHead(state, record);
    }
    for (const { state, record, main } of made)
      this.events.emit("version", {
        bundleId: state.id,
        docId: state.docId,
        version: record,
        mainPath: state.docPath,
        bulk: made.length > 1,
        ...(main ? { mainBytes: main } : {}),
      });
  }

  /**
   * Compare a bundle's folder with its head version and record a version by `local`
   * when they differ. Call under the bundle's lock.
   */
  private async syncState(state: BundleState, message = "Changed on disk"): Promise<void> {
    const disk = await this.scanner.walkBundle(state.slug);
    const base = this.bundleDir(state);
    const next = new Map<string, FileState>();
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
    if (state.headId !== null && sameFiles(next, state.files)) {
      // Only mtimes moved (a touch): remember them so the next check is cheap.
      await saveDiskFiles(this.db, state.id, state.files, next);
      state.files = next;
      return;
    }
    await this.commit(state, next, newBlobs, LOCAL_AUTHOR, message, {});
  }

  /** Bring one bundle up to date with the disk before a read or a write (call under its lock). */
  private async syncIfChanged(state: BundleState): Promise<void> {
    if (differs(state.files, await this.scanner.walkBundle(state.slug))) await this.syncState(state);
  }

  /** One transaction: blobs, the version, its file list, the head, the doc row, the disk state. */
  private async commit(
    state: BundleState,
    files: Map<string, FileState>,
    newBlobs: ReadonlyMap<string, Uint8Array>,
    author: string,
    message: string,
    doc: { path?: string; profileKey?: string; problems?: DocProblem[] | null; mainBytes?: Uint8Array },
  ): Promise<VersionRecord> {
    const now = this.clock.now();
    const before = state.files;
    const manifest: Manifest = files;
    let docStatus: DocStatus | undefined;
    const version = await this.versionRepo.commit(
      { id: state.headId, number: state.headNumber },
      { bundleId: state.id, number: state.headNumber, files: manifest, author, message, createdAt: now },
      newBlobs,
      {
        steps: (moved) => {
          const set: Partial<typeof docs.$inferInsert> = { updatedAt: now };
          if (doc.path !== undefined) set.path = doc.path;
          if (doc.profileKey !== undefined) set.profileKey = doc.profileKey;
          if (doc.problems !== undefined) set.problems = doc.problems;
          return [
            this.db
              .update(docs)
              .set(set)
              .where(and(eq(docs.id, state.docId), moved))
              .getSQL(),
            ...diskFileSteps(state.id, before, files, moved),
          ];
        },
        // The doc's review status, for the version event (its listeners skip a query).
        read: {
          value: sql`(select ${docs.status} from ${docs} where ${docs.id} = ${state.docId})`,
          into: (value) => (docStatus = value as DocStatus | undefined),
        },
      },
    );
    this.index.setHead(state, version);
    state.files = files;
    this.events.emit("version", {
      bundleId: state.id,
      docId: state.docId,
      version,
      mainPath: state.docPath,
      ...(doc.mainBytes ? { mainBytes: doc.mainBytes } : {}),
      ...(docStatus ? { docStatus } : {}),
    });
    return version;
  }

  /**
   * Register a folder just written under the served folder: scan only it when no
   * existing bundle holds it, else the whole folder. Answers the ids of the bundles in it.
   */
  private async register(folder: string): Promise<string[]> {
    if (folder === "." || this.scanner.insideClaimed(folder)) {
      await this.doScanAll();
    } else {
      const { byPath, found } = await this.scanner.scanFolder(folder);
      await this.reconcile(found.bundles, byPath);
    }
    return [...this.index.all()]
      .filter((s) => !s.gone && (s.slug === folder || isUnder(s.slug, folder)))
      .sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0))
      .map((s) => s.id);
  }

  /**
   * Tell the watcher about files (paths relative to `folder`) and folders the store just
   * put on disk, so their events do not set off a rescan of the whole folder.
   */
  private async rememberOwn(folder: string, paths: readonly string[]): Promise<void> {
    const watcher = this.watcher;
    if (!watcher) return;
    const dirs = new Set<string>();
    // Fast completions of one stat after another can run in one turn of the loop: pause.
    const pause = slices();
    for (const p of paths) {
      await pause();
      const rel = joinPath(folder, p);
      const abs = join(this.scanner.root, rel);
      const s = await stat(abs).catch(() => undefined);
      if (s) watcher.wrote(abs, Math.floor(s.mtimeMs));
      for (let d = folderOf(rel); d !== "." && (d === folder || isUnder(d, folder)); d = folderOf(d))
        dirs.add(join(this.scanner.root, d));
    }
    for (const d of dirs) watcher.madeDir(d);
  }

  async nameTaken(name: string): Promise<boolean> {
    return nameTaken(this.scanner.root, safeRelativePath(name, "name"));
  }

  async addFolder(name: string, files: ReadonlyMap<string, Uint8Array>): Promise<string[]> {
    const folder = safeRelativePath(name, "name");
    await this.writer.write(this.scanner.root, folder, files);
    await this.rememberOwn(folder, [...files.keys()]);
    return this.scanLock.run(() => this.register(folder));
  }

  // --------------------------------------------------------------------- reads

  problems() {
    return this.scanner.discovery.problems;
  }

  async skipped(): Promise<string[]> {
    const dismissed = await this.dismissedDocs.paths();
    return this.scanner.discovery.skipped.filter((p) => !dismissed.has(p));
  }

  async refreshBundle(bundleId: string): Promise<void> {
    const state = this.index.get(bundleId);
    if (!state) return;
    await this.index.withLock(bundleId, () => this.syncIfChanged(state));
  }

  async bundleIdOfDoc(docId: string): Promise<string> {
    return Promise.resolve(this.index.ofDoc(docId).id);
  }

  async hasFile(docId: string, path: string): Promise<boolean> {
    return Promise.resolve(this.index.ofDoc(docId).files.has(safeRelativePath(path)));
  }

  listBundles(opts: { limit: number; after?: string }): Promise<DocRecord[]> {
    return this.queries.list(opts);
  }

  bundlesByIds(ids: readonly string[]): Promise<DocRecord[]> {
    return this.queries.byIds(ids);
  }

  bundle(bundleId: string): Promise<DocRecord> {
    return this.queries.bundle(bundleId);
  }

  doc(docId: string): Promise<DocRecord> {
    return this.queries.doc(docId);
  }

  async resolveVersion(bundleId: string, ref?: string): Promise<VersionRecord> {
    if (ref === undefined || ref === "") {
      const s = this.index.get(bundleId);
      const head = s?.headId ? this.index.head(s.headId) : undefined;
      if (head) return head.record;
    }
    return this.versionRepo.resolve(bundleId, ref);
  }

  versions(bundleId: string, opts: { limit: number; before?: number }): Promise<VersionRecord[]> {
    return this.versionRepo.list(bundleId, opts);
  }

  files(versionId: string): Promise<ListedFile[]> {
    return this.versionRepo.files(versionId);
  }

  async manifest(versionId: string): Promise<FileEntry[]> {
    const head = this.index.head(versionId);
    if (head)
      return [...head.state.files]
        .map(([path, f]) => ({ path, size: f.size, sha256: f.sha256 }))
        .sort(byPathOrder);
    return this.versionRepo.manifest(versionId);
  }

  fileBytes(versionId: string, path: string): Promise<{ entry: FileEntry; bytes: Uint8Array }> {
    return this.versionRepo.fileBytes(versionId, path.normalize("NFC"));
  }

  snapshot(versionId: string): Promise<Map<string, Uint8Array>> {
    return this.versionRepo.snapshot(versionId);
  }

  async diffInputs(fromVersionId: string, toVersionId: string): Promise<DiffInputs> {
    const [from, to] = await Promise.all([this.manifest(fromVersionId), this.manifest(toVersionId)]);
    return { from, to, bytes: (sha) => this.versionRepo.blob(sha) };
  }

  async bundleStats(bundleId: string): Promise<{ versions: number; files: number; bytes: number }> {
    const state = this.index.get(bundleId);
    if (!state) throw new NotFoundError("bundle", bundleId);
    const bytes = [...state.files.values()].reduce((n, f) => n + f.size, 0);
    return { versions: await this.versionRepo.count(bundleId), files: state.files.size, bytes };
  }

  // -------------------------------------------------------------------- writes

  /** Under the bundle's lock: pick up disk edits, then refuse a stale base before anything else. */
  private onBase<T>(state: BundleState, base: string, fn: () => Promise<T>): Promise<T> {
    return this.index.withLock(state.id, async () => {
      await this.syncIfChanged(state);
      if (state.headId !== base)
        throw new VersionConflictError(base, { id: state.headId ?? "", number: state.headNumber });
      return fn();
    });
  }

  async write(
    docId: string,
    base: string,
    changes: FileChange[],
    author: string,
    message: string,
  ): Promise<WriteResult> {
    const state = this.index.ofDoc(docId);
    const list = changes.map((c) => ({ path: safeRelativePath(c.path), bytes: c.bytes }));
    return this.onBase(state, base, () => this.apply(state, list, author, message));
  }

  async rename(docId: string, base: string, from: string, to: string, author: string): Promise<WriteResult> {
    const state = this.index.ofDoc(docId);
    const src = safeRelativePath(from, "from");
    const dst = safeRelativePath(to, "to");
    return this.onBase(state, base, async () => {
      const { mainMoves } = checkRename(state.files, state.docPath, src, dst);
      if (src === dst) return { version: await this.resolveVersion(state.id), changed: false };
      const bytes = await readFile(join(this.bundleDir(state), src)).catch(
        async () => (await this.versionRepo.fileBytes(state.headId!, src)).bytes,
      );
      return this.apply(
        state,
        renameChanges(src, dst, bytes),
        author,
        `Rename ${src} to ${dst}`,
        mainMoves ? dst : undefined,
      );
    });
  }

  /** Apply checked changes on the current head (call through `onBase`). */
  private async apply(
    state: BundleState,
    changes: FileChange[],
    author: string,
    message: string,
    newDocPath?: string,
  ): Promise<WriteResult> {
    const limits = await this.limits();
    const dir = this.bundleDir(state);
    for (const ch of changes)
      await checkWritablePath(state.slug, dir, ch.path, this.scanner.claimed, state.files.has(ch.path));
    const { next, newBlobs } = nextFiles(state.files, changes, limits);
    const docPath = newDocPath ?? state.docPath;
    const mainInfo = checkSpecDocRules(
      docPath,
      changes,
      this.scanner.typeOf(state.slug === "." ? docPath : `${state.slug}/${docPath}`),
    );
    if (sameFiles(next, state.files)) return { version: await this.resolveVersion(state.id), changed: false };

    // The doc row follows the main doc: its new path, and its type and problems when its text changed.
    const main = changes.find((c) => c.path === docPath && c.bytes !== null)?.bytes ?? undefined;
    let docFields: { path?: string; profileKey?: string; problems?: DocProblem[] | null } = {};
    let key = state.docKey;
    if (mainInfo) {
      const problems = docProblems(mainInfo.error);
      key = docKeyOf(docPath, mainInfo.type, problems);
      if (key !== state.docKey) docFields = { profileKey: mainInfo.type, problems };
    }
    if (newDocPath !== undefined) {
      docFields.path = newDocPath;
      if (!main) {
        const [, profileKey, problems] = JSON.parse(state.docKey) as [string, string, DocProblem[] | null];
        key = docKeyOf(newDocPath, profileKey, problems);
      }
    }

    const headId = state.headId!;
    const onDisk = applyToDisk(dir, state.files, changes, {
      storedBytes: async (path) => (await this.versionRepo.fileBytes(headId, path)).bytes,
      onWriting: (abs) => this.watcher?.willWrite(abs),
      onWritten: (abs, m) => this.watcher?.wrote(abs, m),
      write: (abs, bytes) => this.disk.write(abs, bytes),
    });
    // The lint of the new text starts while the disk writer thread writes it (server/runs.ts).
    const ids = { bundleId: state.id, docId: state.docId };
    announceWriting(this.events, this.logger, ids, docPath, main, next, mainInfo?.type);
    const { mtimes, undo } = await onDisk;
    for (const [path, m] of mtimes) next.set(path, { ...next.get(path)!, mtimeMs: m });
    const oldDocPath = state.docPath;
    const oldKey = state.docKey;
    state.docPath = docPath;
    try {
      const version = await this.commit(state, next, newBlobs, author, message, {
        ...docFields,
        ...(main ? { mainBytes: main } : {}),
      });
      state.docKey = key;
      if (key !== oldKey) this.events.emit("changed", { bundleId: state.id });
      return { version, changed: true };
    } catch (err) {
      state.docPath = oldDocPath;
      await undo();
      throw err;
    }
  }

  async deleteBundle(bundleId: string): Promise<{ files: number }> {
    const state = this.index.get(bundleId);
    if (!state) throw new NotFoundError("bundle", bundleId);
    return this.index.withLock(bundleId, async () => {
      const dir = this.bundleDir(state);
      const disk = await this.scanner.walkBundle(state.slug);
      for (const f of disk) await removeFile(join(dir, f.path), dir);
      if (state.slug !== ".") await removeFile(dir, this.scanner.root).catch(() => {});
      await this.db.delete(bundles).where(eq(bundles.id, bundleId));
      await this.versionRepo.deleteOrphanBlobs();
      this.index.untrack(state);
      this.events.emit("changed", { bundleId });
      return { files: disk.length };
    });
  }

  // ---------------------------------------------------- skipped and dismissed

  adoptSkipped(
    picks: Array<{ path: string; profile: string }>,
    write: (text: string, type: string) => string,
  ): Promise<string[]> {
    return this.scanLock.run(async () => {
      const folders = await adoptFiles(
        this.scanner.root,
        picks,
        this.scanner.discovery.skipped,
        this.scanner.claimed,
        write,
      );
      await this.rememberOwn(
        ".",
        picks.map((p) => safeRelativePath(p.path)),
      );
      const ids = new Set<string>();
      for (const folder of folders) {
        await this.register(folder);
        const s = this.index.bySlugOf(folder);
        if (s) ids.add(s.id);
      }
      return [...ids];
    });
  }

  dismissed(): Promise<DismissedDoc[]> {
    return this.dismissedDocs.list();
  }

  async dismiss(path: string, by: string): Promise<DismissedDoc> {
    const p = safeRelativePath(path);
    if (!isMarkdownPath(p) || !this.scanner.isMarkdownFile(p))
      throw new ApiError("file_not_found", `${p} is not a markdown file under the served folder`);
    return this.dismissedDocs.add(p, by);
  }

  undismiss(path: string): Promise<boolean> {
    return this.dismissedDocs.remove(safeRelativePath(path));
  }
}
