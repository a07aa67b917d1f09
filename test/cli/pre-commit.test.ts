/**
 * The `spec-review-lint` hook of .pre-commit-hooks.yaml (language: system), run by
 * pre-commit itself (`pre-commit try-repo`, Debian's pre-commit 3.0.4 in CI) on commits of
 * a temporary repository, with a `spec-review` on PATH that runs this checkout's CLI.
 * Without pre-commit the test is skipped (said on stderr), except under CI=true, where it
 * fails.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../node/package.js";

const root = packageRoot();
const IN_CI = process.env.CI === "true";
const found = spawnSync("pre-commit", ["--version"], { encoding: "utf8" });
const PRE_COMMIT = found.status === 0;
if (!PRE_COMMIT && !IN_CI)
  process.stderr.write(
    "pre-commit.test.ts: skipping: pre-commit is not on PATH (apt-get install pre-commit)\n",
  );

let tmp: string;
let hooks: string;
let repo: string;
let env: NodeJS.ProcessEnv;

function run(cwd: string, cmd: string, ...args: string[]) {
  const r = spawnSync(cmd, args, { cwd, env, encoding: "utf8" });
  if (r.error) throw r.error;
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}
const git = (...args: string[]) => {
  const r = run(repo, "git", ...args);
  if (r.code !== 0) throw new Error(`git ${args.join(" ")}: ${r.out}`);
};
/** The system hook on what is staged, as `git commit` would run it. */
const hook = () => run(repo, "pre-commit", "try-repo", hooks, "spec-review-lint");

beforeAll(() => {
  if (!PRE_COMMIT && !IN_CI) return;
  tmp = mkdtempSync(join(tmpdir(), "pre-commit-"));
  // The `spec-review` a team installs; here, one that runs this checkout's source.
  const bin = join(tmp, "bin");
  mkdirSync(bin);
  const shim = join(bin, "spec-review");
  writeFileSync(
    shim,
    `#!/bin/sh\nexec "${join(root, "node_modules", ".bin", "tsx")}" "${join(root, "cli", "main.ts")}" "$@"\n`,
  );
  chmodSync(shim, 0o755);
  env = {
    ...process.env,
    PATH: `${bin}${delimiter}${process.env.PATH ?? ""}`,
    PRE_COMMIT_HOME: join(tmp, "cache"),
    GIT_AUTHOR_NAME: "Test",
    GIT_AUTHOR_EMAIL: "test@example.com",
    GIT_COMMITTER_NAME: "Test",
    GIT_COMMITTER_EMAIL: "test@example.com",
  };
  // The hook repository: this checkout's .pre-commit-hooks.yaml, committed (try-repo clones it).
  hooks = join(tmp, "hooks");
  mkdirSync(hooks);
  cpSync(join(root, ".pre-commit-hooks.yaml"), join(hooks, ".pre-commit-hooks.yaml"));
  for (const args of [
    ["init", "-q"],
    ["add", "-A"],
    ["commit", "-qm", "hooks"],
  ]) {
    const r = spawnSync("git", args, { cwd: hooks, env, encoding: "utf8" });
    if (r.status !== 0) throw new Error(r.stderr);
  }
  repo = join(tmp, "repo");
  mkdirSync(repo);
  git("init", "-q");
});
afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe.skipIf(!PRE_COMMIT && !IN_CI)("pre-commit hook spec-review-lint (language: system)", () => {
  it("is pre-commit 3 or later", () => {
    expect(found.error).toBeUndefined();
    expect(found.stdout).toMatch(/^pre-commit [3-9]\./);
  });

  it("passes a commit that stages no spec doc, and one that stages no markdown", () => {
    writeFileSync(join(repo, "README.md"), "# Field apps\n\nHow we work.\n");
    git("add", "README.md");
    let r = hook();
    expect(r.out).toMatch(/spec-review lint\.+Passed/);
    expect(r.code).toBe(0);
    git("commit", "-qm", "readme");
    writeFileSync(join(repo, "logo.svg"), "<svg/>\n");
    git("add", "logo.svg");
    r = hook();
    expect(r.out).toMatch(/spec-review lint\.+\(no files to check\)Skipped/);
    expect(r.code).toBe(0);
    git("commit", "-qm", "logo");
  }, 120_000);

  it("passes a Build Ready spec doc and stops a Not Build Ready one", () => {
    cpSync(join(root, "fixtures", "examples", "prd"), join(repo, "specs", "saved-searches"), {
      recursive: true,
    });
    git("add", "-A");
    let r = hook();
    expect(r.out).toMatch(/spec-review lint\.+Passed/);
    expect(r.code).toBe(0);
    git("commit", "-qm", "saved searches");
    cpSync(join(root, "fixtures", "report", "offline-sync"), join(repo, "specs", "offline-sync"), {
      recursive: true,
    });
    git("add", "-A");
    r = hook();
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/spec-review lint\.+Failed/);
    expect(r.out).toContain("specs/offline-sync/prd.md:31:");
    expect(r.out).toContain("MUST undecided 'TBD' marks something undecided");
    expect(r.out).toContain("specs/offline-sync/prd.md: Not Build Ready [prd/standard]");
  }, 120_000);
});
