/**
 * The database bundle store (source kind `db`, hosted mode): a bundle's files live only in
 * the database, as the versions the version repository keeps (versions.ts: immutable
 * versions, content-addressed blobs). There is no folder: nothing is scanned or watched,
 * and every read asks the database, so several processes on one Postgres agree.
 *
 * Writes: load the head -> compare base_version -> check the change (paths, sizes, the
 * one-spec-doc rule; writes.ts) -> one transaction that moves the head only if it is still
 * the base (VersionRepository.commit), stores the blobs, the version, its file list and
 * the doc row. A second writer on the same base gets `version_conflict`, in this process
 * or another.
 */
import { EventEmitter } from "node:events";
import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { checkRename, renameChanges } from "../rename.js";
import type { DiscoveryProblem } from "../../../core/bundle/discover.js";
import { isUniqueViolation, type Db } from "../../db/index.js";
import { bundles, docs } from "../../db/schema.js";
import type { Clock, Logger } from "../../deps.js";
import { ApiError, NotFoundError, VersionConflictError } from "../../errors.js";
import { Mutex } from "../mutex.js";
import { safeRelativePath } from "../paths.js";
import { BundleQueries } from "../queries.js";
import type { FileState } from "../scan.js";
import type {
  BundleStore,
  DiffInputs,
  DismissedDoc,
  DocProblem,
  DocRecord,
  FileChange,
  FileEntry,
  Limits,
  ListedFile,
  StoreEvents,
  VersionRecord,
  WriteResult,
} from "../types.js";
import { VersionRepository } from "../versions.js";
import { announceWriting, checkSpecDocRules, nextFiles, sameFiles } from "../writes.js";
import { docProblems, planNewBundles } from "./plan.js";

export interface DbStoreOptions {
  db: Db;
  clock: Clock;
  logger: Logger;
  /** Current size limits (workspace settings); defaults 10 MB and 50 MB. */
  limits?: () => Promise<Limits>;
}

const DEFAULT_LIMITS: Limits = { maxFileMb: 10, maxBundleMb: 50 };
/** Who version 1 of a new bundle is by when the caller names nobody. */
const SYSTEM_AUTHOR = "system";

/** A bundle's head as a write sees it. */
interface Head {
  bundleId: string;
  docId: string;
  docPath: string;
  profileKey: string;
  problems: DocProblem[] | null;
  headId: string;
  headNumber: number;
  files: Map<string, FileState>;
}

function sameProblems(a: DocProblem[] | null, b: DocProblem[] | null): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

export class DbStore implements BundleStore {
  readonly events = new EventEmitter<StoreEvents>();
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly limits: () => Promise<Limits>;
  private readonly versionRepo: VersionRepository;
  private readonly queries: BundleQueries;
  /** New bundles are made one at a time in this process, so two cannot both take a name. */
  private readonly creating = new Mutex();

  constructor(opts: DbStoreOptions) {
    this.db = opts.db;
    this.clock = opts.clock;
    this.logger = opts.logger;
    this.limits = opts.limits ?? (() => Promise.resolve(DEFAULT_LIMITS));
    this.versionRepo = new VersionRepository(opts.db);
    this.queries = new BundleQueries(opts.db, "db");
  }

  async start(): Promise<void> {}

  async stop(): Promise<void> {
    // Wait for a bundle being created; every other operation is one awaited transaction.
    await this.creating.run(() => Promise.resolve());
  }

  currentLimits(): Promise<Limits> {
    return this.limits();
  }

  // ------------------------------------------------------------------ bundles

  listBundles(opts: { limit: number; after?: string }): Promise<DocRecord[]> {
    return this.queries.list(opts);
  }

  async bundlesByIds(ids: readonly string[]): Promise<DocRecord[]> {
    return (await this.queries.byIds(ids)).filter((r) => r.bundle.sourceKind === "db");
  }

  async bundle(bundleId: string): Promise<DocRecord> {
    const r = await this.queries.bundle(bundleId);
    if (r.bundle.sourceKind !== "db") throw new NotFoundError("bundle", bundleId);
    return r;
  }

  async doc(docId: string): Promise<DocRecord> {
    const r = await this.queries.doc(docId);
    if (r.bundle.sourceKind !== "db") throw new NotFoundError("doc", docId);
    return r;
  }

  async bundleIdOfDoc(docId: string): Promise<string> {
    const [row] = await this.db
      .select({ id: bundles.id })
      .from(docs)
      .innerJoin(bundles, eq(bundles.id, docs.bundleId))
      .where(and(eq(docs.id, docId), eq(bundles.sourceKind, "db")));
    if (!row) throw new NotFoundError("doc", docId);
    return row.id;
  }

  /** Nothing to bring up to date: the database is the source. */
  async refreshBundle(): Promise<void> {}

  /** Nothing invalid is ever stored (a set of files is checked whole before it is), so no problems. */
  problems(): DiscoveryProblem[] {
    return [];
  }

  async bundleStats(bundleId: string): Promise<{ versions: number; files: number; bytes: number }> {
    const head = (await this.bundle(bundleId)).head;
    const files = await this.versionRepo.manifest(head.id);
    return {
      versions: await this.versionRepo.count(bundleId),
      files: files.length,
      bytes: files.reduce((n, f) => n + f.size, 0),
    };
  }

  async deleteBundle(bundleId: string): Promise<{ files: number }> {
    const { files } = await this.bundleStats(bundleId);
    await this.db.delete(bundles).where(and(eq(bundles.id, bundleId), eq(bundles.sourceKind, "db")));
    await this.versionRepo.deleteOrphanBlobs();
    this.events.emit("changed", { bundleId });
    return { files };
  }

  /**
   * True when a bundle is named `name`, or lies under it, compared case-insensitively (as
   * the local store compares folders, so a set of bundles moves between the two stores).
   */
  async nameTaken(name: string): Promise<boolean> {
    const key = safeRelativePath(name, "name").toLowerCase();
    const rows = await this.db
      .select({ slug: bundles.slug })
      .from(bundles)
      .where(eq(bundles.sourceKind, "db"));
    return rows.some((r) => {
      const s = r.slug.toLowerCase();
      return s === key || s.startsWith(key + "/");
    });
  }

  async addFolder(
    name: string,
    files: ReadonlyMap<string, Uint8Array>,
    opts: { author?: string } = {},
  ): Promise<string[]> {
    const folder = safeRelativePath(name, "name");
    const limits = await this.limits();
    const author = opts.author ?? SYSTEM_AUTHOR;
    return this.creating.run(async () => {
      const taken = () =>
        new ApiError("bundle_exists", `a bundle named ${folder} (or under it) exists; pick another name`);
      if (await this.nameTaken(folder)) throw taken();
      const planned = planNewBundles(folder, files, limits);
      const now = this.clock.now();
      const made = planned.map((p) => ({
        ...p,
        id: randomUUID(),
        docId: randomUUID(),
        versionId: randomUUID(),
      }));
      let records: VersionRecord[];
      try {
        records = await this.db.transaction(async (tx) => {
          await tx.insert(bundles).values(
            made.map((m) => ({
              id: m.id,
              sourceKind: "db" as const,
              slug: m.slug,
              title: m.title,
              visibility: "internal" as const,
              headVersionId: m.versionId,
              headNumber: 1,
              createdAt: now,
              updatedAt: now,
            })),
          );
          await tx.insert(docs).values(
            made.map((m) => ({
              id: m.docId,
              bundleId: m.id,
              path: m.docPath,
              profileKey: m.profileKey,
              problems: m.problems,
              createdAt: now,
              updatedAt: now,
            })),
          );
          await this.versionRepo.putBlobs(tx, new Map(made.flatMap((m) => [...m.blobs])));
          return this.versionRepo.insertVersions(
            tx,
            made.map((m) => ({
              id: m.versionId,
              bundleId: m.id,
              number: 0,
              files: m.files,
              author,
              message: "Created",
              createdAt: now,
            })),
          );
        });
      } catch (err) {
        // Another process took the name between the check and the insert.
        if (isUniqueViolation(err)) throw taken();
        throw err;
      }
      made.forEach((m, i) =>
        this.events.emit("version", {
          bundleId: m.id,
          docId: m.docId,
          version: records[i]!,
          mainPath: m.docPath,
          mainBytes: m.main,
        }),
      );
      return made.map((m) => m.id);
    });
  }

  // ----------------------------------------------------------------- versions

  async resolveVersion(bundleId: string, ref?: string): Promise<VersionRecord> {
    return this.versionRepo.resolve(bundleId, ref);
  }

  versions(bundleId: string, opts: { limit: number; before?: number }): Promise<VersionRecord[]> {
    return this.versionRepo.list(bundleId, opts);
  }

  files(versionId: string): Promise<ListedFile[]> {
    return this.versionRepo.files(versionId);
  }

  manifest(versionId: string): Promise<FileEntry[]> {
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

  async hasFile(docId: string, path: string): Promise<boolean> {
    const head = (await this.doc(docId)).head;
    const p = safeRelativePath(path);
    return (await this.versionRepo.manifest(head.id)).some((f) => f.path === p);
  }

  // ------------------------------------------------------------------- writes

  /** The doc's bundle at its head; `version_conflict` when the head is not `base`. */
  private async headOn(docId: string, base: string): Promise<Head> {
    const [row] = await this.db
      .select({
        bundleId: bundles.id,
        headId: bundles.headVersionId,
        headNumber: bundles.headNumber,
        docPath: docs.path,
        profileKey: docs.profileKey,
        problems: docs.problems,
      })
      .from(docs)
      .innerJoin(bundles, eq(bundles.id, docs.bundleId))
      .where(and(eq(docs.id, docId), eq(bundles.sourceKind, "db")));
    if (!row) throw new NotFoundError("doc", docId);
    if (row.headId !== base)
      throw new VersionConflictError(base, { id: row.headId ?? "", number: row.headNumber });
    const files = new Map<string, FileState>();
    for (const f of await this.versionRepo.manifest(base))
      files.set(f.path, { sha256: f.sha256, size: f.size, mtimeMs: 0 });
    return { ...row, docId, headId: base, files };
  }

  async write(
    docId: string,
    base: string,
    changes: FileChange[],
    author: string,
    message: string,
  ): Promise<WriteResult> {
    const list = changes.map((c) => ({ path: safeRelativePath(c.path), bytes: c.bytes }));
    return this.apply(await this.headOn(docId, base), list, author, message);
  }

  async rename(docId: string, base: string, from: string, to: string, author: string): Promise<WriteResult> {
    const src = safeRelativePath(from, "from");
    const dst = safeRelativePath(to, "to");
    const head = await this.headOn(docId, base);
    const { mainMoves } = checkRename(head.files, head.docPath, src, dst);
    if (src === dst) return { version: await this.versionRepo.head(head.bundleId), changed: false };
    const { bytes } = await this.versionRepo.fileBytes(head.headId, src);
    return this.apply(
      head,
      renameChanges(src, dst, bytes),
      author,
      `Rename ${src} to ${dst}`,
      mainMoves ? dst : undefined,
    );
  }

  /** Checked changes on the head as one new version, with the doc row following the spec doc. */
  private async apply(
    head: Head,
    changes: FileChange[],
    author: string,
    message: string,
    newDocPath?: string,
  ): Promise<WriteResult> {
    const { next, newBlobs } = nextFiles(head.files, changes, await this.limits());
    const docPath = newDocPath ?? head.docPath;
    const mainInfo = checkSpecDocRules(docPath, changes);
    if (sameFiles(next, head.files))
      return { version: await this.versionRepo.head(head.bundleId), changed: false };

    const fields: { path?: string; profileKey?: string; problems?: DocProblem[] | null } = {};
    if (newDocPath !== undefined) fields.path = newDocPath;
    if (mainInfo) {
      const problems = docProblems(mainInfo.error);
      if (mainInfo.type !== head.profileKey) fields.profileKey = mainInfo.type;
      if (!sameProblems(problems, head.problems)) fields.problems = problems;
    }
    const now = this.clock.now();
    const main = changes.find((c) => c.path === docPath && c.bytes !== null)?.bytes ?? undefined;
    const committing = this.versionRepo.commit(
      { id: head.headId, number: head.headNumber },
      { bundleId: head.bundleId, number: head.headNumber, files: next, author, message, createdAt: now },
      newBlobs,
      async (tx) => {
        await tx
          .update(docs)
          .set({ ...fields, updatedAt: now })
          .where(eq(docs.id, head.docId));
      },
    );
    // The lint of the new text starts while the version is written (server/runs.ts).
    const ids = { bundleId: head.bundleId, docId: head.docId };
    announceWriting(this.events, this.logger, ids, docPath, main, next, mainInfo?.type);
    const version = await committing;
    this.events.emit("version", {
      bundleId: head.bundleId,
      docId: head.docId,
      version,
      mainPath: docPath,
      ...(main ? { mainBytes: main } : {}),
    });
    if (Object.keys(fields).length > 0) this.events.emit("changed", { bundleId: head.bundleId });
    return { version, changed: true };
  }

  // --------------------------------------------------- skipped and dismissed

  /** No served folder, so no markdown is ever skipped (nor adopted, nor dismissed). */
  skipped(): Promise<string[]> {
    return Promise.resolve([]);
  }

  adoptSkipped(picks: Array<{ path: string }>): Promise<string[]> {
    if (picks.length === 0) return Promise.resolve([]);
    return Promise.reject(
      new ApiError("validation_failed", `${picks[0]!.path} is not a skipped markdown file`, {
        errors: [{ field: "body.docs.path", message: "not in GET /skipped (hosted mode skips nothing)" }],
      }),
    );
  }

  dismissed(): Promise<DismissedDoc[]> {
    return Promise.resolve([]);
  }

  dismiss(path: string): Promise<DismissedDoc> {
    return Promise.resolve().then(() => {
      throw new ApiError(
        "file_not_found",
        `${safeRelativePath(path)} is not a markdown file of a served folder (hosted mode has none)`,
      );
    });
  }

  undismiss(path: string): Promise<boolean> {
    return Promise.resolve().then(() => (safeRelativePath(path), false));
  }
}
