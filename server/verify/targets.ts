/**
 * What a verification target names (docs/verification.md, "Targets"): a repo-host
 * repository (a URL of a repo, branch, file, commit or pull request; `owner/name`;
 * `repo` + `sha`), or in local mode an absolute folder. A folder inside a git repository
 * is read at a commit with git (HEAD, or `sha`); any other folder is read as it is on disk.
 */
import { realpath, stat } from "node:fs/promises";
import { isAbsolute, relative, resolve as resolvePath, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { ApiError } from "../errors.js";
import { commitContext, gitTopLevel, resolveCommit } from "./git.js";
import type { RepoRef } from "./ports.js";

export interface TargetInput {
  target?: string;
  repo?: string;
  sha?: string;
  path?: string;
}

export type Parsed = { kind: "folder"; path: string; sha?: string } | { kind: "repo"; ref: RepoRef };

/**
 * `owner/name` as GitHub allows them: an owner of letters, digits and inner hyphens; a
 * name of letters, digits, `.`, `_` and `-` that is not `.` or `..` (so `../x` is no repo).
 */
const OWNER_NAME =
  /^([A-Za-z0-9](?:[A-Za-z0-9_-]*[A-Za-z0-9])?)\/((?!\.\.?(?:\.git)?$)[A-Za-z0-9_.-]+?)(?:\.git)?$/;
const SHA = /^[0-9a-f]{7,40}$/i;

function checkSha(sha: string | undefined): string | undefined {
  if (sha === undefined || sha === "") return undefined;
  if (!SHA.test(sha))
    throw new ApiError("bad_sha", `sha ${JSON.stringify(sha)} is not 7 to 40 hexadecimal digits`);
  return sha.toLowerCase();
}

function unrecognised(t: string): ApiError {
  return new ApiError(
    "target_unrecognised",
    `${JSON.stringify(t.slice(0, 200))} is no repo URL, owner/name or absolute folder`,
  );
}

/** A repo-host URL: repo, `/tree/<branch>`, `/blob/<ref>/<file>`, `/commit/<sha>`, `/pull/<n>`. */
function parseRepoUrl(u: URL, raw: string): RepoRef {
  const parts = u.pathname.split("/").filter(Boolean).map(decodeURIComponent);
  if (parts.length < 2) throw unrecognised(raw);
  const repo = `${parts[0]}/${parts[1]!.replace(/\.git$/, "")}`;
  if (!OWNER_NAME.test(repo)) throw unrecognised(raw);
  const ref: RepoRef = { repo, host: u.host };
  const [, , what, ...rest] = parts;
  if (what === undefined) return ref;
  if (what === "tree" && rest.length) ref.branch = rest.join("/");
  else if (what === "blob" && rest.length >= 2) {
    const at = rest[0]!;
    if (SHA.test(at) && at.length === 40) ref.sha = at.toLowerCase();
    else ref.branch = at;
    ref.file = rest.slice(1).join("/");
  } else if ((what === "commit" || what === "commits") && rest[0] && SHA.test(rest[0]))
    ref.sha = rest[0].toLowerCase();
  else if (what === "pull" && rest[0] && /^\d+$/.test(rest[0])) ref.pull_request = Number(rest[0]);
  else throw unrecognised(raw);
  return ref;
}

/** What the fields of a request name, without touching the disk or the network. */
export function parseTarget(input: TargetInput): Parsed | undefined {
  const sha = checkSha(input.sha);
  if (input.path !== undefined && input.path !== "") return { kind: "folder", path: input.path, sha };
  if (input.repo !== undefined && input.repo !== "") {
    const m = input.repo.trim().match(OWNER_NAME);
    if (!m) {
      if (input.repo.includes("://"))
        return { kind: "repo", ref: { ...parseUrlTarget(input.repo), ...(sha ? { sha } : {}) } };
      throw unrecognised(input.repo);
    }
    return { kind: "repo", ref: { repo: `${m[1]}/${m[2]}`, ...(sha ? { sha } : {}) } };
  }
  const t = input.target?.trim();
  if (!t) return undefined;
  if (t.startsWith("file://")) return { kind: "folder", path: fileURLToPath(t), sha };
  if (isAbsolute(t) || /^[A-Za-z]:[\\/]/.test(t)) return { kind: "folder", path: t, sha };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(t)) {
    const ref = parseUrlTarget(t);
    return { kind: "repo", ref: sha ? { ...ref, sha } : ref };
  }
  const ssh = t.match(/^git@([^:]+):(.+)$/);
  if (ssh) {
    const m = ssh[2]!.match(OWNER_NAME);
    if (!m) throw unrecognised(t);
    return { kind: "repo", ref: { repo: `${m[1]}/${m[2]}`, host: ssh[1], ...(sha ? { sha } : {}) } };
  }
  const m = t.match(OWNER_NAME);
  if (m) return { kind: "repo", ref: { repo: `${m[1]}/${m[2]}`, ...(sha ? { sha } : {}) } };
  throw unrecognised(t);
}

function parseUrlTarget(t: string): RepoRef {
  let u: URL;
  try {
    u = new URL(t);
  } catch {
    throw unrecognised(t);
  }
  if (u.protocol !== "https:" && u.protocol !== "http:" && u.protocol !== "ssh:" && u.protocol !== "git:")
    throw unrecognised(t);
  return parseRepoUrl(u, t);
}

/** A folder target, checked: local mode only, inside the allowed roots, a folder. */
export interface FolderTarget {
  kind: "folder";
  /** The folder, symbolic links resolved. */
  path: string;
  /** When the folder is inside a git repository: its top, the commit read, and its context. */
  git?: { top: string; sha: string; branch?: string; base_sha: string; changed: string[] };
}

function inside(root: string, p: string): boolean {
  const rel = relative(root, p);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel) && !rel.startsWith(`..${sep}`));
}

export async function checkFolder(
  parsed: { path: string; sha?: string },
  mode: "local" | "hosted",
  roots: readonly string[],
): Promise<FolderTarget> {
  if (mode !== "local")
    throw new ApiError("folder_local_only", "a hosted service reads no folders; name a repository");
  if (!isAbsolute(parsed.path))
    throw new ApiError(
      "target_unrecognised",
      `folder ${JSON.stringify(parsed.path)} is not an absolute path`,
    );
  let real: string;
  try {
    real = await realpath(resolvePath(parsed.path));
    if (!(await stat(real)).isDirectory()) throw new Error("not a folder");
  } catch {
    throw new ApiError("folder_not_found", `${parsed.path} is not a folder`);
  }
  const allowed = await Promise.all(roots.map((r) => realpath(r).catch(() => resolvePath(r))));
  if (!allowed.some((r) => inside(r, real)))
    throw new ApiError(
      "folder_not_allowed",
      `${parsed.path} is outside the folders this service may read (${allowed.join(", ")})`,
    );
  const top = await gitTopLevel(real);
  if (!top) {
    if (parsed.sha) throw new ApiError("not_a_git_repo", `${parsed.path} is not inside a git repository`);
    return { kind: "folder", path: real };
  }
  const topReal = await realpath(top);
  if (!allowed.some((r) => inside(r, topReal)))
    throw new ApiError(
      "folder_not_allowed",
      `the git repository of ${parsed.path} reaches outside the folders this service may read`,
    );
  const rev = parsed.sha ?? "HEAD";
  const sha = await resolveCommit(topReal, rev);
  if (!sha)
    throw new ApiError(
      "commit_not_found",
      parsed.sha
        ? `the repository at ${topReal} has no commit ${parsed.sha}`
        : `the repository at ${topReal} has no commits yet`,
    );
  const ctx = await commitContext(topReal, sha);
  return {
    kind: "folder",
    path: topReal,
    git: { top: topReal, sha, branch: ctx.branch, base_sha: ctx.base_sha, changed: ctx.changed },
  };
}
