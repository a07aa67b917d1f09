/**
 * A local fake of the GitHub REST API over real HTTP, for tests and bench:app: repos whose
 * commits are whole snapshots (path -> text), real git blob ids, conditional ref reads
 * (ETag, 304), recursive trees, commits filtered by path, compare, and the calls the App
 * makes (check runs, comments, pull request files, installation tokens). Every request is
 * logged with its body, so a test can assert exactly what was called and sent.
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { FakeArchives } from "./fake-archive.js";

export interface FakeCommit {
  sha: string;
  parent: string | null;
  message: string;
  author: string;
  date: string;
  files: Map<string, string>;
}

export interface FakeRepo {
  owner: string;
  name: string;
  private: boolean;
  defaultBranch: string;
  branches: Map<string, string>;
  commits: Map<string, FakeCommit>;
  blobs: Map<string, string>;
  installationId?: number;
  pulls: Map<number, FakePull>;
}

export interface FakePull {
  files: string[];
  head: string;
  closed?: boolean;
  /** Merged as this commit on the base branch (the pull is then closed). */
  mergeCommit?: string;
  /** Its reviews, oldest first, as GET /pulls/{n}/reviews lists them. */
  reviews?: Array<{ state: string; user: { login: string } }>;
}

export interface LoggedCall {
  method: string;
  path: string;
  status: number;
  body?: unknown;
}

/**
 * A rate limit the fake answers with, to the next request whose path matches (once):
 * `primary` (403, `x-ratelimit-remaining: 0`, `x-ratelimit-reset`), `secondary` (403 with
 * GitHub's message) or `429`; `retryAfter` adds `retry-after` (seconds).
 */
export interface FakeLimit {
  kind: "primary" | "secondary" | "429";
  match?: RegExp;
  retryAfter?: number;
  /** Epoch seconds of the primary limit's reset. */
  reset?: number;
}

/** GitHub's caps: the files a compare lists, its commits, and a pull request's files. */
export const COMPARE_FILES_CAP = 300;
export const COMPARE_COMMITS_CAP = 250;
export const PULL_FILES_CAP = 3000;

/**
 * A route added from outside (test/helpers/fake-github-hooks.ts: webhook deliveries, the
 * App, reactions): answers with `send` and returns true, or returns false to pass.
 */
export type FakeRoute = (
  req: { method: string; path: string; url: URL; call: LoggedCall },
  send: (status: number, body?: unknown, headers?: Record<string, string>) => void,
) => boolean;

export function gitBlobSha(text: string): string {
  const bytes = Buffer.from(text, "utf8");
  return createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
}

function sha1(text: string): string {
  return createHash("sha1").update(text).digest("hex");
}

export class FakeGitHub {
  readonly repos = new Map<string, FakeRepo>();
  readonly calls: LoggedCall[] = [];
  /** Tokens GET /user accepts, with their login. */
  readonly tokens = new Map<string, string>([["ghp_good_token_1234", "octo-admin"]]);
  readonly checkRuns: Array<{ id: number; body: Record<string, unknown> }> = [];
  readonly comments = new Map<number, Array<{ id: number; body: string }>>();
  /** Replies to review comments: POST /pulls/{n}/comments/{id}/replies. */
  readonly reviewReplies: Array<{ pull: number; inReplyTo: number; id: number; body: string }> = [];
  /** Trees made through POST /git/trees: sha -> files. */
  readonly trees = new Map<string, Map<string, string>>();
  /** Routes added from outside, tried before the fake's own (FakeRoute). */
  readonly routes: FakeRoute[] = [];
  private server: Server | undefined;
  private seq = 1000;
  url = "";
  // --- reading a repository (issue 30): archives, caps, paging, rate limits ---
  /** Real `.tar.gz` archives of the repos' commits (git archive). */
  readonly archives = new FakeArchives();
  /** Recursive trees answer `truncated: true` with part of the entries (as GitHub does past its limits). */
  truncateTrees = false;
  /** List pages carry this many items fewer than asked (a short page that is not the last). */
  shortPagesBy = 0;
  /** Rate limits to answer with, in order (each once). */
  readonly limits: FakeLimit[] = [];
  /** The budget the rate-limit headers report. */
  budget = { limit: 5000, remaining: 5000, reset: 4102444800 };
  /** The Authorization header of each codeload request ("" when none came). */
  readonly codeloadAuth: string[] = [];

  async start(): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    if (this.server) await new Promise<void>((resolve) => this.server!.close(() => resolve()));
    this.archives.close();
  }

  /** Calls made since `from` (an index into `calls`). */
  since(from: number): LoggedCall[] {
    return this.calls.slice(from);
  }

  addRepo(
    owner: string,
    name: string,
    opts: { private?: boolean; branch?: string; installationId?: number } = {},
  ): FakeRepo {
    const repo: FakeRepo = {
      owner,
      name,
      private: opts.private ?? false,
      defaultBranch: opts.branch ?? "main",
      branches: new Map(),
      commits: new Map(),
      blobs: new Map(),
      pulls: new Map(),
      ...(opts.installationId !== undefined ? { installationId: opts.installationId } : {}),
    };
    this.repos.set(`${owner}/${name}`, repo);
    return repo;
  }

  /** A commit on `branch`: `changes` maps a path to its new text, or null to delete it. */
  commit(
    repo: FakeRepo,
    changes: Record<string, string | null>,
    opts: { branch?: string; message?: string; author?: string; date?: string } = {},
  ): string {
    const branch = opts.branch ?? repo.defaultBranch;
    const parentSha = repo.branches.get(branch) ?? null;
    const files = new Map(parentSha ? repo.commits.get(parentSha)!.files : []);
    for (const [p, text] of Object.entries(changes)) {
      if (text === null) files.delete(p);
      else {
        files.set(p, text);
        repo.blobs.set(gitBlobSha(text), text);
      }
    }
    const date = opts.date ?? new Date(Date.UTC(2026, 0, 1) + repo.commits.size * 60_000).toISOString();
    const message = opts.message ?? `Change ${Object.keys(changes).join(", ")}`;
    const sha = sha1(
      `${parentSha}\n${message}\n${date}\n${[...files].map(([p, t]) => `${p}:${gitBlobSha(t)}`).join("\n")}`,
    );
    repo.commits.set(sha, { sha, parent: parentSha, message, author: opts.author ?? "alice", date, files });
    repo.branches.set(branch, sha);
    return sha;
  }

  private send(
    res: ServerResponse,
    call: LoggedCall,
    status: number,
    body?: unknown,
    headers: Record<string, string> = {},
  ): void {
    call.status = status;
    res.writeHead(status, { "content-type": "application/json", ...this.budgetHeaders(), ...headers });
    res.end(body === undefined ? "" : JSON.stringify(body));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const url = new URL(req.url ?? "/", "http://x");
    const path = url.pathname.replace(/^\/api\/v3/, "");
    const call: LoggedCall = { method: req.method ?? "GET", path: path + url.search, status: 0 };
    if (text) call.body = JSON.parse(text) as unknown;
    this.calls.push(call);
    const auth = req.headers.authorization ?? "";
    const token = auth.replace(/^(Bearer|token) /i, "");
    try {
      if (this.limited(res, call, path)) return;
      if (await this.archiveRoute(req, res, call, path, url)) return;
      for (const r of this.routes)
        if (r({ method: call.method, path, url, call }, (...a) => this.send(res, call, ...a))) return;
      this.route(req, res, call, path, url, token);
    } catch (err) {
      this.send(res, call, 500, { message: String(err) });
    }
  }

  // --- reading a repository (issue 30) ---

  private budgetHeaders(): Record<string, string> {
    return {
      "x-ratelimit-limit": String(this.budget.limit),
      "x-ratelimit-remaining": String(this.budget.remaining),
      "x-ratelimit-reset": String(this.budget.reset),
      "x-ratelimit-resource": "core",
    };
  }

  /** Answer the next programmed rate limit whose path matches: true when one was. */
  private limited(res: ServerResponse, call: LoggedCall, path: string): boolean {
    const i = this.limits.findIndex((l) => !l.match || l.match.test(path));
    if (i < 0) return false;
    const [l] = this.limits.splice(i, 1);
    const headers: Record<string, string> = {};
    if (l!.retryAfter !== undefined) headers["retry-after"] = String(l!.retryAfter);
    if (l!.kind === "primary") {
      headers["x-ratelimit-remaining"] = "0";
      headers["x-ratelimit-reset"] = String(l!.reset ?? Math.ceil(Date.now() / 1000) + 60);
      this.send(res, call, 403, { message: "API rate limit exceeded for installation." }, headers);
    } else
      this.send(
        res,
        call,
        l!.kind === "429" ? 429 : 403,
        {
          message:
            "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
        },
        headers,
      );
    return true;
  }

  /**
   * The archive: `/repos/{owner}/{repo}/tarball/{ref}` redirects (302) to a codeload-like
   * address on this server that carries its own token, which streams the real `.tar.gz`.
   */
  private async archiveRoute(
    req: IncomingMessage,
    res: ServerResponse,
    call: LoggedCall,
    path: string,
    url: URL,
  ): Promise<boolean> {
    let mm: RegExpExecArray | null;
    if (req.method === "GET" && (mm = /^\/repos\/([^/]+)\/([^/]+)\/tarball\/(.+)$/.exec(path))) {
      const repo = this.repos.get(`${mm[1]}/${mm[2]}`);
      const ref = decodeURIComponent(mm[3]!);
      const sha = repo ? (repo.branches.get(ref) ?? (repo.commits.has(ref) ? ref : undefined)) : undefined;
      if (!repo || !sha) {
        this.send(res, call, 404, { message: "Not Found" });
        return true;
      }
      call.status = 302;
      res.writeHead(302, {
        location: `${this.url}/_codeload/${repo.owner}/${repo.name}/legacy.tar.gz/${sha}?token=CODELOAD${sha.slice(0, 8)}`,
        ...this.budgetHeaders(),
      });
      res.end();
      return true;
    }
    if (
      req.method === "GET" &&
      (mm = /^\/_codeload\/([^/]+)\/([^/]+)\/legacy\.tar\.gz\/([0-9a-f]{40})$/.exec(path))
    ) {
      this.codeloadAuth.push(req.headers.authorization ?? "");
      const repo = this.repos.get(`${mm[1]}/${mm[2]}`);
      const commit = repo?.commits.get(mm[3]!);
      if (!repo || !commit || url.searchParams.get("token") !== `CODELOAD${commit.sha.slice(0, 8)}`) {
        this.send(res, call, 404, { message: "Not Found" });
        return true;
      }
      const file = await this.archives.archive(
        { owner: repo.owner, name: repo.name, sha: commit.sha, files: commit.files },
        gitBlobSha,
      );
      call.status = 200;
      FakeArchives.send(res, file, `${repo.owner}-${repo.name}-${commit.sha.slice(0, 7)}`);
      return true;
    }
    return false;
  }

  /** One page of a list (`page`, `per_page`), with GitHub's `Link` header; `shortPagesBy` makes pages short. */
  private page<T>(res: ServerResponse, call: LoggedCall, url: URL, all: readonly T[], perDefault = 30): void {
    const per = Math.min(100, Number(url.searchParams.get("per_page") ?? perDefault));
    const pageNo = Math.max(1, Number(url.searchParams.get("page") ?? "1"));
    const size = Math.max(1, per - this.shortPagesBy);
    const items = all.slice((pageNo - 1) * size, pageNo * size);
    const headers: Record<string, string> = {};
    const last = Math.max(1, Math.ceil(all.length / size));
    if (pageNo < last) {
      const link = (n: number) => {
        const u = new URL(`${this.url}${call.path}`);
        u.searchParams.set("page", String(n));
        return u.href;
      };
      headers["link"] = `<${link(pageNo + 1)}>; rel="next", <${link(last)}>; rel="last"`;
    }
    this.send(res, call, 200, items, headers);
  }

  private route(
    req: IncomingMessage,
    res: ServerResponse,
    call: LoggedCall,
    path: string,
    url: URL,
    token: string,
  ): void {
    const m = req.method ?? "GET";
    if (m === "GET" && path === "/user") {
      const login = this.tokens.get(token);
      return login
        ? this.send(res, call, 200, { login })
        : this.send(res, call, 401, { message: "Bad credentials" });
    }
    let mm: RegExpExecArray | null;
    if (m === "POST" && (mm = /^\/app\/installations\/(\d+)\/access_tokens$/.exec(path)))
      return this.send(res, call, 201, {
        token: `ghs_installation_${mm[1]}`,
        expires_at: "2099-01-01T00:00:00Z",
      });
    const rm = /^\/repos\/([^/]+)\/([^/]+)(\/.*)?$/.exec(path);
    if (!rm) return this.send(res, call, 404, { message: "Not Found" });
    const repo = this.repos.get(`${rm[1]}/${rm[2]}`);
    if (!repo) return this.send(res, call, 404, { message: "Not Found" });
    const rest = rm[3] ?? "";
    if (m === "GET" && rest === "")
      return this.send(res, call, 200, {
        default_branch: repo.defaultBranch,
        private: repo.private,
        full_name: `${repo.owner}/${repo.name}`,
      });
    if (m === "GET" && rest === "/installation")
      return repo.installationId === undefined
        ? this.send(res, call, 404, { message: "Not Found" })
        : this.send(res, call, 200, { id: repo.installationId });
    if (m === "GET" && (mm = /^\/git\/ref\/heads\/(.+)$/.exec(rest))) {
      const sha = repo.branches.get(decodeURIComponent(mm[1]!));
      if (!sha) return this.send(res, call, 404, { message: "Not Found" });
      const etag = `"${sha}"`;
      if (req.headers["if-none-match"] === etag) return this.send(res, call, 304, undefined, { etag });
      return this.send(
        res,
        call,
        200,
        { ref: `refs/heads/${mm[1]}`, object: { sha, type: "commit" } },
        { etag },
      );
    }
    if (m === "GET" && (mm = /^\/git\/trees\/([^/]+)$/.exec(rest))) {
      const commit = repo.commits.get(mm[1]!);
      if (!commit) return this.send(res, call, 404, { message: "Not Found" });
      const folders = new Set<string>();
      for (const p of commit.files.keys()) {
        const parts = p.split("/");
        for (let i = 1; i < parts.length; i++) folders.add(parts.slice(0, i).join("/"));
      }
      const tree = [
        ...[...folders].map((p) => ({
          path: p,
          type: "tree",
          sha: sha1(`tree:${commit.sha}:${p}`),
          mode: "040000",
        })),
        ...[...commit.files].map(([p, t]) => ({
          path: p,
          type: "blob",
          sha: gitBlobSha(t),
          size: Buffer.byteLength(t),
          mode: "100644",
        })),
      ].sort((a, b) => (a.path < b.path ? -1 : 1));
      if (this.truncateTrees)
        return this.send(res, call, 200, {
          sha: commit.sha,
          tree: tree.slice(0, Math.floor(tree.length / 2)),
          truncated: true,
        });
      return this.send(res, call, 200, { sha: commit.sha, tree, truncated: false });
    }
    if (m === "GET" && (mm = /^\/git\/blobs\/([0-9a-f]{40})$/.exec(rest))) {
      const t = repo.blobs.get(mm[1]!);
      if (t === undefined) return this.send(res, call, 404, { message: "Not Found" });
      return this.send(res, call, 200, {
        sha: mm[1],
        size: Buffer.byteLength(t),
        encoding: "base64",
        content: Buffer.from(t).toString("base64"),
      });
    }
    if (m === "GET" && rest === "/commits") {
      const start =
        repo.branches.get(url.searchParams.get("sha") ?? repo.defaultBranch) ?? url.searchParams.get("sha");
      const prefix = url.searchParams.get("path") ?? "";
      const out: FakeCommit[] = [];
      for (
        let c = start ? repo.commits.get(start) : undefined;
        c;
        c = c.parent ? repo.commits.get(c.parent) : undefined
      ) {
        const parent = c.parent ? repo.commits.get(c.parent)!.files : new Map<string, string>();
        if (prefix === "" || touches(c.files, parent, prefix)) out.push(c);
      }
      return this.send(
        res,
        call,
        200,
        out.slice(0, Number(url.searchParams.get("per_page") ?? 30)).map(rawCommit),
      );
    }
    if (m === "GET" && (mm = /^\/compare\/([0-9a-f]{40})\.\.\.([0-9a-f]{40})$/.exec(rest))) {
      const base = repo.commits.get(mm[1]!);
      const head = repo.commits.get(mm[2]!);
      if (!base || !head) return this.send(res, call, 404, { message: "Not Found" });
      const commits: FakeCommit[] = [];
      for (
        let c: FakeCommit | undefined = head;
        c && c.sha !== base.sha;
        c = c.parent ? repo.commits.get(c.parent) : undefined
      )
        commits.unshift(c);
      const files = [];
      for (const [p, t] of head.files) {
        const before = base.files.get(p);
        if (before === undefined) files.push({ filename: p, status: "added", sha: gitBlobSha(t) });
        else if (before !== t) files.push({ filename: p, status: "modified", sha: gitBlobSha(t) });
      }
      for (const p of base.files.keys())
        if (!head.files.has(p)) files.push({ filename: p, status: "removed", sha: null });
      // GitHub's caps: the 250 oldest commits (total_commits says how many), the first 300 files.
      return this.send(res, call, 200, {
        status: "ahead",
        merge_base_commit: { sha: base.sha },
        total_commits: commits.length,
        commits: commits.slice(0, COMPARE_COMMITS_CAP).map(rawCommit),
        files: files.slice(0, COMPARE_FILES_CAP),
      });
    }
    if (m === "POST" && (mm = /^\/pulls\/(\d+)\/comments\/(\d+)\/replies$/.exec(rest))) {
      if (!repo.pulls.has(Number(mm[1]))) return this.send(res, call, 404, { message: "Not Found" });
      const id = ++this.seq;
      this.reviewReplies.push({
        pull: Number(mm[1]),
        inReplyTo: Number(mm[2]),
        id,
        body: (call.body as { body: string }).body,
      });
      return this.send(res, call, 201, { id, in_reply_to_id: Number(mm[2]) });
    }
    if (m === "GET" && (mm = /^\/pulls\/(\d+)$/.exec(rest))) {
      const pr = repo.pulls.get(Number(mm[1]));
      if (!pr) return this.send(res, call, 404, { message: "Not Found" });
      const ref = [...repo.branches].find(([, sha]) => sha === pr.head)?.[0] ?? `pr-${mm[1]}`;
      return this.send(res, call, 200, {
        number: Number(mm[1]),
        state: pr.closed ? "closed" : "open",
        head: { sha: pr.head, ref },
        base: { sha: repo.branches.get(repo.defaultBranch), ref: repo.defaultBranch },
      });
    }
    if (m === "GET" && (mm = /^\/commits\/([0-9a-f]{40})\/pulls$/.exec(rest))) {
      const sha = mm[1]!;
      const list = [...repo.pulls]
        .filter(([, pr]) => pr.head === sha || pr.mergeCommit === sha)
        .map(([number, pr]) => ({
          number,
          state: pr.closed || pr.mergeCommit ? "closed" : "open",
          head: { sha: pr.head },
          merged_at: pr.mergeCommit ? "2026-11-01T10:00:00Z" : null,
        }));
      return this.send(res, call, 200, list);
    }
    if (m === "GET" && (mm = /^\/pulls\/(\d+)\/reviews$/.exec(rest))) {
      const pr = repo.pulls.get(Number(mm[1]));
      if (!pr) return this.send(res, call, 404, { message: "Not Found" });
      const page = Number(url.searchParams.get("page") ?? "1");
      const per = Number(url.searchParams.get("per_page") ?? "30");
      const all = (pr.reviews ?? []).map((r, i) => ({ id: 5000 + i, ...r }));
      return this.send(res, call, 200, all.slice((page - 1) * per, page * per));
    }
    if (m === "GET" && (mm = /^\/pulls\/(\d+)\/files$/.exec(rest))) {
      const pr = repo.pulls.get(Number(mm[1]));
      if (!pr) return this.send(res, call, 404, { message: "Not Found" });
      // At most GitHub's 3,000 files, in pages with Link headers.
      const files = pr.files.slice(0, PULL_FILES_CAP).map((f) => ({
        filename: f,
        status: "modified",
        sha: gitBlobSha(repo.commits.get(pr.head)!.files.get(f) ?? ""),
      }));
      return this.page(res, call, url, files);
    }
    // The git data API (publishing a draft): blobs, trees (a tree is a commit's file map), commits, refs, pulls.
    if (m === "GET" && (mm = /^\/git\/commits\/([0-9a-f]{40})$/.exec(rest))) {
      const c = repo.commits.get(mm[1]!);
      return c
        ? this.send(res, call, 200, { sha: c.sha, tree: { sha: `tree-${c.sha}` } })
        : this.send(res, call, 404, { message: "Not Found" });
    }
    if (m === "POST" && rest === "/git/blobs") {
      const b = call.body as { content: string; encoding: string };
      const text = Buffer.from(b.content, b.encoding === "base64" ? "base64" : "utf8").toString("utf8");
      repo.blobs.set(gitBlobSha(text), text);
      return this.send(res, call, 201, { sha: gitBlobSha(text) });
    }
    if (m === "POST" && rest === "/git/trees") {
      const b = call.body as { base_tree: string; tree: Array<{ path: string; sha: string | null }> };
      const base = repo.commits.get(b.base_tree.replace(/^tree-/, ""));
      if (!base) return this.send(res, call, 422, { message: "base_tree not found" });
      const files = new Map(base.files);
      for (const e of b.tree) {
        if (e.sha === null) files.delete(e.path);
        else files.set(e.path, repo.blobs.get(e.sha)!);
      }
      const sha = sha1(`newtree:${[...files].map(([p, t]) => `${p}:${gitBlobSha(t)}`).join("\n")}`);
      this.trees.set(sha, files);
      return this.send(res, call, 201, { sha });
    }
    if (m === "POST" && rest === "/git/commits") {
      const b = call.body as { message: string; tree: string; parents: string[] };
      const files = this.trees.get(b.tree);
      if (!files) return this.send(res, call, 422, { message: "tree not found" });
      const sha = sha1(`commit:${b.tree}:${b.parents.join(",")}:${b.message}`);
      repo.commits.set(sha, {
        sha,
        parent: b.parents[0] ?? null,
        message: b.message,
        author: "spec-review",
        date: new Date().toISOString(),
        files,
      });
      return this.send(res, call, 201, { sha });
    }
    if (m === "POST" && rest === "/git/refs") {
      const b = call.body as { ref: string; sha: string };
      const name = b.ref.replace(/^refs\/heads\//, "");
      if (repo.branches.has(name)) return this.send(res, call, 422, { message: "Reference already exists" });
      repo.branches.set(name, b.sha);
      return this.send(res, call, 201, { ref: b.ref, object: { sha: b.sha } });
    }
    if (m === "POST" && rest === "/pulls") {
      const b = call.body as { head: string; base: string; title: string };
      const number = repo.pulls.size + 100;
      const head = repo.branches.get(b.head)!;
      repo.pulls.set(number, { files: [], head });
      return this.send(res, call, 201, {
        number,
        html_url: `https://github.example/${repo.owner}/${repo.name}/pull/${number}`,
      });
    }
    if (m === "POST" && rest === "/check-runs") {
      const id = ++this.seq;
      this.checkRuns.push({ id, body: call.body as Record<string, unknown> });
      return this.send(res, call, 201, {
        id,
        html_url: `https://github.example/${repo.owner}/${repo.name}/runs/${id}`,
        url: `${this.url}/check-runs/${id}`,
      });
    }
    if (m === "PATCH" && (mm = /^\/check-runs\/(\d+)$/.exec(rest)))
      return this.send(res, call, 200, { id: Number(mm[1]) });
    if ((mm = /^\/issues\/(\d+)\/comments$/.exec(rest))) {
      const list = this.comments.get(Number(mm[1])) ?? [];
      this.comments.set(Number(mm[1]), list);
      if (m === "GET")
        return this.send(
          res,
          call,
          200,
          list.map((c) => ({ ...c, html_url: `https://github.example/c/${c.id}` })),
        );
      const c = { id: ++this.seq, body: (call.body as { body: string }).body };
      list.push(c);
      return this.send(res, call, 201, { ...c, html_url: `https://github.example/c/${c.id}` });
    }
    if (m === "PATCH" && (mm = /^\/issues\/comments\/(\d+)$/.exec(rest))) {
      for (const list of this.comments.values())
        for (const c of list) if (c.id === Number(mm[1])) c.body = (call.body as { body: string }).body;
      return this.send(res, call, 200, { id: Number(mm[1]), html_url: `https://github.example/c/${mm[1]}` });
    }
    return this.send(res, call, 404, { message: `Not Found: ${m} ${rest}` });
  }
}

function touches(files: Map<string, string>, parent: Map<string, string>, prefix: string): boolean {
  const under = (p: string) => p === prefix || p.startsWith(prefix + "/");
  for (const [p, t] of files) if (under(p) && parent.get(p) !== t) return true;
  for (const p of parent.keys()) if (under(p) && !files.has(p)) return true;
  return false;
}

function rawCommit(c: FakeCommit) {
  return {
    sha: c.sha,
    commit: {
      message: c.message,
      author: { name: c.author, email: `${c.author}@example.com`, date: c.date },
    },
    author: { login: c.author },
    parents: c.parent ? [{ sha: c.parent }] : [],
  };
}
