/**
 * The repohost bundle store (source kind `repohost`): bundles read from a repo, branch
 * and folder. The repo is the source of truth: a bundle's versions are the commits on the
 * branch that touched its folder (`created_by` the commit author, `message` its message);
 * the database keeps only their file lists, as git blob ids, and the bytes of a file are
 * read from git by that id when asked (a small in-memory cache in front), never copied
 * into the database, but for an archived bundle's current files (its source was deleted:
 * `archive`). An edit through the API makes a draft: a version whose changed files
 * are held in the service (sha256 blobs, as the `db` store keeps them) until it is
 * published as a pull request or discarded.
 *
 * A file entry's `sha256` is therefore the 40-hex git blob id for a file as the repo holds
 * it, and a 64-hex sha256 for a file of a draft (docs/api-decisions.md, "app").
 */
import { EventEmitter } from "node:events";
import { createHash, randomUUID } from "node:crypto";
import { and, asc, eq, inArray, isNull } from "drizzle-orm";
import pLimit from "p-limit";
import { classifyMarkdown, isMarkdownPath } from "../../core/bundle/discover.js";
import type { DiscoveryProblem } from "../../core/bundle/discover.js";
import type { Db } from "../db/index.js";
import {
  bundles,
  docs,
  repohostBundles,
  repohostSources,
  repohostVersions,
  versionFiles,
  versions,
} from "../db/schema.js";
import type { Clock, Logger } from "../deps.js";
import { ApiError, NotFoundError, VersionConflictError } from "../errors.js";
import { docProblems } from "../store/db/plan.js";
import { safeRelativePath } from "../store/paths.js";
import { BundleQueries } from "../store/queries.js";
import { checkRename, renameChanges } from "../store/rename.js";
import type { FileState } from "../store/scan.js";
import type {
  BundleStore,
  DiffInputs,
  DismissedDoc,
  DocRecord,
  FileChange,
  FileEntry,
  Limits,
  ListedFile,
  RepohostOrigin,
  StoreEvents,
  VersionRecord,
  WriteResult,
} from "../store/types.js";
import { isUtf8, VersionRepository } from "../store/versions.js";
import { checkSpecDocRules, nextFiles, sameFiles } from "../store/writes.js";
import { asApiError, GitWriter, type CommitInfo, type GitHubApi } from "./github.js";
import { filesAt } from "./archive.js";
import { inFolder, relTo, SourceSync, type GitFile, type SyncResult } from "./sync.js";

export type SourceRow = typeof repohostSources.$inferSelect;

export interface RepohostStoreOptions {
  db: Db;
  clock: Clock;
  logger: Logger;
  limits: () => Promise<Limits>;
  /** The client that reads a source's repo (the workspace token, or the App installation). */
  clientFor: (source: SourceRow) => Promise<GitHubApi>;
}

export type { SyncResult } from "./sync.js";

const decoder = new TextDecoder();
/** New bundles written per transaction on a first read (and their lint queued per slice). */
const CREATE_SLICE = 100;
const GIT_SHA = /^[0-9a-f]{40}$/;
/** Bytes of git blobs kept in memory. */
const CACHE_BYTES = 64 * 1024 * 1024;

export class RepohostStore implements BundleStore {
  readonly events = new EventEmitter<StoreEvents>();
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly limits: () => Promise<Limits>;
  private readonly clientFor: (source: SourceRow) => Promise<GitHubApi>;
  private readonly queries: BundleQueries;
  readonly versionRepo: VersionRepository;
  private readonly blobCache = new Map<string, Uint8Array>();
  private cachedBytes = 0;
  /** Problems and skipped markdown of each source's last sync. */
  private readonly lastScan = new Map<
    string,
    { problems: DiscoveryProblem[]; skipped: string[]; shas?: Map<string, string> }
  >();
  /** One sync per source at a time. */
  private readonly syncing = new Map<string, Promise<SyncResult>>();
  private readonly syncer: SourceSync;

  constructor(opts: RepohostStoreOptions) {
    this.db = opts.db;
    this.clock = opts.clock;
    this.logger = opts.logger;
    this.limits = opts.limits;
    this.clientFor = opts.clientFor;
    this.queries = new BundleQueries(opts.db, "repohost");
    this.versionRepo = new VersionRepository(opts.db);
    this.syncer = new SourceSync(this, opts.db, opts.clock, opts.logger, opts.clientFor);
  }

  async start(): Promise<void> {}
  async stop(): Promise<void> {
    await Promise.allSettled([...this.syncing.values()]);
  }
  currentLimits(): Promise<Limits> {
    return this.limits();
  }

  // ------------------------------------------------------------------ bundles

  /** Records with their origin (repo, branch, folder, draft): one query for the lot. */
  private async withOrigin(list: DocRecord[]): Promise<DocRecord[]> {
    if (list.length === 0) return list;
    const rows = await this.db
      .select({ rb: repohostBundles, s: repohostSources })
      .from(repohostBundles)
      .innerJoin(repohostSources, eq(repohostSources.id, repohostBundles.sourceId))
      .where(
        inArray(
          repohostBundles.bundleId,
          list.map((r) => r.bundle.id),
        ),
      );
    const by = new Map(rows.map((r) => [r.rb.bundleId, r]));
    return list.map((r) => {
      const o = by.get(r.bundle.id);
      if (!o) return r;
      const origin: RepohostOrigin = {
        repo: `${o.s.owner}/${o.s.repo}`,
        branch: o.s.branch,
        path: o.rb.folder === "." ? "" : o.rb.folder,
        draft: o.rb.draftBase !== null,
        ahead: o.rb.ahead,
        ...(o.rb.prUrl ? { pr_url: o.rb.prUrl } : {}),
      };
      return { ...r, bundle: { ...r.bundle, origin } };
    });
  }

  async listBundles(opts: { limit: number; after?: string; archived?: boolean }): Promise<DocRecord[]> {
    return this.withOrigin(await this.queries.list(opts));
  }
  async bundlesByIds(ids: readonly string[]): Promise<DocRecord[]> {
    return this.withOrigin((await this.queries.byIds(ids)).filter((r) => r.bundle.sourceKind === "repohost"));
  }
  async bundle(bundleId: string): Promise<DocRecord> {
    const r = await this.queries.bundle(bundleId);
    if (r.bundle.sourceKind !== "repohost") throw new NotFoundError("bundle", bundleId);
    return (await this.withOrigin([r]))[0]!;
  }
  async doc(docId: string): Promise<DocRecord> {
    const r = await this.queries.doc(docId);
    if (r.bundle.sourceKind !== "repohost") throw new NotFoundError("doc", docId);
    return (await this.withOrigin([r]))[0]!;
  }
  async bundleIdOfDoc(docId: string): Promise<string> {
    return (await this.doc(docId)).bundle.id;
  }
  /** Webhooks and syncs keep bundles in step; a read does not call the repo host. */
  async refreshBundle(): Promise<void> {}
  problems(): DiscoveryProblem[] {
    return [...this.lastScan.values()].flatMap((s) => s.problems);
  }
  /** True when a full read of the source's tree happened in this process. */
  hasScan(sourceId: string): boolean {
    return this.lastScan.get(sourceId)?.shas !== undefined;
  }

  /** The text of a markdown file the last full read of a source passed over. */
  async skippedText(source: SourceRow, path: string): Promise<string | undefined> {
    const sha = this.lastScan.get(source.id)?.shas?.get(path);
    return sha ? decoder.decode(await this.bytesOf(sha, source)) : undefined;
  }

  /** Markdown of a source that the last sync passed over (no type). */
  skippedOf(sourceId: string): string[] | undefined {
    return this.lastScan.get(sourceId)?.skipped;
  }
  async bundleStats(bundleId: string): Promise<{ versions: number; files: number; bytes: number }> {
    const head = (await this.bundle(bundleId)).head;
    const files = await this.manifest(head.id);
    return {
      versions: await this.versionRepo.count(bundleId),
      files: files.length,
      bytes: files.reduce((n, f) => n + f.size, 0),
    };
  }
  /** The repo holds the files: a repohost bundle is removed through its source or a pull request (delete-plan). */
  deleteBundle(): Promise<{ files: number }> {
    return Promise.reject(
      new ApiError(
        "repohost_bundle_in_repo",
        "a repohost bundle lives in its repo: stop reading its source (DELETE /repohost/sources/{sourceId}) or delete its folder in a pull request (GET /bundles/{bundleId}/delete-plan)",
      ),
    );
  }
  /** POST /bundles makes `db` bundles; a repohost folder never clashes with one. */
  nameTaken(): Promise<boolean> {
    return Promise.resolve(false);
  }
  addFolder(): Promise<string[]> {
    return Promise.reject(
      new ApiError(
        "repohost_bundle_create",
        "new bundles of a repohost source come from its repo: add the folder there and sync the source",
      ),
    );
  }

  // ----------------------------------------------------------------- versions

  resolveVersion(bundleId: string, ref?: string): Promise<VersionRecord> {
    return this.versionRepo.resolve(bundleId, ref);
  }
  versions(bundleId: string, opts: { limit: number; before?: number }): Promise<VersionRecord[]> {
    return this.versionRepo.list(bundleId, opts);
  }

  /** The source and folder a version's bundle is read from. */
  private async originOfVersion(
    versionId: string,
  ): Promise<{ source: SourceRow; folder: string; commit: string | null }> {
    const [row] = await this.db
      .select({ s: repohostSources, folder: repohostBundles.folder, commit: repohostVersions.commit })
      .from(versions)
      .innerJoin(repohostBundles, eq(repohostBundles.bundleId, versions.bundleId))
      .innerJoin(repohostSources, eq(repohostSources.id, repohostBundles.sourceId))
      .leftJoin(repohostVersions, eq(repohostVersions.versionId, versions.id))
      .where(eq(versions.id, versionId));
    if (!row) throw new ApiError("bad_version", `no version ${versionId} of a repohost bundle`);
    return { source: row.s, folder: row.folder, commit: row.commit };
  }

  /**
   * The file list of a version. An older commit's list is read from git the first time
   * it is asked for (the tree at that commit), then kept.
   */
  async manifest(versionId: string): Promise<FileEntry[]> {
    const list = await this.versionRepo.manifest(versionId);
    if (list.length > 0) return list;
    const { source, folder, commit } = await this.originOfVersion(versionId);
    if (!commit) return list;
    let entries;
    try {
      const api = await this.clientFor(source);
      entries = await filesAt(api, source.owner, source.repo, commit, folder === "." ? "" : folder);
    } catch (err) {
      if (source.deletedAt) throw unavailable(source, `the files of commit ${commit}`, err);
      throw asApiError(err, `reading ${source.owner}/${source.repo} at ${commit}`);
    }
    const rows = entries
      .filter((e) => inFolder(e.path, folder))
      .map((e) => ({ versionId, path: relTo(e.path, folder), sha256: e.sha, size: e.size }));
    if (rows.length > 0) await this.db.insert(versionFiles).values(rows).onConflictDoNothing();
    return rows
      .map((r) => ({ path: r.path, size: r.size, sha256: r.sha256 }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  async files(versionId: string): Promise<ListedFile[]> {
    const list = await this.manifest(versionId);
    const origin = list.some((f) => GIT_SHA.test(f.sha256))
      ? await this.originOfVersion(versionId)
      : undefined;
    return Promise.all(
      list.map(async (f) => ({ ...f, utf8: isUtf8(await this.bytesOf(f.sha256, origin?.source)) })),
    );
  }

  /**
   * Bytes of a file: from git by blob id (cached), or a draft's blob from the database. A
   * deleted source's files are first looked for among those kept when its bundles were
   * archived (`keepHead`); what is neither kept nor given by the repo host any more is
   * `content_unavailable`.
   */
  private async bytesOf(sha: string, source: SourceRow | undefined): Promise<Uint8Array> {
    if (!GIT_SHA.test(sha)) return this.versionRepo.blob(sha);
    const hit = this.blobCache.get(sha);
    if (hit) return hit;
    if (!source) throw new Error(`git blob ${sha} without a source`);
    if (source.deletedAt) {
      const kept = (await this.versionRepo.blobs([sha])).get(sha);
      if (kept) return kept;
    }
    let bytes: Uint8Array;
    try {
      const api = await this.clientFor(source);
      bytes = await api.blob(source.owner, source.repo, sha);
    } catch (err) {
      if (source.deletedAt) throw unavailable(source, `blob ${sha}`, err);
      throw asApiError(err, `reading ${source.owner}/${source.repo} blob ${sha}`);
    }
    this.remember(sha, bytes);
    return bytes;
  }

  remember(sha: string, bytes: Uint8Array): void {
    if (bytes.length > CACHE_BYTES / 4) return;
    this.blobCache.set(sha, bytes);
    this.cachedBytes += bytes.length;
    for (const [k, v] of this.blobCache) {
      if (this.cachedBytes <= CACHE_BYTES) break;
      this.blobCache.delete(k);
      this.cachedBytes -= v.length;
    }
  }

  async fileBytes(versionId: string, path: string): Promise<{ entry: FileEntry; bytes: Uint8Array }> {
    const p = path.normalize("NFC");
    const entry = (await this.manifest(versionId)).find((f) => f.path === p);
    if (!entry) throw new ApiError("file_not_found", `${p} is not in this version`);
    const source = GIT_SHA.test(entry.sha256) ? (await this.originOfVersion(versionId)).source : undefined;
    return { entry, bytes: await this.bytesOf(entry.sha256, source) };
  }

  async snapshot(versionId: string): Promise<Map<string, Uint8Array>> {
    const list = await this.manifest(versionId);
    const source = list.some((f) => GIT_SHA.test(f.sha256))
      ? (await this.originOfVersion(versionId)).source
      : undefined;
    const limit = pLimit(8);
    const pairs = await Promise.all(
      list.map((f) => limit(async () => [f.path, await this.bytesOf(f.sha256, source)] as const)),
    );
    return new Map(pairs);
  }

  async diffInputs(fromVersionId: string, toVersionId: string): Promise<DiffInputs> {
    const [from, to] = await Promise.all([this.manifest(fromVersionId), this.manifest(toVersionId)]);
    const source = (await this.originOfVersion(toVersionId)).source;
    return { from, to, bytes: (sha) => this.bytesOf(sha, source) };
  }

  async hasFile(docId: string, path: string): Promise<boolean> {
    const head = (await this.doc(docId)).head;
    const p = safeRelativePath(path);
    return (await this.manifest(head.id)).some((f) => f.path === p);
  }

  // ------------------------------------------------------------------- writes (drafts)

  async write(
    docId: string,
    base: string,
    changes: FileChange[],
    author: string,
    message: string,
  ): Promise<WriteResult> {
    const list = changes.map((c) => ({ path: safeRelativePath(c.path), bytes: c.bytes }));
    return this.applyDraft(docId, base, list, author, message);
  }

  async rename(docId: string, base: string, from: string, to: string, author: string): Promise<WriteResult> {
    const src = safeRelativePath(from, "from");
    const dst = safeRelativePath(to, "to");
    const rec = await this.doc(docId);
    if (rec.head.id !== base)
      throw new VersionConflictError(base, { id: rec.head.id, number: rec.head.number });
    const files = await this.stateOf(base);
    const { mainMoves } = checkRename(files, rec.doc.path, src, dst);
    if (src === dst) return { version: rec.head, changed: false };
    const { bytes } = await this.fileBytes(base, src);
    return this.applyDraft(
      docId,
      base,
      renameChanges(src, dst, bytes),
      author,
      `Rename ${src} to ${dst}`,
      mainMoves ? dst : undefined,
    );
  }

  private async stateOf(versionId: string): Promise<Map<string, FileState>> {
    return new Map(
      (await this.manifest(versionId)).map((f) => [f.path, { sha256: f.sha256, size: f.size, mtimeMs: 0 }]),
    );
  }

  /** An edit through the API: a new version held in the service, and the bundle marked as a draft. */
  private async applyDraft(
    docId: string,
    base: string,
    changes: FileChange[],
    author: string,
    message: string,
    newDocPath?: string,
  ): Promise<WriteResult> {
    const rec = await this.doc(docId);
    if (rec.head.id !== base)
      throw new VersionConflictError(base, { id: rec.head.id, number: rec.head.number });
    const current = await this.stateOf(base);
    const { next, newBlobs } = nextFiles(current, changes, await this.limits());
    const docPath = newDocPath ?? rec.doc.path;
    const mainInfo = checkSpecDocRules(docPath, changes);
    if (sameFiles(next, current)) return { version: rec.head, changed: false };
    const [rb] = await this.db
      .select()
      .from(repohostBundles)
      .where(eq(repohostBundles.bundleId, rec.bundle.id));
    const [src] = rb
      ? await this.db.select().from(repohostSources).where(eq(repohostSources.id, rb.sourceId))
      : [];
    const now = this.clock.now();
    const fields: { path?: string; profileKey?: string; problems?: ReturnType<typeof docProblems> } = {};
    if (newDocPath !== undefined) fields.path = newDocPath;
    if (mainInfo) {
      if (mainInfo.type !== rec.doc.profileKey) fields.profileKey = mainInfo.type;
      fields.problems = docProblems(mainInfo.error);
    }
    const version = await this.versionRepo.commit(
      { id: rec.head.id, number: rec.head.number },
      { bundleId: rec.bundle.id, number: rec.head.number, files: next, author, message, createdAt: now },
      newBlobs,
      async (tx) => {
        await tx
          .update(docs)
          .set({ ...fields, updatedAt: now })
          .where(eq(docs.id, docId));
        if (rb && rb.draftBase === null)
          await tx
            .update(repohostBundles)
            .set({ draftBase: src?.lastCommit ?? "", ahead: false, prUrl: null, prNumber: null })
            .where(eq(repohostBundles.bundleId, rec.bundle.id));
      },
    );
    const main = changes.find((c) => c.path === docPath && c.bytes !== null)?.bytes ?? undefined;
    this.events.emit("version", {
      bundleId: rec.bundle.id,
      docId,
      version,
      mainPath: docPath,
      ...(main ? { mainBytes: main } : {}),
    });
    this.events.emit("changed", { bundleId: rec.bundle.id });
    return { version, changed: true };
  }

  /**
   * Drop the draft: the files as the repo last had them become current again, as a new
   * version (versions are never rewritten). A draft that was `ahead` then reads the
   * branch, so the bundle catches up with what moved meanwhile.
   */
  async discardDraft(docId: string, author: string): Promise<void> {
    const any = await this.queries.doc(docId);
    if (any.bundle.sourceKind !== "repohost")
      throw new ApiError(
        "no_draft",
        "only a bundle read from a repo host has a draft; this one's edits are its versions",
      );
    const rec = await this.doc(docId);
    const [rb] = await this.db
      .select()
      .from(repohostBundles)
      .where(eq(repohostBundles.bundleId, rec.bundle.id));
    if (!rb || rb.draftBase === null || !rb.repoVersionId)
      throw new ApiError("no_draft", `${rec.bundle.slug} has no draft to discard`);
    const repoFiles = await this.stateOf(rb.repoVersionId);
    // The spec doc as the repo has it (a draft may have renamed it).
    const [repoDoc] = await this.db
      .select({ path: docs.path })
      .from(docs)
      .where(eq(docs.bundleId, rec.bundle.id));
    let docPath = repoDoc && repoFiles.has(repoDoc.path) ? repoDoc.path : undefined;
    const source = (await this.originOfVersion(rb.repoVersionId)).source;
    if (!docPath)
      for (const [p, f] of repoFiles)
        if (
          !p.includes("/") &&
          isMarkdownPath(p) &&
          classifyMarkdown(decoder.decode(await this.bytesOf(f.sha256, source))).type
        )
          docPath = p;
    if (!docPath) throw new ApiError("no_draft", `the repo's version of ${rec.bundle.slug} has no spec doc`);
    const main = await this.bytesOf(repoFiles.get(docPath)!.sha256, source);
    const info = classifyMarkdown(decoder.decode(main));
    const now = this.clock.now();
    const version = await this.versionRepo.commit(
      { id: rec.head.id, number: rec.head.number },
      {
        bundleId: rec.bundle.id,
        number: rec.head.number,
        files: repoFiles,
        author,
        message: "Discard the draft",
        createdAt: now,
      },
      new Map(),
      async (tx) => {
        await tx
          .update(repohostBundles)
          .set({ draftBase: null, ahead: false, prUrl: null, prNumber: null })
          .where(eq(repohostBundles.bundleId, rec.bundle.id));
        await tx
          .update(docs)
          .set({
            path: docPath,
            profileKey: info.type ?? rec.doc.profileKey,
            problems: docProblems(info.error),
            updatedAt: now,
          })
          .where(eq(docs.id, docId));
      },
    );
    this.events.emit("version", {
      bundleId: rec.bundle.id,
      docId,
      version,
      mainPath: docPath,
      mainBytes: main,
    });
    this.events.emit("changed", { bundleId: rec.bundle.id });
    if (rb.ahead) await this.sync(rb.sourceId, { full: true });
  }

  /**
   * Publish the draft: a new branch with one commit (git data API: blobs, a tree on the
   * base, the commit, the ref) and a pull request into the source's branch. When the
   * branch moved since the draft started, the commit goes on its new head unless the branch
   * changed a file the draft changes too (409 `draft_conflict`, nothing written).
   */
  async publish(docId: string, message: string | undefined): Promise<{ pr_url: string; pr_number: number }> {
    const any = await this.queries.doc(docId);
    if (any.bundle.sourceKind !== "repohost")
      throw new ApiError("no_draft", "only a bundle read from a repo host is published as a pull request");
    const rec = await this.doc(docId);
    const [rb] = await this.db
      .select()
      .from(repohostBundles)
      .where(eq(repohostBundles.bundleId, rec.bundle.id));
    if (!rb || rb.draftBase === null || !rb.repoVersionId)
      throw new ApiError("no_draft", `${rec.bundle.slug} has no draft to publish`);
    const [source] = await this.db.select().from(repohostSources).where(eq(repohostSources.id, rb.sourceId));
    if (!source || source.deletedAt) throw new NotFoundError("source", rb.sourceId);
    const api = await this.clientFor(source);
    const folder = rb.folder;
    const repoPath = (p: string) => (folder === "." ? p : `${folder}/${p}`);
    const before = await this.stateOf(rb.repoVersionId);
    const after = await this.stateOf(rec.head.id);
    const changed: Array<{ path: string; sha: string | null }> = [];
    for (const [p, f] of after)
      if (before.get(p)?.sha256 !== f.sha256) changed.push({ path: p, sha: f.sha256 });
    for (const p of before.keys()) if (!after.has(p)) changed.push({ path: p, sha: null });
    if (changed.length === 0)
      throw new ApiError("no_draft", `the draft of ${rec.bundle.slug} changes nothing`);
    try {
      const head = (await api.branchHead(source.owner, source.repo, source.branch)).sha;
      let base = rb.draftBase || head;
      if (head !== base) {
        const moved = await api.compare(source.owner, source.repo, base, head);
        const mine = new Set(changed.map((c) => repoPath(c.path)));
        const overlap = moved.files
          .flatMap((f) => [f.filename, f.previous_filename ?? ""])
          .filter((p) => mine.has(p));
        if (overlap.length > 0)
          throw new ApiError(
            "draft_conflict",
            `${source.branch} changed ${overlap.join(", ")} since the draft started; discard the draft or edit on the new version`,
            { files: overlap },
          );
        base = head;
      }
      const git = new GitWriter(api, source.owner, source.repo);
      const entries: Array<{ path: string; sha: string | null }> = [];
      for (const c of changed)
        entries.push({
          path: repoPath(c.path),
          sha: c.sha === null ? null : await git.blob(await this.bytesOf(c.sha, source)),
        });
      const tree = await git.tree(await git.treeOfCommit(base), entries);
      const title = message?.trim() || `Update ${rec.bundle.slug}`;
      const commit = await git.commit(title, tree, base);
      const branch = `spec-review/${rec.bundle.slug === "." ? "root" : rec.bundle.slug.replace(/[^A-Za-z0-9._/-]/g, "-")}-v${rec.head.number}-${commit.slice(0, 7)}`;
      await git.branch(branch, commit);
      const pr = await git.pullRequest({
        title,
        head: branch,
        base: source.branch,
        body: `Published from spec-review: version ${rec.head.number} of \`${rec.bundle.slug}\` (${changed.length} file${changed.length === 1 ? "" : "s"}).`,
      });
      await this.db
        .update(repohostBundles)
        .set({ prUrl: pr.url, prNumber: pr.number })
        .where(eq(repohostBundles.bundleId, rec.bundle.id));
      this.events.emit("changed", { bundleId: rec.bundle.id });
      return { pr_url: pr.url, pr_number: pr.number };
    } catch (err) {
      throw asApiError(err, `publishing ${rec.bundle.slug} to ${source.owner}/${source.repo}`);
    }
  }

  // --------------------------------------------------- skipped and dismissed
  // The served folder's skipped markdown: a repohost source has its own (GET /repohost/sources/{id}/skipped).

  skipped(): Promise<string[]> {
    return Promise.resolve([]);
  }
  adoptSkipped(picks: Array<{ path: string }>): Promise<string[]> {
    if (picks.length === 0) return Promise.resolve([]);
    return Promise.reject(
      new ApiError("validation_failed", `${picks[0]!.path} is not a skipped file of a served folder`),
    );
  }
  dismissed(): Promise<DismissedDoc[]> {
    return Promise.resolve([]);
  }
  dismiss(path: string): Promise<DismissedDoc> {
    return Promise.reject(
      new ApiError("file_not_found", `${path} is not a markdown file of a served folder`),
    );
  }
  undismiss(): Promise<boolean> {
    return Promise.resolve(false);
  }

  // ------------------------------------------------------------------- sync

  /** Read the source's branch now (one sync per source at a time; a second caller shares it; sync.ts). */
  sync(sourceId: string, opts: { full?: boolean; head?: string } = {}): Promise<SyncResult> {
    const running = this.syncing.get(sourceId);
    if (running) return running;
    const p = this.syncer.run(sourceId, opts).finally(() => this.syncing.delete(sourceId));
    this.syncing.set(sourceId, p);
    return p;
  }

  /** The bytes of a git blob when the cache holds them. */
  cached(sha: string): Uint8Array | undefined {
    return this.blobCache.get(sha);
  }

  /** What the last full read of a source found (sync.ts). */
  setScan(
    sourceId: string,
    scan: { problems: DiscoveryProblem[]; skipped: string[]; shas?: Map<string, string> },
  ): void {
    this.lastScan.set(sourceId, scan);
  }

  /** The commit of a version read at `sha` whose commit was not listed: the head, as read. */
  fallbackCommit(sha: string): CommitInfo {
    return { sha, message: "Read from the repo", author: "repohost", date: this.clock.now().toISOString() };
  }

  /**
   * Bundles read for the first time, in slices of `CREATE_SLICE` per transaction (a first read of
   * thousands is a few statements per slice, not per bundle): a version per commit of each
   * one's `history` (newest first; every one but the newest gets its file list from git
   * when first read, `manifest`), or one version, the head, when the sync did not read its
   * history (sync.ts).
   */
  async createBundles(
    source: SourceRow,
    list: ReadonlyArray<{
      folder: string;
      title: string;
      docPath: string;
      type: string;
      files: Map<string, GitFile>;
      main: Uint8Array;
      history: CommitInfo[];
    }>,
  ): Promise<void> {
    for (let at = 0; at < list.length; at += CREATE_SLICE) {
      const slice = list.slice(at, at + CREATE_SLICE);
      const now = this.clock.now();
      const made = slice.map((b) => {
        const oldestFirst = [...b.history].reverse();
        return {
          ...b,
          id: randomUUID(),
          docId: randomUUID(),
          oldestFirst,
          ids: oldestFirst.map(() => randomUUID()),
          info: classifyMarkdown(decoder.decode(b.main)),
        };
      });
      const heads = await this.db.transaction(async (tx) => {
        await tx.insert(bundles).values(
          made.map((m) => ({
            id: m.id,
            sourceKind: "repohost" as const,
            slug: m.folder,
            title: m.title,
            visibility: source.isPrivate ? ("private" as const) : ("internal" as const),
            headVersionId: m.ids.at(-1)!,
            headNumber: m.ids.length,
            createdAt: now,
            updatedAt: now,
          })),
        );
        await tx.insert(docs).values(
          made.map((m) => ({
            id: m.docId,
            bundleId: m.id,
            path: m.docPath,
            profileKey: m.type,
            problems: docProblems(m.info.error),
            createdAt: now,
            updatedAt: now,
          })),
        );
        const records = await this.versionRepo.insertVersions(
          tx,
          made.flatMap((m) =>
            m.oldestFirst.map((c, i) => ({
              id: m.ids[i]!,
              bundleId: m.id,
              number: i,
              files: i === m.oldestFirst.length - 1 ? toManifest(m.files) : new Map(),
              author: c.author,
              message: c.message,
              createdAt: new Date(c.date),
            })),
          ),
        );
        await tx
          .insert(repohostVersions)
          .values(
            made.flatMap((m) => m.oldestFirst.map((c, i) => ({ versionId: m.ids[i]!, commit: c.sha }))),
          );
        await tx.insert(repohostBundles).values(
          made.map((m) => ({
            bundleId: m.id,
            sourceId: source.id,
            folder: m.folder,
            repoVersionId: m.ids.at(-1)!,
          })),
        );
        const byId = new Map(records.map((r) => [r.id, r]));
        return made.map((m) => byId.get(m.ids.at(-1)!)!);
      });
      made.forEach((m, i) =>
        this.events.emit("version", {
          bundleId: m.id,
          docId: m.docId,
          version: heads[i]!,
          mainPath: m.docPath,
          mainBytes: m.main,
          bulk: true,
        }),
      );
    }
  }

  /** A new version read from the repo; a bundle with a draft keeps it and is marked `ahead`. */
  async repoVersion(
    source: SourceRow,
    k: {
      b: typeof bundles.$inferSelect;
      d: typeof docs.$inferSelect;
      rb: typeof repohostBundles.$inferSelect;
    },
    files: Map<string, GitFile>,
    docPath: string,
    type: string,
    /** Oldest first: every commit but the newest is a version whose file list is read from
     * git when first asked for (manifest()); the newest holds the files read now. */
    list: readonly CommitInfo[],
    /** The spec doc's bytes, when the caller read them. */
    mainBytes?: Uint8Array,
  ): Promise<void> {
    if (k.rb.draftBase !== null) {
      if (!(await this.draftLanded(k.b.headVersionId, files))) {
        await this.db
          .update(repohostBundles)
          .set({ ahead: true })
          .where(eq(repohostBundles.bundleId, k.b.id));
        this.events.emit("changed", { bundleId: k.b.id });
        return;
      }
      // The branch now holds exactly the draft (its pull request was merged): the draft is done.
      await this.db
        .update(repohostBundles)
        .set({ draftBase: null, ahead: false, prUrl: null, prNumber: null })
        .where(eq(repohostBundles.bundleId, k.b.id));
    }
    const mainSha = files.get(docPath)!.sha;
    const main = mainBytes ?? this.blobCache.get(mainSha) ?? (await this.bytesOf(mainSha, source));
    const info = classifyMarkdown(decoder.decode(main));
    let base = { id: k.b.headVersionId, number: k.b.headNumber };
    for (const older of list.slice(0, -1)) {
      const oid = randomUUID();
      const v = await this.versionRepo.commit(
        base,
        {
          id: oid,
          bundleId: k.b.id,
          number: base.number,
          files: new Map(),
          author: older.author,
          message: older.message,
          createdAt: new Date(older.date),
        },
        new Map(),
        async (tx) => {
          await tx.insert(repohostVersions).values({ versionId: oid, commit: older.sha });
        },
      );
      base = { id: v.id, number: v.number };
    }
    const commit = list.at(-1)!;
    const id = randomUUID();
    const version = await this.versionRepo.commit(
      base,
      {
        id,
        bundleId: k.b.id,
        number: base.number,
        files: toManifest(files),
        author: commit.author,
        message: commit.message,
        createdAt: new Date(commit.date),
      },
      new Map(),
      async (tx) => {
        await tx.insert(repohostVersions).values({ versionId: id, commit: commit.sha });
        await tx
          .update(repohostBundles)
          .set({ repoVersionId: id })
          .where(eq(repohostBundles.bundleId, k.b.id));
        await tx
          .update(docs)
          .set({
            path: docPath,
            profileKey: type,
            problems: docProblems(info.error),
            updatedAt: this.clock.now(),
          })
          .where(eq(docs.id, k.d.id));
      },
    );
    this.events.emit("version", {
      bundleId: k.b.id,
      docId: k.d.id,
      version,
      mainPath: docPath,
      mainBytes: main,
    });
    this.events.emit("changed", { bundleId: k.b.id });
  }

  /** True when the repo's files are byte for byte the draft's (compared by git blob id). */
  private async draftLanded(draftVersion: string | null, files: Map<string, GitFile>): Promise<boolean> {
    if (!draftVersion) return false;
    const draft = await this.manifest(draftVersion);
    if (draft.length !== files.size) return false;
    for (const f of draft) {
      const repo = files.get(f.path);
      if (!repo) return false;
      const id = GIT_SHA.test(f.sha256) ? f.sha256 : gitBlobId(await this.versionRepo.blob(f.sha256));
      if (id !== repo.sha) return false;
    }
    return true;
  }

  /**
   * Hide a bundle whose folder left the branch (gone, as a folder gone from disk is): every
   * read of it is 404 until the folder comes back; its reviews and threads stay.
   */
  async markGone(bundleId: string): Promise<void> {
    await this.db.update(bundles).set({ goneAt: this.clock.now() }).where(eq(bundles.id, bundleId));
    this.events.emit("changed", { bundleId });
  }

  /**
   * Archive a bundle (its source was deleted): read as before with `archived: true`, left
   * out of lists unless asked, every change refused (`bundle_archived`). Its current
   * version's files are kept in the database first, so they stay readable once the repo
   * host no longer answers (`keepHead`).
   */
  async archive(bundleId: string): Promise<void> {
    await this.keepHead(bundleId);
    await this.db.update(bundles).set({ archivedAt: this.clock.now() }).where(eq(bundles.id, bundleId));
    this.events.emit("changed", { bundleId });
  }

  /**
   * The bytes of the current version's files as the repo holds them, read now (the cache,
   * else the repo host) and stored in `blobs` under their git blob ids: the ids the
   * version's file list names, so the version reads back exactly, and an older version's
   * file that did not change since is found there too. A file that cannot be read now is
   * logged; reading it later answers `content_unavailable`.
   */
  private async keepHead(bundleId: string): Promise<void> {
    const [row] = await this.db
      .select({ head: bundles.headVersionId })
      .from(bundles)
      .where(eq(bundles.id, bundleId));
    if (!row?.head) return;
    const list = (await this.versionRepo.manifest(row.head)).filter((f) => GIT_SHA.test(f.sha256));
    if (list.length === 0) return;
    const { source } = await this.originOfVersion(row.head);
    const kept = new Map<string, Uint8Array>();
    const missed: string[] = [];
    let why = "";
    const limit = pLimit(8);
    await Promise.all(
      list.map((f) =>
        limit(async () => {
          try {
            kept.set(f.sha256, await this.bytesOf(f.sha256, source));
          } catch (err) {
            missed.push(f.path);
            why = err instanceof Error ? err.message : String(err);
          }
        }),
      ),
    );
    await this.versionRepo.putBlobs(this.db, kept);
    if (missed.length > 0)
      this.logger.warn("archived bundle: files of the current version could not be kept", {
        bundle: bundleId,
        files: missed,
        error: why,
      });
  }

  /** Bundles of a source that are neither gone nor archived. */
  async liveBundles(sourceId: string): Promise<string[]> {
    const rows = await this.db
      .select({ id: bundles.id })
      .from(repohostBundles)
      .innerJoin(bundles, eq(bundles.id, repohostBundles.bundleId))
      .where(and(eq(repohostBundles.sourceId, sourceId), isNull(bundles.goneAt), isNull(bundles.archivedAt)))
      .orderBy(asc(bundles.slug));
    return rows.map((r) => r.id);
  }
}

/** What an archived bundle's deleted source can no longer give: 410 `content_unavailable`. */
function unavailable(source: SourceRow, what: string, err: unknown): ApiError {
  const why = err instanceof ApiError ? err.code : err instanceof Error ? err.message : String(err);
  return new ApiError(
    "content_unavailable",
    `${what} of ${source.owner}/${source.repo} cannot be read: the source was deleted (its bundles archived, their current files kept) and the repo host no longer gives it (${why})`,
    {},
    { cause: err },
  );
}

/** Git's id of a blob: sha1 of its header and bytes. */
export function gitBlobId(bytes: Uint8Array): string {
  return createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
}

function toManifest(files: Map<string, GitFile>): Map<string, { sha256: string; size: number }> {
  return new Map([...files].map(([p, f]) => [p, { sha256: f.sha, size: f.size }]));
}
