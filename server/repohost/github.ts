/**
 * A small GitHub REST client over fetch: the calls sources, publishing and the App make,
 * with conditional requests (an ETag per URL, so an unchanged branch costs a 304 that
 * GitHub does not count against the rate limit) and a count of the calls made (the
 * benchmark reads it). The base URL follows GitHub Enterprise Server's
 * `https://<host>/api/v3` form; GHE_HOST and GHE_PROTOCOL set it as Probot does.
 */
import { ApiError } from "../errors.js";
import {
  budgetOf,
  RateLimitedError,
  rateLimitOf,
  type RateBudget,
  type RateLimitObserver,
} from "./rate-limit.js";

export const PUBLIC_API_URL = "https://api.github.com";

/** The API address Probot would use: GHE_HOST (and GHE_PROTOCOL) for an Enterprise Server, else the public one. */
export function apiUrlFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  const host = env["GHE_HOST"];
  if (!host) return PUBLIC_API_URL;
  return `${env["GHE_PROTOCOL"] ?? "https"}://${host}/api/v3`;
}

/** An error answer of the repo host, with its status. */
export class GitHubError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "GitHubError";
  }
}

/** The same error as the API's own problem (`repo_not_found`, `repohost_unreachable`). */
export function asApiError(err: unknown, what: string, now: Date = new Date()): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof RateLimitedError)
    return new ApiError("repohost_rate_limited", `${what}: ${err.message}`, {
      retry_after: Math.max(1, Math.ceil((err.waitMs || err.resumeAt.getTime() - now.getTime()) / 1000)),
      resume_at: err.resumeAt.toISOString(),
    });
  if (err instanceof GitHubError && err.status === 404)
    return new ApiError(
      "repo_not_found",
      `${what}: the repo host answered 404 (no such repo or branch, or the token cannot see it)`,
    );
  const why = err instanceof Error ? err.message : String(err);
  return new ApiError("repohost_unreachable", `${what}: ${why}`);
}

export interface TreeEntry {
  path: string;
  type: "blob" | "tree" | "commit";
  sha: string;
  size?: number;
  /** Git's file mode: `100644`, `100755`, `120000` (a symbolic link), `160000` (a submodule). */
  mode?: string;
}

export interface CommitInfo {
  sha: string;
  message: string;
  author: string;
  date: string;
}

export interface CompareFile {
  filename: string;
  status: string;
  sha: string | null;
  previous_filename?: string;
}

export interface GitHubApiOptions {
  baseUrl: string;
  /** The token of each call (a fine-grained token, or an installation token that renews). */
  token: () => Promise<string>;
  fetch?: typeof fetch;
  /**
   * The token and fetch of a streamed download (the archive), when `fetch` cannot stream
   * (the App's calls go through Octokit, which reads every body whole).
   */
  stream?: { token: () => Promise<string>; fetch?: typeof fetch };
  /** Who the calls count against, for the metrics: `token` or `installation:<id>`. */
  who?: string;
  observer?: RateLimitObserver;
  now?: () => Date;
}

type Json = Record<string, unknown>;

/** The next page's address of a list answer (`Link: <...>; rel="next"`). */
export function nextLink(headers: Headers): string | undefined {
  for (const part of (headers.get("link") ?? "").split(",")) {
    const m = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (m) return m[1];
  }
  return undefined;
}

/**
 * The client. Its calls go one at a time (an installation's or a token's requests are
 * never sent in parallel, as GitHub asks), and none is sent while a rate limit's wait
 * runs (`RateLimitedError` at once, rate-limit.ts).
 */
export class GitHubApi {
  /** Calls made, 304s included. */
  calls = 0;
  readonly baseUrl: string;
  readonly who: string;
  private readonly token: () => Promise<string>;
  private readonly fetcher: typeof fetch;
  private readonly streamToken: () => Promise<string>;
  private readonly streamFetch: typeof fetch;
  private readonly observer: RateLimitObserver | undefined;
  private readonly now: () => Date;
  /** URL -> ETag and body of the last 200, for conditional requests. */
  private readonly etags = new Map<string, { etag: string; body: unknown }>();
  /** No call before this (a rate limit's wait). */
  private resumeAt = 0;
  /** Secondary limits in a row without `retry-after`. */
  private strikes = 0;
  /** The tail of the one-at-a-time queue. */
  private tail: Promise<unknown> = Promise.resolve();
  /** The last budget the answers reported. */
  budget: RateBudget | undefined;

  constructor(opts: GitHubApiOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, "");
    this.token = opts.token;
    this.fetcher = opts.fetch ?? fetch;
    this.streamToken = opts.stream?.token ?? opts.token;
    this.streamFetch = opts.stream?.fetch ?? (opts.stream ? fetch : this.fetcher);
    this.who = opts.who ?? "token";
    this.observer = opts.observer;
    this.now = opts.now ?? (() => new Date());
  }

  /** The time before which nothing is sent (a wait told by the repo host), if any. */
  waitingUntil(): Date | undefined {
    return this.resumeAt > this.now().getTime() ? new Date(this.resumeAt) : undefined;
  }

  /** Hold every call until `at` (a wait another instance stored, read from the database). */
  holdUntil(at: Date): void {
    this.resumeAt = Math.max(this.resumeAt, at.getTime());
  }

  /** Run `fn` when the calls before it are done: one call at a time. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.tail.then(fn, fn);
    this.tail = run.catch(() => undefined);
    return run;
  }

  private gate(method: string, path: string): void {
    const until = this.waitingUntil();
    if (until)
      throw new RateLimitedError(
        "secondary",
        until,
        true,
        `${method} ${path}: not sent, the repo host's rate limit asks to wait until ${until.toISOString()}`,
        until.getTime() - this.now().getTime(),
      );
  }

  /** Budget and rate limits of an answer: throws RateLimitedError on a limit. */
  private look(method: string, path: string, res: Response, message: string): void {
    const budget = budgetOf(res.headers);
    if (budget) {
      this.budget = budget;
      this.observer?.budget?.(this.who, budget);
    }
    const limit = rateLimitOf(res.status, res.headers, message, this.now(), this.strikes);
    if (!limit) {
      if (res.status < 400) this.strikes = 0;
      return;
    }
    if (!limit.told && limit.kind === "secondary") this.strikes++;
    this.resumeAt = Math.max(this.resumeAt, limit.resumeAt.getTime());
    this.observer?.waited?.(this.who, limit.kind, limit.resumeAt.getTime() - this.now().getTime());
    throw new RateLimitedError(
      limit.kind,
      limit.resumeAt,
      limit.told,
      `${method} ${path} answered ${res.status} (${limit.kind} rate limit): wait until ${limit.resumeAt.toISOString()}`,
      limit.resumeAt.getTime() - this.now().getTime(),
    );
  }

  private headers(token: string, accept = "application/vnd.github+json"): Record<string, string> {
    return {
      accept,
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      "x-github-api-version": "2022-11-28",
      "user-agent": "spec-review",
    };
  }

  /** One call. `conditional`: send the ETag of the last answer and reuse its body on 304. */
  request<T = Json>(
    method: string,
    path: string,
    body?: unknown,
    opts: { conditional?: boolean } = {},
  ): Promise<{ status: number; data: T; headers: Headers }> {
    return this.serial(() => this.send<T>(method, path, body, opts));
  }

  private async send<T>(
    method: string,
    path: string,
    body: unknown,
    opts: { conditional?: boolean },
  ): Promise<{ status: number; data: T; headers: Headers }> {
    this.gate(method, path);
    const url = path.startsWith("http") ? path : `${this.baseUrl}${path}`;
    const headers = this.headers(await this.token());
    const cached = opts.conditional ? this.etags.get(url) : undefined;
    if (cached) headers["if-none-match"] = cached.etag;
    if (body !== undefined) headers["content-type"] = "application/json";
    this.calls++;
    let res: Response | undefined;
    // A read is tried again once when the connection fails (a kept-alive socket the server closed).
    for (let attempt = 0; !res; attempt++) {
      try {
        res = await this.fetcher(url, {
          method,
          headers,
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        });
      } catch (err) {
        if (method === "GET" && attempt === 0) continue;
        throw new GitHubError(0, `${method} ${path}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    if (res.status === 304 && cached) {
      this.look(method, path, res, "");
      return { status: 304, data: cached.body as T, headers: res.headers };
    }
    const text = await res.text();
    if (res.status >= 400) {
      let message = text.slice(0, 200);
      try {
        const m = (JSON.parse(text) as { message?: unknown }).message;
        if (typeof m === "string") message = m;
      } catch {
        /* not JSON: the start of the text says enough */
      }
      this.look(method, path, res, message);
      throw new GitHubError(res.status, `${method} ${path} answered ${res.status}: ${message}`);
    }
    this.look(method, path, res, "");
    const data = (text === "" ? {} : JSON.parse(text)) as T;
    const etag = res.headers.get("etag");
    if (opts.conditional && etag) this.etags.set(url, { etag, body: data });
    return { status: res.status, data, headers: res.headers };
  }

  /**
   * A download read as a stream (`consume` reads it; the archive is never held whole),
   * following the redirect GitHub answers with (to codeload, or GHE's own host) by hand:
   * the token goes to the API host only, the address it redirects to carries its own. The
   * queue's slot is held until `consume` is done.
   */
  download<T>(path: string, consume: (body: ReadableStream<Uint8Array>) => Promise<T>): Promise<T> {
    return this.serial(async () => {
      this.gate("GET", path);
      let url = path.startsWith("http") ? path : `${this.baseUrl}${path}`;
      const apiOrigin = new URL(this.baseUrl).origin;
      for (let hop = 0; ; hop++) {
        const sameHost = new URL(url).origin === apiOrigin && hop === 0;
        this.calls++;
        let res: Response;
        try {
          res = await this.streamFetch(url, {
            headers: this.headers(sameHost ? await this.streamToken() : "", "*/*"),
            redirect: "manual",
          });
        } catch (err) {
          throw new GitHubError(0, `GET ${path}: ${err instanceof Error ? err.message : String(err)}`);
        }
        const location = res.headers.get("location");
        if (res.status >= 300 && res.status < 400 && location && hop < 3) {
          await res.body?.cancel();
          this.look("GET", path, res, "");
          url = new URL(location, url).href;
          continue;
        }
        if (res.status >= 400 || !res.body) {
          const text = await res.text();
          let message = text.slice(0, 200);
          try {
            const m = (JSON.parse(text) as { message?: unknown }).message;
            if (typeof m === "string") message = m;
          } catch {
            /* not JSON */
          }
          this.look("GET", path, res, message);
          throw new GitHubError(res.status, `GET ${path} answered ${res.status}: ${message}`);
        }
        this.look("GET", path, res, "");
        return consume(res.body);
      }
    });
  }

  /** Every page of a list answer, following `Link: rel="next"` (a short page may not be the last). */
  async paginate<T>(path: string): Promise<T[]> {
    const out: T[] = [];
    let next: string | undefined = path;
    while (next) {
      const page: { data: T[]; headers: Headers } = await this.request<T[]>("GET", next);
      out.push(...page.data);
      next = nextLink(page.headers);
    }
    return out;
  }

  /** The account of the token. */
  async user(): Promise<{ login: string }> {
    return (await this.request<{ login: string }>("GET", "/user")).data;
  }

  async repo(
    owner: string,
    repo: string,
  ): Promise<{ default_branch: string; private: boolean; html_url?: string }> {
    return (
      await this.request<{ default_branch: string; private: boolean }>("GET", `/repos/${owner}/${repo}`)
    ).data;
  }

  /**
   * The head commit of a branch; a 304 when it did not move since the last read. `known`:
   * the ETag and head of a read this client did not make (another instance's, stored on
   * the source), sent when this client has none of its own.
   */
  async branchHead(
    owner: string,
    repo: string,
    branch: string,
    known?: { etag: string; sha: string },
  ): Promise<{ sha: string; changed: boolean; etag?: string }> {
    const path = `/repos/${owner}/${repo}/git/ref/heads/${encodeURIComponent(branch)}`;
    const url = `${this.baseUrl}${path}`;
    if (known && !this.etags.has(url))
      this.etags.set(url, { etag: known.etag, body: { object: { sha: known.sha } } });
    const res = await this.request<{ object: { sha: string } }>("GET", path, undefined, {
      conditional: true,
    });
    const etag = this.etags.get(url)?.etag;
    return { sha: res.data.object.sha, changed: res.status !== 304, ...(etag ? { etag } : {}) };
  }

  /** Every file of a commit's tree (recursive). */
  async tree(
    owner: string,
    repo: string,
    sha: string,
  ): Promise<{ entries: TreeEntry[]; truncated: boolean }> {
    const res = await this.request<{ tree: TreeEntry[]; truncated: boolean }>(
      "GET",
      `/repos/${owner}/${repo}/git/trees/${sha}?recursive=1`,
      undefined,
      { conditional: true },
    );
    return { entries: res.data.tree, truncated: res.data.truncated };
  }

  async blob(owner: string, repo: string, sha: string): Promise<Uint8Array> {
    const res = await this.request<{ content: string; encoding: string }>(
      "GET",
      `/repos/${owner}/${repo}/git/blobs/${sha}`,
    );
    return new Uint8Array(Buffer.from(res.data.content, res.data.encoding === "base64" ? "base64" : "utf8"));
  }

  /** Commits of a branch that touched `path`, newest first (first page of 100). */
  async commitsTouching(owner: string, repo: string, branch: string, path: string): Promise<CommitInfo[]> {
    const q = new URLSearchParams({ sha: branch, per_page: "100" });
    if (path) q.set("path", path);
    const res = await this.request<RawCommit[]>("GET", `/repos/${owner}/${repo}/commits?${q.toString()}`);
    return res.data.map(commitInfo);
  }

  /**
   * What changed between two commits: the commits and the files. `capped`: GitHub cut the
   * answer short (more than its 250 commits, or its 300 files), so the lists are not whole.
   */
  async compare(
    owner: string,
    repo: string,
    base: string,
    head: string,
  ): Promise<{ commits: CommitInfo[]; files: CompareFile[]; status: string; capped: boolean }> {
    const res = await this.request<{
      commits: RawCommit[];
      files?: CompareFile[];
      status: string;
      total_commits?: number;
    }>("GET", `/repos/${owner}/${repo}/compare/${base}...${head}`);
    const files = res.data.files ?? [];
    const total = res.data.total_commits ?? res.data.commits.length;
    return {
      commits: res.data.commits.map(commitInfo),
      files,
      status: res.data.status,
      capped: files.length >= COMPARE_FILE_CAP || total > res.data.commits.length,
    };
  }
}

/** The files a compare lists at most: an answer with this many may have been cut short. */
export const COMPARE_FILE_CAP = 300;

/** The git data API and pull requests: what publishing a draft writes. */
export class GitWriter {
  constructor(
    private readonly api: GitHubApi,
    private readonly owner: string,
    private readonly repo: string,
  ) {}

  private path(rest: string): string {
    return `/repos/${this.owner}/${this.repo}${rest}`;
  }

  async treeOfCommit(commit: string): Promise<string> {
    const res = await this.api.request<{ tree: { sha: string } }>("GET", this.path(`/git/commits/${commit}`));
    return res.data.tree.sha;
  }

  async blob(bytes: Uint8Array): Promise<string> {
    const res = await this.api.request<{ sha: string }>("POST", this.path("/git/blobs"), {
      content: Buffer.from(bytes).toString("base64"),
      encoding: "base64",
    });
    return res.data.sha;
  }

  /** A tree on `baseTree`: each path to a blob, or `null` to remove it. */
  async tree(baseTree: string, entries: Array<{ path: string; sha: string | null }>): Promise<string> {
    const res = await this.api.request<{ sha: string }>("POST", this.path("/git/trees"), {
      base_tree: baseTree,
      tree: entries.map((e) => ({ path: e.path, mode: "100644", type: "blob", sha: e.sha })),
    });
    return res.data.sha;
  }

  async commit(message: string, tree: string, parent: string): Promise<string> {
    const res = await this.api.request<{ sha: string }>("POST", this.path("/git/commits"), {
      message,
      tree,
      parents: [parent],
    });
    return res.data.sha;
  }

  async branch(name: string, sha: string): Promise<void> {
    await this.api.request("POST", this.path("/git/refs"), { ref: `refs/heads/${name}`, sha });
  }

  async pullRequest(input: {
    title: string;
    head: string;
    base: string;
    body: string;
  }): Promise<{ url: string; number: number }> {
    const res = await this.api.request<{ html_url: string; number: number }>(
      "POST",
      this.path("/pulls"),
      input,
    );
    return { url: res.data.html_url, number: res.data.number };
  }
}

interface RawCommit {
  sha: string;
  commit: { message: string; author?: { name?: string; email?: string; date?: string } | null };
  author?: { login?: string } | null;
}

function commitInfo(c: RawCommit): CommitInfo {
  return {
    sha: c.sha,
    message: c.commit.message,
    author: c.author?.login ?? c.commit.author?.name ?? "unknown",
    date: c.commit.author?.date ?? new Date(0).toISOString(),
  };
}
