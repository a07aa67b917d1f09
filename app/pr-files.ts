/**
 * What a pull request touches, and a commit's files, read as GitHub pages and caps them
 * (docs/app.md, "Reading a repository"):
 *
 * - the pull request's files follow the `Link` header page by page (a short page is not
 *   taken as the last); GitHub lists at most 3,000 files, so a list that reaches the cap
 *   is not whole: the compare of its merge base and head says, and when that is cut short
 *   too (300 files), the two commits' file lists are compared blob by blob;
 * - a recursive tree answered `truncated: true` is never taken as whole: the commit's
 *   archive lists its files instead (server/repohost/archive.ts), through the repo's own
 *   client for the installation.
 */
import { readArchive } from "../server/repohost/archive.js";
import { COMPARE_FILE_CAP, nextLink, type GitHubApi } from "../server/repohost/github.js";
import type { TreeFile } from "./pr-checkout.js";

/** GitHub lists at most this many files of a pull request. */
export const PULL_FILES_CAP = 3000;

interface Requester {
  request(route: string, params?: Record<string, unknown>): Promise<{ data: unknown }>;
}

interface Where {
  owner: string;
  repo: string;
  number: number;
  headSha: string;
  baseSha?: string;
}

type Answer = { data: unknown; headers?: Record<string, string | number | undefined> };

/** The files a pull request changes (and the old names of those it renames). */
export async function pullFiles(
  gh: Requester,
  ev: Where,
  repoClient?: () => Promise<GitHubApi>,
): Promise<string[]> {
  const out = new Set<string>();
  let listed = 0;
  let next: string | undefined;
  for (let first = true; first || next; first = false) {
    const res = (
      first
        ? await gh.request("GET /repos/{owner}/{repo}/pulls/{pull_number}/files", {
            owner: ev.owner,
            repo: ev.repo,
            pull_number: ev.number,
            per_page: 100,
          })
        : await gh.request(`GET ${next!}`)
    ) as Answer;
    const files = res.data as Array<{ filename: string; previous_filename?: string }>;
    listed += files.length;
    for (const f of files) {
      out.add(f.filename);
      if (f.previous_filename) out.add(f.previous_filename);
    }
    const link = res.headers?.["link"];
    next = nextLink(new Headers(link === undefined ? {} : { link: String(link) }));
  }
  if (listed < PULL_FILES_CAP) return [...out];
  return [...(await pastTheCap(gh, ev, repoClient))];
}

/** A pull request past GitHub's file cap: the compare of its merge base and head, else the two commits' files. */
async function pastTheCap(
  gh: Requester,
  ev: Where,
  repoClient?: () => Promise<GitHubApi>,
): Promise<Set<string>> {
  let base = ev.baseSha;
  if (!base) {
    const { data } = await gh.request("GET /repos/{owner}/{repo}/pulls/{pull_number}", {
      owner: ev.owner,
      repo: ev.repo,
      pull_number: ev.number,
    });
    base = (data as { base: { sha: string } }).base.sha;
  }
  const { data } = await gh.request("GET /repos/{owner}/{repo}/compare/{basehead}", {
    owner: ev.owner,
    repo: ev.repo,
    basehead: `${base}...${ev.headSha}`,
  });
  const cmp = data as {
    files?: Array<{ filename: string; previous_filename?: string }>;
    merge_base_commit?: { sha: string };
  };
  const files = cmp.files ?? [];
  if (files.length < COMPARE_FILE_CAP) {
    const out = new Set<string>();
    for (const f of files) {
      out.add(f.filename);
      if (f.previous_filename) out.add(f.previous_filename);
    }
    return out;
  }
  // Cut short again: every path whose blob differs between the merge base and the head.
  const from = cmp.merge_base_commit?.sha ?? base;
  const [a, b] = [
    await commitFiles(gh, ev, from, repoClient),
    await commitFiles(gh, ev, ev.headSha, repoClient),
  ];
  const before = new Map(a.map((f) => [f.path, f.sha]));
  const out = new Set<string>();
  for (const f of b) if (before.get(f.path) !== f.sha) out.add(f.path);
  const after = new Set(b.map((f) => f.path));
  for (const f of a) if (!after.has(f.path)) out.add(f.path);
  return out;
}

/**
 * Every file of a commit: its recursive tree, or, when GitHub truncates it, its archive
 * (through the installation's repo client; without one, the truncated tree is refused).
 */
export async function commitFiles(
  gh: Requester,
  ev: { owner: string; repo: string },
  sha: string,
  repoClient?: () => Promise<GitHubApi>,
): Promise<TreeFile[]> {
  const { data } = await gh.request("GET /repos/{owner}/{repo}/git/trees/{tree_sha}", {
    owner: ev.owner,
    repo: ev.repo,
    tree_sha: sha,
    recursive: "1",
  });
  const tree = data as { tree: Array<{ path: string; type: string; sha: string }>; truncated?: boolean };
  if (!tree.truncated)
    return tree.tree.filter((e) => e.type === "blob").map((e) => ({ path: e.path, sha: e.sha }));
  if (!repoClient)
    throw new Error(
      `the tree of ${ev.owner}/${ev.repo}@${sha} is truncated and no archive reader is at hand`,
    );
  const read = await readArchive(await repoClient(), ev.owner, ev.repo, sha, { keep: () => false });
  return [...read.files].map(([path, f]) => ({ path, sha: f.sha }));
}
