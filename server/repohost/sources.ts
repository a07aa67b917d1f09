/**
 * Repohost sources (POST/GET /repohost/sources, resolve, sync, delete): which repo,
 * branch and folder the service reads bundles from, and who reads it (the App's
 * installation on that repo when there is one, else the workspace token).
 */
import { randomUUID } from "node:crypto";
import { and, asc, count, eq, isNull } from "drizzle-orm";
import { classifyMarkdown, discoverClassified, isMarkdownPath } from "../../core/bundle/discover.js";
import { guessProfile } from "../../core/profile/guess.js";
import type { Profile } from "../../core/profile/schema.js";
import type { Db } from "../db/index.js";
import { bundles, repohostBundles, repohostSources } from "../db/schema.js";
import type { Clock } from "../deps.js";
import { ApiError, NotFoundError } from "../errors.js";
import type { RepohostConnection } from "./connection.js";
import { filesAt, readArchive } from "./archive.js";
import { asApiError, GitWriter, type GitHubApi } from "./github.js";
import { REPO_CONFIG_PATH, withTypes } from "./config.js";
import { parseSourceUrl, type SourceRef } from "./source-url.js";
import type { SourcePoller } from "./poll.js";
import type { RateLimitObserver } from "./rate-limit.js";
import type { RepohostStore, SourceRow } from "./store.js";

/** The App's side, when it runs: the installation on a repo and a client on its token. */
export interface InstallationAccess {
  installationOf(owner: string, repo: string): Promise<number | undefined>;
  client(installationId: number): Promise<GitHubApi>;
}

export interface SourceView {
  id: string;
  url: string;
  repo: string;
  branch: string;
  path: string;
  bundles: number;
  last_synced_at?: string;
  last_commit?: string;
  sync_error?: string;
  sync_state: "idle" | "syncing" | "waiting_rate_limit" | "error";
  resume_at?: string;
  created_at: string;
}

const decoder = new TextDecoder();

export class RepohostSources {
  /** Set by the App when it runs in this process. */
  app: InstallationAccess | undefined;
  /** The rate-limit metrics, for the clients the App makes (server/repohost/metrics.ts). */
  observer: RateLimitObserver | undefined;
  /** Polls token-read sources and resumes rate-limited ones (poll.ts). */
  poller: SourcePoller | undefined;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    readonly connection: RepohostConnection,
    readonly store: RepohostStore,
  ) {}

  /** The client for a repo: its App installation, else the workspace token; 409 when neither. */
  async clientForRepo(owner: string, repo: string, installationId?: number | null): Promise<GitHubApi> {
    if (this.app) {
      const id = installationId ?? (await this.app.installationOf(owner, repo));
      if (id !== undefined && id !== null) return this.app.client(id);
    }
    const token = await this.connection.client();
    if (token) return token;
    throw new ApiError(
      "repohost_not_configured",
      `nothing can read ${owner}/${repo}: set a token with PUT /admin/repohost, or install the App on the repo`,
    );
  }

  clientForSource(source: SourceRow): Promise<GitHubApi> {
    return this.clientForRepo(source.owner, source.repo, source.installationId);
  }

  async view(source: SourceRow): Promise<SourceView> {
    const [n] = await this.db
      .select({ n: count() })
      .from(repohostBundles)
      .innerJoin(bundles, eq(bundles.id, repohostBundles.bundleId))
      .where(and(eq(repohostBundles.sourceId, source.id), isNull(bundles.goneAt)));
    return {
      id: source.id,
      url: source.url,
      repo: `${source.owner}/${source.repo}`,
      branch: source.branch,
      path: source.path,
      bundles: n?.n ?? 0,
      ...(source.lastSyncedAt ? { last_synced_at: source.lastSyncedAt.toISOString() } : {}),
      ...(source.lastCommit ? { last_commit: source.lastCommit } : {}),
      ...(source.syncError ? { sync_error: source.syncError } : {}),
      sync_state: source.syncState as SourceView["sync_state"],
      ...(source.resumeAt && source.syncState === "waiting_rate_limit"
        ? { resume_at: source.resumeAt.toISOString() }
        : {}),
      created_at: source.createdAt.toISOString(),
    };
  }

  async get(sourceId: string): Promise<SourceRow> {
    const [row] = await this.db.select().from(repohostSources).where(eq(repohostSources.id, sourceId));
    if (!row || row.deletedAt) throw new NotFoundError("source", sourceId);
    return row;
  }

  /** The source a repohost bundle is read from. */
  async sourceOfBundle(bundleId: string): Promise<string> {
    const [row] = await this.db
      .select({ id: repohostBundles.sourceId })
      .from(repohostBundles)
      .where(eq(repohostBundles.bundleId, bundleId));
    if (!row) throw new NotFoundError("bundle", bundleId);
    return row.id;
  }

  async list(): Promise<SourceView[]> {
    const rows = await this.db
      .select()
      .from(repohostSources)
      .where(isNull(repohostSources.deletedAt))
      .orderBy(asc(repohostSources.createdAt));
    return Promise.all(rows.map((r) => this.view(r)));
  }

  /** The live sources reading a repo's branch (a push webhook syncs them). */
  async onBranch(owner: string, repo: string, branch: string): Promise<SourceRow[]> {
    const rows = await this.db
      .select()
      .from(repohostSources)
      .where(
        and(
          eq(repohostSources.owner, owner),
          eq(repohostSources.repo, repo),
          isNull(repohostSources.deletedAt),
        ),
      );
    return rows.filter((r) => r.branch === branch);
  }

  /** The repo, the branch (the default one when the URL names none) and its head. */
  private async locate(ref: SourceRef) {
    const api = await this.clientForRepo(ref.owner, ref.repo);
    try {
      const info = await api.repo(ref.owner, ref.repo);
      const branch = ref.branch ?? info.default_branch;
      const head = await api.branchHead(ref.owner, ref.repo, branch);
      return { api, info, branch, head: head.sha, ...(head.etag ? { etag: head.etag } : {}) };
    } catch (err) {
      throw asApiError(err, `reading ${ref.owner}/${ref.repo}`);
    }
  }

  /** What a URL names, read from the repo host before a source is made. */
  async resolve(url: string) {
    const ref = parseSourceUrl(url);
    const { api, info, branch, head } = await this.locate(ref);
    try {
      const prefix = ref.path;
      // The archive: one call (and its redirect) whatever the number of markdown files.
      const archive = await readArchive(api, ref.owner, ref.repo, head, {
        keep: (p) => isMarkdownPath(p),
        under: prefix,
      });
      const files = [...archive.files].map(([path, f]) => ({ path, sha: f.sha }));
      if (prefix !== "" && files.length === 0)
        throw new ApiError("repo_not_found", `${ref.owner}/${ref.repo}@${branch} has no folder ${prefix}`);
      const texts = new Map<string, string>();
      for (const f of files)
        if (isMarkdownPath(f.path)) texts.set(f.path, decoder.decode(archive.kept.get(f.sha)));
      const rel = (p: string) => (prefix === "" ? p : p.slice(prefix.length + 1));
      const d = discoverClassified(
        files
          .map((f) => rel(f.path))
          .filter((p) => !p.startsWith(".spec-review/"))
          .sort(),
        (p) => classifyMarkdown(texts.get(prefix === "" ? p : `${prefix}/${p}`) ?? ""),
        ref.repo,
      );
      const join = (p: string) => (p === "." ? prefix : prefix === "" ? p : `${prefix}/${p}`);
      return {
        repo: `${ref.owner}/${ref.repo}`,
        branch,
        path: prefix,
        default_branch: branch === info.default_branch,
        bundles: d.bundles.map((b) => ({ slug: join(b.slug), path: b.doc.path, profile_key: b.doc.type })),
        skipped: d.skipped.length,
      };
    } catch (err) {
      throw asApiError(err, `reading ${ref.owner}/${ref.repo}@${branch}`);
    }
  }

  /** A new source, read at once. Nothing is kept when the first read fails. */
  async create(url: string): Promise<SourceView> {
    const ref = parseSourceUrl(url);
    const located = await this.locate(ref);
    const { info, branch, head } = located;
    const [dup] = await this.db
      .select({ id: repohostSources.id })
      .from(repohostSources)
      .where(
        and(
          eq(repohostSources.owner, ref.owner),
          eq(repohostSources.repo, ref.repo),
          eq(repohostSources.branch, branch),
          eq(repohostSources.path, ref.path),
          isNull(repohostSources.deletedAt),
        ),
      );
    if (dup)
      throw new ApiError(
        "source_exists",
        `source ${dup.id} reads ${ref.owner}/${ref.repo}@${branch}/${ref.path}`,
        {
          source_id: dup.id,
        },
      );
    const id = randomUUID();
    const installationId = this.app ? ((await this.app.installationOf(ref.owner, ref.repo)) ?? null) : null;
    await this.db.insert(repohostSources).values({
      id,
      url,
      owner: ref.owner,
      repo: ref.repo,
      branch,
      path: ref.path,
      installationId,
      isPrivate: info.private,
      // The first read's ref answer: any instance's next poll sends its ETag (a 304 when unchanged).
      refEtag: "etag" in located ? located.etag : null,
      createdAt: this.clock.now(),
    });
    try {
      await this.store.sync(id, { head });
    } catch (err) {
      await this.db.delete(repohostSources).where(eq(repohostSources.id, id));
      throw err;
    }
    return this.view(await this.get(id));
  }

  async sync(sourceId: string): Promise<SourceView> {
    await this.get(sourceId);
    await this.store.sync(sourceId);
    return this.view(await this.get(sourceId));
  }

  /**
   * Markdown the scan passed over, each with the type its headings suggest, and the types
   * accepted in the service (not in the repo). Read from the last full read of the tree
   * (after a restart, the tree is read again first).
   */
  async skipped(sourceId: string, profiles: readonly Profile[]) {
    const source = await this.get(sourceId);
    if (!this.store.skippedOf(sourceId)?.length && !this.store.hasScan(sourceId))
      await this.store.sync(sourceId, { full: true });
    const items: Array<{ path: string; guessed_type?: string; accepted_type?: string }> = [];
    for (const path of this.store.skippedOf(sourceId) ?? []) {
      const text = await this.store.skippedText(source, path);
      const guess = text === undefined ? undefined : guessProfile(text, profiles);
      items.push({ path, ...(guess ? { guessed_type: guess.key } : {}) });
    }
    for (const [path, type] of Object.entries(source.accepted)) items.push({ path, accepted_type: type });
    return { items: items.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)) };
  }

  /** Accept types for skipped docs (held in the service; the repo takes no commit), then read the source again. */
  async accept(
    sourceId: string,
    picks: ReadonlyArray<{ path: string; profile: string }>,
    profiles: readonly Profile[],
  ) {
    const source = await this.get(sourceId);
    const known = new Set([...(this.store.skippedOf(sourceId) ?? []), ...Object.keys(source.accepted)]);
    const accepted = { ...source.accepted };
    for (const [i, p] of picks.entries()) {
      if (!known.has(p.path))
        throw new ApiError("validation_failed", `${p.path} is not a skipped doc of this source`, {
          errors: [
            { field: `body.docs.${i}.path`, message: "not in GET /repohost/sources/{sourceId}/skipped" },
          ],
        });
      if (p.profile === "") delete accepted[p.path];
      else if (!profiles.some((x) => x.key === p.profile))
        throw new ApiError("unknown_profile", `no profile ${JSON.stringify(p.profile)}`, {
          errors: [{ field: `body.docs.${i}.profile`, message: "no such profile" }],
        });
      else accepted[p.path] = p.profile;
    }
    await this.db.update(repohostSources).set({ accepted }).where(eq(repohostSources.id, sourceId));
    await this.store.sync(sourceId, { full: true });
    return this.skipped(sourceId, profiles);
  }

  /**
   * Writes the types accepted in the service into the repository's config file
   * (`.spec-review/config.yaml`) through a pull request on the source's branch; once it is
   * merged, the scan reads them from the repository.
   */
  async openMapping(sourceId: string): Promise<{ pr_url: string; pr_number: number }> {
    const source = await this.get(sourceId);
    const types = Object.fromEntries(
      Object.entries(source.accepted).map(([path, type]) => [path, type] as const),
    );
    if (Object.keys(types).length === 0)
      throw new ApiError(
        "no_accepted_types",
        "no types are accepted for this source's skipped docs: accept some with POST /repohost/sources/{sourceId}/skipped first",
      );
    const api = await this.clientForSource(source);
    const { owner, repo } = source;
    try {
      const head = (await api.branchHead(owner, repo, source.branch)).sha;
      const existing = (await filesAt(api, owner, repo, head, ".spec-review")).find(
        (e) => e.path === REPO_CONFIG_PATH,
      );
      const before = existing
        ? new TextDecoder().decode(await api.blob(owner, repo, existing.sha))
        : undefined;
      let text: string;
      try {
        text = withTypes(before, types);
      } catch (err) {
        throw new ApiError("repo_config_invalid", err instanceof Error ? err.message : String(err));
      }
      const git = new GitWriter(api, owner, repo);
      const blob = await git.blob(new TextEncoder().encode(text));
      const commitTree = await git.tree(await git.treeOfCommit(head), [
        { path: REPO_CONFIG_PATH, sha: blob },
      ]);
      const n = Object.keys(types).length;
      const title = `spec-review: the types of ${n} markdown file${n === 1 ? "" : "s"}`;
      const commit = await git.commit(title, commitTree, head);
      const branch = `spec-review/types-${commit.slice(0, 7)}`;
      await git.branch(branch, commit);
      return await git
        .pullRequest({
          title,
          head: branch,
          base: source.branch,
          body:
            `Writes the doc types people accepted in spec-review into \`${REPO_CONFIG_PATH}\`, so the repository ` +
            `holds them:\n\n${Object.entries(types)
              .map(([p, t]) => `- \`${p}\`: ${t}`)
              .join("\n")}`,
        })
        .then((pr) => ({ pr_url: pr.url, pr_number: pr.number }));
    } catch (err) {
      throw asApiError(err, `opening the types pull request on ${owner}/${repo}`);
    }
  }

  /**
   * Stop reading; the bundles are archived (kept and readable with `archived: true`, left
   * out of lists, every change refused), their current files kept in the database.
   */
  async remove(sourceId: string): Promise<void> {
    await this.get(sourceId);
    await this.db
      .update(repohostSources)
      .set({ deletedAt: this.clock.now() })
      .where(eq(repohostSources.id, sourceId));
    for (const id of await this.store.liveBundles(sourceId)) await this.store.archive(id);
  }
}
