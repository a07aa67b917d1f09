/**
 * Repo-host targets read through GitHub's API (docs/verification.md): with the App's
 * installation token on that repository when the App is installed there, else the
 * workspace's repohost token (server/repohost/sources.ts picks). A commit is read as its
 * tree and blobs, never cloned; the merge base with the default branch and the files
 * changed since rank first, as for a repository on disk.
 */
import { ApiError } from "../errors.js";
import { asApiError, GitHubError, type GitHubApi } from "../repohost/github.js";
import type { RepohostSources } from "../repohost/sources.js";
import type { Batch, ScanSource } from "./scan/pool.js";
import type { RepoReader, RepoRef, ResolvedRepo } from "./ports.js";

/** Blobs fetched per batch handed to the scan. */
const BATCH = 32;

function split(repo: string): [string, string] {
  const [owner, name] = repo.split("/");
  return [owner!, name!];
}

export function githubRepoReader(sources: RepohostSources): RepoReader {
  const client = async (repo: string): Promise<GitHubApi> => {
    const [owner, name] = split(repo);
    try {
      return await sources.clientForRepo(owner, name);
    } catch (err) {
      if (err instanceof ApiError && err.code === "repohost_not_configured")
        throw new ApiError(
          "repohost_token_missing",
          `nothing can read ${repo}: install the GitHub App on it, or set a token with PUT /admin/repohost`,
        );
      throw err;
    }
  };
  /** The full id of a commit, or commit_not_found. */
  const commitSha = async (api: GitHubApi, repo: string, ref: string): Promise<string> => {
    try {
      // A full id is read as a git object; a short one through the commits API, which expands it.
      const path = /^[0-9a-f]{40}$/i.test(ref)
        ? `/repos/${repo}/git/commits/${ref}`
        : `/repos/${repo}/commits/${ref}`;
      const res = await api.request<{ sha: string }>("GET", path);
      return res.data.sha;
    } catch (err) {
      if (err instanceof GitHubError && (err.status === 404 || err.status === 422))
        throw new ApiError("commit_not_found", `${repo} has no commit ${ref}`);
      throw asApiError(err, `reading ${repo}`);
    }
  };
  const treeOf = async (repo: string, sha: string) => {
    const api = await client(repo);
    const [owner, name] = split(repo);
    try {
      return { api, ...(await api.tree(owner, name, sha)) };
    } catch (err) {
      throw asApiError(err, `reading ${repo} at ${sha}`);
    }
  };

  return {
    async resolve(ref: RepoRef): Promise<ResolvedRepo> {
      const api = await client(ref.repo);
      const [owner, name] = split(ref.repo);
      let info;
      try {
        info = await api.repo(owner, name);
      } catch (err) {
        throw asApiError(err, `reading ${ref.repo}`);
      }
      let sha: string;
      let branch = ref.branch;
      if (ref.sha) sha = await commitSha(api, ref.repo, ref.sha);
      else if (ref.pull_request !== undefined) {
        try {
          const pr = await api.request<{ head: { sha: string; ref: string } }>(
            "GET",
            `/repos/${ref.repo}/pulls/${ref.pull_request}`,
          );
          sha = pr.data.head.sha;
          branch = pr.data.head.ref;
        } catch (err) {
          if (err instanceof GitHubError && err.status === 404)
            throw new ApiError("commit_not_found", `${ref.repo} has no pull request #${ref.pull_request}`);
          throw asApiError(err, `reading ${ref.repo}`);
        }
      } else {
        branch ??= info.default_branch;
        try {
          sha = (await api.branchHead(owner, name, branch)).sha;
        } catch (err) {
          if (err instanceof GitHubError && err.status === 404)
            throw new ApiError("commit_not_found", `${ref.repo} has no branch ${branch}`);
          throw asApiError(err, `reading ${ref.repo}`);
        }
      }
      // The merge base with the default branch, and what changed since it.
      let base_sha = "";
      let changed: string[] = [];
      try {
        const head = (await api.branchHead(owner, name, info.default_branch)).sha;
        const cmp = await api.request<{
          status: string;
          merge_base_commit?: { sha: string };
          files?: Array<{ filename: string }>;
        }>("GET", `/repos/${ref.repo}/compare/${head}...${sha}`);
        base_sha =
          cmp.data.merge_base_commit?.sha ??
          (cmp.data.status === "ahead" || cmp.data.status === "identical" ? head : "");
        changed = (cmp.data.files ?? []).map((f) => f.filename);
      } catch {
        // No default branch to compare with (an empty repo): no base, nothing ranks first.
      }
      return {
        repo: ref.repo,
        sha,
        ...(branch !== undefined ? { branch } : {}),
        ...(ref.pull_request !== undefined ? { pull_request: ref.pull_request } : {}),
        base_sha,
        changed,
      };
    },

    source(repo: string, sha: string): ScanSource {
      const [owner, name] = split(repo);
      return {
        async *batches(ctx): AsyncIterable<Batch> {
          const { api, entries, truncated } = await treeOf(repo, sha);
          if (truncated) ctx.hit("files");
          let files = 0;
          let bytes = 0;
          let pending: Array<{ path: string; sha: string }> = [];
          // Each batch's blobs are read at once, then handed to the scan.
          const read = async (): Promise<Batch> => {
            try {
              const items = await Promise.all(
                pending.map(async (p) => ({ path: p.path, bytes: await api.blob(owner, name, p.sha) })),
              );
              pending = [];
              return { type: "blobs", items };
            } catch (err) {
              throw asApiError(err, `reading ${repo} at ${sha}`);
            }
          };
          for (const e of entries) {
            if (ctx.stopped()) return;
            if (e.type !== "blob") {
              if (e.type === "commit") ctx.skip("special", e.path); // a submodule
              continue;
            }
            if (e.mode === "120000") {
              ctx.skip("symlink", e.path);
              continue;
            }
            if ((e.size ?? 0) > ctx.limits.maxFileBytes) {
              ctx.skip("too_large", e.path, e.size);
              continue;
            }
            if (files >= ctx.limits.maxFiles) {
              ctx.hit("files");
              break;
            }
            if (bytes + (e.size ?? 0) > ctx.limits.maxBytes) {
              ctx.hit("bytes");
              break;
            }
            files++;
            bytes += e.size ?? 0;
            pending.push({ path: e.path, sha: e.sha });
            if (pending.length >= BATCH) yield await read();
          }
          if (pending.length > 0 && !ctx.stopped()) yield await read();
        },
      };
    },

    async readFile(repo: string, sha: string, path: string): Promise<Uint8Array | undefined> {
      const { api, entries } = await treeOf(repo, sha);
      const entry = entries.find((e) => e.type === "blob" && e.path === path);
      if (!entry) return undefined;
      const [owner, name] = split(repo);
      try {
        return await api.blob(owner, name, entry.sha);
      } catch (err) {
        throw asApiError(err, `reading ${path} of ${repo} at ${sha}`);
      }
    },
  };
}
