/**
 * Reading a source's branch into its bundles (docs/app.md, "Reading a repository"):
 *
 * - nothing new: one conditional call (the branch's ref, answered 304);
 * - the first read, and any read that starts over (a push that may add or remove a
 *   bundle, the repository's config changed, a compare GitHub cut short, too many changed
 *   files to read one by one): the branch's archive, streamed (archive.ts). A new bundle
 *   gets one version, the head; its older history is read when someone asks for it;
 * - a push: one compare, then each changed file read by blob id, and one call per touched
 *   bundle for the commits that touched it (each a version).
 *
 * Rate limits (rate-limit.ts): a source whose `resume_at` has not come makes no call; a
 * limit met midway stores the wait on every source read by the same installation (or the
 * token) and sets `sync_state: waiting_rate_limit`. Nothing is failed: the poller
 * (poll.ts) resumes it when the wait is over, through whichever instance gets there first.
 */
import { and, eq, inArray, isNull } from "drizzle-orm";
import pLimit from "p-limit";
import { classifyMarkdown, discoverClassified, isMarkdownPath } from "../../core/bundle/discover.js";
import type { DiscoveryProblem } from "../../core/bundle/discover.js";
import type { Db } from "../db/index.js";
import {
  bundles,
  docs,
  repohostBundles,
  repohostSources,
  repohostVersions,
  versionFiles,
} from "../db/schema.js";
import type { Clock, Logger } from "../deps.js";
import { NotFoundError } from "../errors.js";
import { blobByBlob, readArchive } from "./archive.js";
import { configTypes, REPO_CONFIG_PATH, typesMap } from "./config.js";
import { asApiError, type CommitInfo, type GitHubApi } from "./github.js";
import { RateLimitedError, secondaryWaitMs } from "./rate-limit.js";
import type { RepohostStore, SourceRow } from "./store.js";

/** A file as the repo holds it. */
export interface GitFile {
  sha: string;
  size: number;
}

export type SyncState = "idle" | "syncing" | "waiting_rate_limit" | "error";

/** What a sync found and did. */
export interface SyncResult {
  commit: string;
  /** Bundles with a new version (or new bundles). */
  touched: number;
  created: number;
  /** Bundles whose folder left the branch (hidden as gone, not archived). */
  gone: number;
  problems: DiscoveryProblem[];
  skipped: string[];
  /** Set when the sync waits for a rate limit (nothing more was read): until then. */
  waitingUntil?: Date;
}

/**
 * The most new bundles a read gives their history (the commits that touched each folder,
 * one call each, each a version); past it, each new bundle is one version, the head.
 */
export const HISTORY_READ_MAX = 20;

/** How long one instance holds a source it syncs (another may take it over after). */
export const SYNC_LEASE_MS = 10 * 60_000;

const decoder = new TextDecoder();

/** `folder` joined under the source path ("" is the repo root). */
export function underSource(sourcePath: string, rel: string): string {
  if (rel === ".") return sourcePath === "" ? "." : sourcePath;
  return sourcePath === "" ? rel : `${sourcePath}/${rel}`;
}

export function inFolder(path: string, folder: string): boolean {
  return folder === "." || path.startsWith(folder + "/");
}

export function relTo(path: string, folder: string): string {
  return folder === "." ? path : path.slice(folder.length + 1);
}

export function sameGitFiles(a: Map<string, GitFile>, b: Map<string, GitFile>): boolean {
  if (a.size !== b.size) return false;
  for (const [p, f] of a) if (b.get(p)?.sha !== f.sha) return false;
  return true;
}

export class SourceSync {
  constructor(
    private readonly store: RepohostStore,
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly clientFor: (source: SourceRow) => Promise<GitHubApi>,
  ) {}

  private empty(commit: string, sourceId: string): SyncResult {
    return {
      commit,
      touched: 0,
      created: 0,
      gone: 0,
      problems: [],
      skipped: this.store.skippedOf(sourceId) ?? [],
    };
  }

  /** `head`: the branch's head as the caller just read it (a new source), saving that call. */
  async run(sourceId: string, opts: { full?: boolean; head?: string }): Promise<SyncResult> {
    const [source] = await this.db.select().from(repohostSources).where(eq(repohostSources.id, sourceId));
    if (!source || source.deletedAt) throw new NotFoundError("source", sourceId);
    const now = this.clock.now();
    // A wait stored by any instance (or before a restart): no call before it.
    if (source.resumeAt && source.resumeAt > now) {
      await this.setState(sourceId, { syncState: "waiting_rate_limit", leaseUntil: null });
      return { ...this.empty(source.lastCommit ?? "", sourceId), waitingUntil: source.resumeAt };
    }
    await this.setState(sourceId, {
      syncState: "syncing",
      leaseUntil: new Date(now.getTime() + SYNC_LEASE_MS),
    });
    try {
      const api = await this.clientFor(source);
      const head = opts.head
        ? { sha: opts.head }
        : await api.branchHead(
            source.owner,
            source.repo,
            source.branch,
            source.refEtag && source.lastCommit
              ? { etag: source.refEtag, sha: source.lastCommit }
              : undefined,
          );
      let result: SyncResult;
      if (!opts.full && source.lastCommit === head.sha) result = this.empty(head.sha, sourceId);
      else if (!opts.full && source.lastCommit)
        result = await this.incremental(source, api, source.lastCommit, head.sha);
      else result = await this.fullRead(source, api, head.sha);
      await this.setState(sourceId, {
        lastCommit: head.sha,
        ...("etag" in head && head.etag ? { refEtag: head.etag } : {}),
        lastSyncedAt: this.clock.now(),
        syncError: null,
        syncState: "idle",
        resumeAt: null,
        rateLimitStrikes: 0,
        leaseUntil: null,
      });
      return result;
    } catch (err) {
      if (err instanceof RateLimitedError) return this.wait(source, err);
      const e = asApiError(err, `syncing ${source.owner}/${source.repo}@${source.branch}`);
      await this.setState(sourceId, {
        syncError: e.message,
        lastSyncedAt: this.clock.now(),
        syncState: "error",
        leaseUntil: null,
      });
      this.logger.warn("repohost sync failed", { source: sourceId, error: e.message });
      throw e;
    }
  }

  /**
   * A rate limit: the wait goes on every live source read by the same installation (or the
   * token), since the limit is theirs together. Without a time told (a secondary limit
   * without `retry-after`) it is at least a minute, doubling with each limit in a row.
   */
  private async wait(source: SourceRow, err: RateLimitedError): Promise<SyncResult> {
    const now = this.clock.now();
    const resumeAt = err.told
      ? err.resumeAt
      : new Date(Math.max(err.resumeAt.getTime(), now.getTime() + secondaryWaitMs(source.rateLimitStrikes)));
    const same =
      source.installationId === null
        ? isNull(repohostSources.installationId)
        : eq(repohostSources.installationId, source.installationId);
    await this.db
      .update(repohostSources)
      .set({ syncState: "waiting_rate_limit", resumeAt, leaseUntil: null })
      .where(and(same, isNull(repohostSources.deletedAt)));
    await this.setState(source.id, {
      rateLimitStrikes: err.told ? source.rateLimitStrikes : source.rateLimitStrikes + 1,
    });
    this.logger.warn("repohost rate limit: the sync waits", {
      source: source.id,
      kind: err.kind,
      resume_at: resumeAt.toISOString(),
    });
    return { ...this.empty(source.lastCommit ?? "", source.id), waitingUntil: resumeAt };
  }

  private async setState(sourceId: string, set: Partial<typeof repohostSources.$inferInsert>): Promise<void> {
    await this.db.update(repohostSources).set(set).where(eq(repohostSources.id, sourceId));
  }

  /** Bundles of the source as the database has them: folder -> bundle, doc and head files. */
  async known(sourceId: string) {
    const rows = await this.db
      .select({ rb: repohostBundles, b: bundles, d: docs })
      .from(repohostBundles)
      .innerJoin(bundles, eq(bundles.id, repohostBundles.bundleId))
      .innerJoin(docs, eq(docs.bundleId, bundles.id))
      .where(eq(repohostBundles.sourceId, sourceId));
    // The files as the repo last had them: a draft's own version is not the repo's.
    const repoVersion = (r: (typeof rows)[number]) => r.rb.repoVersionId ?? r.b.headVersionId;
    const heads = rows.map(repoVersion).filter((v): v is string => v !== null);
    const byVersion = new Map<string, Map<string, GitFile>>();
    // In slices: a source of thousands of bundles is one query per slice, not one giant IN list.
    for (let i = 0; i < heads.length; i += 1000) {
      const files = await this.db
        .select()
        .from(versionFiles)
        .where(inArray(versionFiles.versionId, heads.slice(i, i + 1000)));
      for (const f of files) {
        const m = byVersion.get(f.versionId) ?? new Map<string, GitFile>();
        m.set(f.path, { sha: f.sha256, size: f.size });
        byVersion.set(f.versionId, m);
      }
    }
    return new Map(
      rows.map((r) => [
        r.rb.folder,
        { ...r, files: byVersion.get(repoVersion(r) ?? "") ?? new Map<string, GitFile>() },
      ]),
    );
  }

  /** Bytes of many git blobs (markdown to classify, changed files), in the client's queue. */
  private async fetchBlobs(api: GitHubApi, source: SourceRow, shas: Iterable<string>): Promise<void> {
    const limit = pLimit(8);
    const todo = [...new Set(shas)].filter((s) => !this.store.cached(s));
    await Promise.all(
      todo.map((sha) =>
        limit(async () => this.store.remember(sha, await api.blob(source.owner, source.repo, sha))),
      ),
    );
  }

  /**
   * First read, or a read from scratch: the branch's archive streamed (every file's blob id,
   * the markdown's bytes), every markdown file classified. A new bundle has one version,
   * the head; a known bundle whose files changed gets the commits that touched it.
   */
  private async fullRead(source: SourceRow, api: GitHubApi, head: string): Promise<SyncResult> {
    const root = source.path;
    const under = (p: string) => root === "" || p.startsWith(root + "/");
    const archive = await readArchive(api, source.owner, source.repo, head, {
      keep: (p) => p === REPO_CONFIG_PATH || (under(p) && isMarkdownPath(p)),
    });
    const entries = new Map<string, GitFile>();
    for (const [p, f] of archive.files) {
      if (!under(p)) continue;
      entries.set(root === "" ? p : p.slice(root.length + 1), f);
    }
    const bytes = (sha: string) => archive.kept.get(sha) ?? new Uint8Array();
    // Markdown read now serves the lint that follows without a call, as far as the cache holds.
    for (const [sha, b] of archive.kept) this.store.remember(sha, b);
    const accepted = source.accepted;
    // The repository's own types (.spec-review/config.yaml at its root, server/repohost/config.ts).
    const config = archive.files.get(REPO_CONFIG_PATH);
    const typed = typesMap(config ? configTypes(decoder.decode(bytes(config.sha))) : {});
    const discovery = discoverClassified(
      [...entries.keys()].filter((p) => !p.startsWith(".spec-review/")).sort(),
      (p) => {
        const c = classifyMarkdown(decoder.decode(bytes(entries.get(p)!.sha)));
        // A type the repository's config or the service gives a doc that names none counts
        // as if the file named it (the service's, accepted later, first).
        const given = accepted[underSource(root, p)] ?? typed(underSource(root, p));
        if (c.type === undefined && !c.error && given) return { type: given };
        return c;
      },
      source.repo,
    );
    const known = await this.known(source.id);
    const result: SyncResult = { ...this.empty(head, source.id), skipped: [] };
    result.problems = discovery.problems.map((p) => ({ ...p, path: underSource(root, p.path) }));
    result.skipped = discovery.skipped.map((p) => underSource(root, p));
    const seen = new Set<string>();
    // A few new bundles: each folder's history (one call each), before anything is written;
    // more (a first read of a large repository): one version each, the head.
    const fresh = discovery.bundles.map((b) => underSource(root, b.slug)).filter((f) => !known.has(f));
    const histories = new Map<string, CommitInfo[]>();
    if (fresh.length <= HISTORY_READ_MAX)
      for (const folder of fresh)
        histories.set(
          folder,
          await api.commitsTouching(source.owner, source.repo, head, folder === "." ? "" : folder),
        );
    const created: Parameters<RepohostStore["createBundles"]>[1][number][] = [];
    for (const b of discovery.bundles) {
      const folder = underSource(root, b.slug);
      seen.add(folder);
      const files = new Map(b.files.map((f) => [f, entries.get(b.slug === "." ? f : `${b.slug}/${f}`)!]));
      const prior = known.get(folder);
      const main = bytes(files.get(b.doc.path)!.sha);
      if (prior) {
        if (prior.b.goneAt) {
          await this.db.update(bundles).set({ goneAt: null }).where(eq(bundles.id, prior.b.id));
          this.store.events.emit("changed", { bundleId: prior.b.id });
        }
        if (!sameGitFiles(prior.files, files)) {
          const touching = await api.commitsTouching(
            source.owner,
            source.repo,
            head,
            folder === "." ? "" : folder,
          );
          // The commits since the one the bundle was last read at, each a version; when
          // that one is not in the listing (history rewritten, or too far back): the newest.
          const last = await this.commitOf(prior.rb.repoVersionId);
          const i = last ? touching.findIndex((c) => c.sha === last) : -1;
          await this.store.repoVersion(
            source,
            prior,
            files,
            b.doc.path,
            b.doc.type,
            i > 0 ? touching.slice(0, i).reverse() : [touching[0] ?? this.store.fallbackCommit(head)],
            main,
          );
          result.touched++;
        }
        continue;
      }
      const history = histories.get(folder) ?? [];
      created.push({
        folder,
        title: b.title,
        docPath: b.doc.path,
        type: b.doc.type,
        files,
        main,
        history: history.length > 0 ? history : [this.store.fallbackCommit(head)],
      });
      result.created++;
    }
    await this.store.createBundles(source, created);
    for (const [folder, prior] of known)
      if (!seen.has(folder) && !prior.b.goneAt) {
        await this.store.markGone(prior.b.id);
        result.gone++;
      }
    const shas = new Map(discovery.skipped.map((p) => [underSource(root, p), entries.get(p)!.sha]));
    this.store.setScan(source.id, { problems: result.problems, skipped: result.skipped, shas });
    return result;
  }

  /** The commit a version was read at (none for a draft's own version). */
  private async commitOf(versionId: string | null): Promise<string | undefined> {
    if (!versionId) return undefined;
    const [row] = await this.db
      .select({ commit: repohostVersions.commit })
      .from(repohostVersions)
      .where(eq(repohostVersions.versionId, versionId));
    return row?.commit;
  }

  /**
   * A push: what changed between the last read and the head (one compare call), applied
   * to the bundles it touches, each changed file read once. A change that may add, remove
   * or move a spec doc outside the known bundles, a compare GitHub cut short, or more
   * changed files than are worth reading one by one (archive.ts) reads the archive instead.
   */
  private async incremental(
    source: SourceRow,
    api: GitHubApi,
    base: string,
    head: string,
  ): Promise<SyncResult> {
    const cmp = await api.compare(source.owner, source.repo, base, head);
    if (cmp.capped) return this.fullRead(source, api, head);
    const root = source.path;
    const under = (p: string) => root === "" || p.startsWith(root + "/");
    const changed = cmp.files.filter(
      (f) => under(f.filename) || (f.previous_filename !== undefined && under(f.previous_filename)),
    );
    const result = this.empty(head, source.id);
    // The repository's types changed: what is a bundle may have changed anywhere.
    if (cmp.files.some((f) => f.filename === REPO_CONFIG_PATH || f.previous_filename === REPO_CONFIG_PATH))
      return this.fullRead(source, api, head);
    if (changed.length === 0) return result;
    const known = await this.known(source.id);
    const folders = [...known.keys()].sort((a, b) => b.length - a.length);
    const ownerOf = (p: string) => folders.find((f) => inFolder(p, f));
    // Per touched bundle, its files after the change.
    const next = new Map<string, Map<string, GitFile>>();
    const needBytes: string[] = [];
    for (const f of changed) {
      const paths = [f.filename, ...(f.previous_filename ? [f.previous_filename] : [])];
      if (paths.every((p) => !isMarkdownPath(p) && ownerOf(p) === undefined)) continue;
      for (const p of paths) {
        const folder = ownerOf(p);
        const direct = isMarkdownPath(p) && (folder === undefined || !relTo(p, folder).includes("/"));
        const k = folder ? known.get(folder)! : undefined;
        // A markdown file directly in a folder that is not the known main doc may make or unmake a bundle.
        if (folder === undefined || (direct && relTo(p, folder) !== k!.d.path) || k!.b.goneAt !== null)
          return this.fullRead(source, api, head);
      }
      const folder = ownerOf(f.filename)!;
      const files = next.get(folder) ?? new Map(known.get(folder)!.files);
      if (f.previous_filename) files.delete(relTo(f.previous_filename, ownerOf(f.previous_filename)!));
      if (f.status === "removed") {
        if (relTo(f.filename, folder) === known.get(folder)!.d.path) return this.fullRead(source, api, head);
        files.delete(relTo(f.filename, folder));
      } else if (f.sha) {
        files.set(relTo(f.filename, folder), { sha: f.sha, size: -1 });
        needBytes.push(f.sha);
      }
      next.set(folder, files);
    }
    let total = 0;
    for (const k of known.values()) total += k.files.size;
    if (!blobByBlob(new Set(needBytes).size, total)) return this.fullRead(source, api, head);
    // One read per changed file: its size, and for the spec doc its type.
    await this.fetchBlobs(api, source, needBytes);
    const commit = cmp.commits.at(-1) ?? this.store.fallbackCommit(head);
    for (const [folder, files] of next) {
      for (const [p, f] of files)
        if (f.size < 0) files.set(p, { sha: f.sha, size: this.store.cached(f.sha)?.length ?? 0 });
      const k = known.get(folder)!;
      if (k.rb.draftBase !== null) {
        await this.store.repoVersion(source, k, files, k.d.path, k.d.profileKey, [commit]);
        continue;
      }
      const main = files.get(k.d.path)!;
      const mainBytes = this.store.cached(main.sha) ?? (await api.blob(source.owner, source.repo, main.sha));
      const info = classifyMarkdown(decoder.decode(mainBytes));
      if (info.type === undefined) return this.fullRead(source, api, head);
      if (sameGitFiles(k.files, files)) continue;
      await this.store.repoVersion(
        source,
        k,
        files,
        k.d.path,
        info.type,
        await this.commitsOf(source, api, cmp.commits, head, folder),
        mainBytes,
      );
      result.touched++;
    }
    return result;
  }

  /**
   * The commits of `range` (oldest first) that touched `folder`, each a version. A range of
   * one commit is that commit (no call); otherwise one call lists the branch's commits on
   * the folder (the newest 100), kept when they are in the range.
   */
  private async commitsOf(
    source: SourceRow,
    api: GitHubApi,
    range: readonly CommitInfo[],
    head: string,
    folder: string,
  ): Promise<CommitInfo[]> {
    if (range.length <= 1) return [range[0] ?? this.store.fallbackCommit(head)];
    const inRange = new Set(range.map((c) => c.sha));
    const touching = await api.commitsTouching(source.owner, source.repo, head, folder === "." ? "" : folder);
    const mine = touching.filter((c) => inRange.has(c.sha)).reverse();
    // A folder changed only by a merge, or history the listing cannot see: the newest commit.
    return mine.length > 0 ? mine : [range.at(-1)!];
  }
}
