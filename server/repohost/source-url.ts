/**
 * What a source URL names: `owner/name`, a repo URL, `…/tree/<branch>/<folder>` or
 * `…/blob/<branch>/<file>` (its folder). A branch name with a slash cannot be told from
 * the folder in a tree URL; the first segment is taken as the branch (docs/app.md).
 */
import { ApiError } from "../errors.js";

export interface SourceRef {
  owner: string;
  repo: string;
  /** Undefined: the repo's default branch. */
  branch?: string;
  /** Folder in the repo; "" for the root. */
  path: string;
}

const NAME = /^[A-Za-z0-9_.-]+$/;

function bad(url: string, why: string): ApiError {
  return new ApiError("bad_source_url", `${url}: ${why}`, {
    errors: [{ field: "body.url", message: why }],
  });
}

export function parseSourceUrl(input: string): SourceRef {
  const url = input.trim();
  let parts: string[];
  if (/^[^/:\s]+\/[^/:\s]+$/.test(url)) parts = url.split("/");
  else {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      throw bad(url, "not a URL nor owner/name");
    }
    if (u.protocol !== "https:" && u.protocol !== "http:") throw bad(url, "not an http(s) URL");
    parts = u.pathname
      .split("/")
      .filter((p) => p !== "")
      .map(decodeURIComponent);
  }
  const [owner, rawRepo, kind, branch, ...rest] = parts;
  if (!owner || !rawRepo) throw bad(url, "names no owner/name");
  const repo = rawRepo.replace(/\.git$/, "");
  if (!NAME.test(owner) || !NAME.test(repo))
    throw bad(url, "owner or name has characters a repo name cannot");
  if (kind === undefined) return { owner, repo, path: "" };
  if ((kind !== "tree" && kind !== "blob") || !branch)
    throw bad(url, "expected …/tree/<branch>/<folder> or …/blob/<branch>/<file>");
  if (rest.some((p) => p === ".." || p === ".")) throw bad(url, "the path has . or .. segments");
  const path = kind === "blob" ? rest.slice(0, -1).join("/") : rest.join("/");
  return { owner, repo, branch, path };
}
