/**
 * `spec-review lint --changed-since <ref>`: the files changed since a git ref, for merge
 * requests and hooks. The rule (docs/lint-cli.md):
 *
 * - the files that differ between the merge base of `<ref>` and HEAD, and HEAD: what
 *   `git diff --name-only <ref>...HEAD` lists, the changes on this branch only;
 * - plus what differs between HEAD and the working tree (staged or not);
 * - plus untracked files that are not ignored.
 *
 * Renames count as a deletion and an addition (both paths); deleted files count (a deleted
 * asset changes its bundle). A ref that names no commit, or no merge base (a shallow
 * clone), is a usage error.
 */
import { posix, resolve } from "node:path";
import { execa } from "execa";
import { LintUsageError } from "./lint-fs.js";

async function git(cwd: string, args: readonly string[]) {
  const r = await execa("git", args, { cwd, reject: false, stripFinalNewline: false });
  if (r.failed && (r as { code?: string }).code === "ENOENT")
    throw new LintUsageError("--changed-since needs git, and git is not on PATH");
  return r;
}

const names = (stdout: string) => stdout.split("\0").filter((n) => n !== "");

/** The changed files (absolute paths) since `ref`, as the rule above says. */
export async function changedSince(ref: string, cwd: string): Promise<Set<string>> {
  if (ref === "" || ref.startsWith("-"))
    throw new LintUsageError(`--changed-since: '${ref}' is not a git ref`);
  const top = await git(cwd, ["rev-parse", "--show-toplevel", "--show-prefix"]);
  if (top.exitCode !== 0) throw new LintUsageError(`--changed-since: ${cwd} is not in a git repository`);
  const [root = cwd, prefix = ""] = top.stdout.split("\n");
  const commit = await git(cwd, ["rev-parse", "--verify", "--quiet", "--end-of-options", `${ref}^{commit}`]);
  if (commit.exitCode !== 0)
    throw new LintUsageError(
      `--changed-since: '${ref}' names no commit here (in a shallow clone, fetch it first: git fetch origin ${ref})`,
    );
  const base = await git(cwd, ["merge-base", commit.stdout.trim(), "HEAD"]);
  if (base.exitCode !== 0)
    throw new LintUsageError(
      `--changed-since: '${ref}' and HEAD have no common ancestor here (a shallow clone? fetch more history, e.g. GIT_DEPTH: 0 in GitLab CI)`,
    );
  const [committed, working, untracked] = await Promise.all([
    git(root, ["diff", "--name-only", "-z", "--no-renames", base.stdout.trim(), "HEAD", "--"]),
    git(root, ["diff", "--name-only", "-z", "--no-renames", "HEAD", "--"]),
    git(root, ["ls-files", "--others", "--exclude-standard", "-z"]),
  ]);
  for (const r of [committed, working, untracked])
    if (r.exitCode !== 0)
      throw new LintUsageError(`--changed-since: ${r.command} failed: ${r.stderr.trim()}`);
  // Git names files from the repository's root; they are resolved from `cwd` (by the
  // prefix git gives it), so a symlink in the path to `cwd` does not make them differ.
  return new Set(
    [committed, working, untracked]
      .flatMap((r) => names(r.stdout))
      .map((n) => resolve(cwd, posix.relative(prefix, n))),
  );
}
