/**
 * A small GitHub REST client over fetch: the calls sources, publishing and the App make,
 * with conditional requests (an ETag per URL, so an unchanged branch costs a 304 that
 * GitHub does not count against the rate limit) and a count of the calls made (the
 * benchmark reads it). The base URL follows GitHub Enterprise Server's
 * `https://<host>/api/v3` form; GHE_HOST and GHE_PROTOCOL set it as Probot does.
 */
import { ApiError } from "../errors.js";

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
export function asApiError(err: unknown, what: string): ApiError {
  if (err instanceof ApiError) return err;
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
}

type Json = Record<string, unknown>;

export class GitHubApi {
  /** Calls made, 304s included. */
  calls = 0;
  readonly baseUrl: string;
  private readonly token: () => Promise<string>;
  private readonly fetcher: typeof fetch;
  /** URL -> ETag and body of the last 200, for conditional requests. */
  private readonly etags = new Map<string, { etag: string; body: unknown }>();

  constructor(opts: GitHubApiOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, "");
    this.token = opts.token;
    this.fetcher = opts.fetch ?? fetch;
  }

  /** One call. `conditional`: send the ETag of the last answer and reuse its body on 304. */
  async request<T = Json>(
    method: string,
    path: string,
    body?: unknown,
    opts: { conditional?: boolean } = {},
  ): Promise<{ status: number; data: T; headers: Headers }> {
    const url = path.startsWith("http") ? path : `${this.baseUrl}${path}`;
    const headers: Record<string, string> = {
      accept: "application/vnd.github+json",
      authorization: `Bearer ${await this.token()}`,
      "x-github-api-version": "2022-11-28",
      "user-agent": "spec-review",
    };
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
    if (res.status === 304 && cached) return { status: 304, data: cached.body as T, headers: res.headers };
    const text = await res.text();
    if (res.status >= 400) {
      let message = text.slice(0, 200);
      try {
        const m = (JSON.parse(text) as { message?: unknown }).message;
        if (typeof m === "string") message = m;
      } catch {
        /* not JSON: the start of the text says enough */
      }
      throw new GitHubError(res.status, `${method} ${path} answered ${res.status}: ${message}`);
    }
    const data = (text === "" ? {} : JSON.parse(text)) as T;
    const etag = res.headers.get("etag");
    if (opts.conditional && etag) this.etags.set(url, { etag, body: data });
    return { status: res.status, data, headers: res.headers };
  }

  /** Every page of a list answer (Link: rel="next"). */
  async paginate<T>(path: string): Promise<T[]> {
    const out: T[] = [];
    let next: string | undefined = path;
    while (next) {
      const page: { data: T[]; headers: Headers } = await this.request<T[]>("GET", next);
      out.push(...page.data);
      next = /<([^>]+)>;\s*rel="next"/.exec(page.headers.get("link") ?? "")?.[1];
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

  /** The head commit of a branch; a 304 when it did not move since the last read. */
  async branchHead(owner: string, repo: string, branch: string): Promise<{ sha: string; changed: boolean }> {
    const res = await this.request<{ object: { sha: string } }>(
      "GET",
      `/repos/${owner}/${repo}/git/ref/heads/${encodeURIComponent(branch)}`,
      undefined,
      { conditional: true },
    );
    return { sha: res.data.object.sha, changed: res.status !== 304 };
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

  /** What changed between two commits: the commits and the files. */
  async compare(
    owner: string,
    repo: string,
    base: string,
    head: string,
  ): Promise<{ commits: CommitInfo[]; files: CompareFile[]; status: string }> {
    const res = await this.request<{ commits: RawCommit[]; files?: CompareFile[]; status: string }>(
      "GET",
      `/repos/${owner}/${repo}/compare/${base}...${head}`,
    );
    return {
      commits: res.data.commits.map(commitInfo),
      files: res.data.files ?? [],
      status: res.data.status,
    };
  }
}

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
