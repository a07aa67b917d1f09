/**
 * A git repository on disk, read at one commit with git itself (`rev-parse`, `ls-tree`,
 * `cat-file --batch`, `merge-base`, `diff --name-only`): the user's work tree, index and
 * checked-out branch are never touched (no checkout, no optional locks).
 */
import { execFile, spawn } from "node:child_process";
import type { Batch, ScanSource, SourceContext } from "./scan/pool.js";

const ENV = { ...process.env, GIT_OPTIONAL_LOCKS: "0", GIT_TERMINAL_PROMPT: "0", LC_ALL: "C" };

export class GitError extends Error {}

export function git(dir: string, args: string[], timeoutMs = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      "git",
      ["-C", dir, ...args],
      { env: ENV, maxBuffer: 512 * 1024 * 1024, timeout: timeoutMs, encoding: "utf8" },
      (err, stdout, stderr) => {
        if (err) reject(new GitError(`git ${args[0]}: ${String(stderr || err.message).trim()}`));
        else resolve(stdout);
      },
    );
  });
}

/** The top of the work tree holding `dir`, or undefined when `dir` is no git repository. */
export async function gitTopLevel(dir: string): Promise<string | undefined> {
  try {
    return (await git(dir, ["rev-parse", "--show-toplevel"])).trim();
  } catch {
    return undefined;
  }
}

/** The full SHA of the commit `rev` names, or undefined when it names none. */
export async function resolveCommit(dir: string, rev: string): Promise<string | undefined> {
  if (rev.startsWith("-")) return undefined;
  try {
    return (await git(dir, ["rev-parse", "--verify", "--quiet", `${rev}^{commit}`])).trim() || undefined;
  } catch {
    return undefined;
  }
}

export interface CommitContext {
  /** A branch whose head is the commit (the checked-out one first), or undefined. */
  branch?: string;
  /** The default branch the base is taken from. */
  default_branch?: string;
  /** The merge base of the commit and the default branch; empty when there is none. */
  base_sha: string;
  /** Files changed between the base and the commit. */
  changed: string[];
}

export async function commitContext(dir: string, sha: string): Promise<CommitContext> {
  const heads = (
    await git(dir, ["for-each-ref", "--points-at", sha, "--format=%(refname:short)", "refs/heads"])
  )
    .split("\n")
    .filter(Boolean);
  let current: string | undefined;
  try {
    current = (await git(dir, ["symbolic-ref", "--quiet", "--short", "HEAD"])).trim();
  } catch {
    current = undefined;
  }
  const branch = current && heads.includes(current) ? current : heads[0];
  const defaultBranch = await defaultBranchOf(dir);
  let base = "";
  if (defaultBranch) {
    try {
      base = (await git(dir, ["merge-base", sha, defaultBranch])).trim();
    } catch {
      base = "";
    }
  }
  const changed =
    base && base !== sha
      ? (await git(dir, ["diff", "--name-only", "-z", "--no-renames", base, sha])).split("\0").filter(Boolean)
      : [];
  return { branch, default_branch: defaultBranch, base_sha: base, changed };
}

async function defaultBranchOf(dir: string): Promise<string | undefined> {
  try {
    const remote = (
      await git(dir, ["symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD"])
    ).trim();
    if (remote) return remote;
  } catch {
    // no remote HEAD: try the usual names
  }
  for (const name of ["main", "master", "trunk"])
    if (await resolveCommit(dir, `refs/heads/${name}`)) return name;
  return undefined;
}

interface TreeEntry {
  mode: string;
  type: string;
  oid: string;
  size: number;
  path: string;
}

async function lsTree(dir: string, sha: string): Promise<TreeEntry[]> {
  const out = await git(dir, ["ls-tree", "-r", "-l", "-z", "--full-tree", sha]);
  const entries: TreeEntry[] = [];
  for (const rec of out.split("\0")) {
    if (!rec) continue;
    const tab = rec.indexOf("\t");
    const [mode, type, oid, size] = rec.slice(0, tab).split(/ +/);
    entries.push({ mode: mode!, type: type!, oid: oid!, size: Number(size) || 0, path: rec.slice(tab + 1) });
  }
  return entries;
}

/**
 * Reads blobs by object id with one `git cat-file --batch` process: ids are written as
 * the caller asks, answers parsed from the stream in order.
 */
class BlobReader {
  private readonly proc;
  private buf: Buffer = Buffer.alloc(0);
  private readonly pending: Array<{ resolve: (b: Buffer) => void; reject: (e: Error) => void }> = [];
  private failed: Error | undefined;

  constructor(dir: string) {
    this.proc = spawn("git", ["-C", dir, "cat-file", "--batch"], {
      env: ENV,
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.proc.stdout.on("data", (chunk: Buffer) => {
      this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
      this.drain();
    });
    const fail = (err: Error) => {
      this.failed ??= err;
      for (const p of this.pending.splice(0)) p.reject(err);
    };
    this.proc.on("error", fail);
    this.proc.on("close", () => fail(new GitError("git cat-file ended")));
    this.proc.stdin.on("error", fail);
  }

  private drain(): void {
    while (this.pending.length > 0) {
      const nl = this.buf.indexOf(10);
      if (nl === -1) return;
      const header = this.buf.toString("latin1", 0, nl);
      const parts = header.split(" ");
      if (/ (missing|ambiguous)$/.test(header) || parts.length < 3) {
        this.buf = this.buf.subarray(nl + 1);
        this.pending.shift()!.reject(new GitError(`object ${parts[0]} is missing`));
        continue;
      }
      const size = Number(parts[2]);
      if (this.buf.length < nl + 1 + size + 1) return;
      const body = Buffer.from(this.buf.subarray(nl + 1, nl + 1 + size));
      this.buf = this.buf.subarray(nl + 1 + size + 1);
      this.pending.shift()!.resolve(body);
    }
  }

  read(oid: string): Promise<Buffer> {
    if (this.failed) return Promise.reject(this.failed);
    return new Promise((resolve, reject) => {
      this.pending.push({ resolve, reject });
      this.proc.stdin.write(`${oid}\n`);
    });
  }

  close(): void {
    this.proc.stdin.end();
    this.proc.kill();
  }
}

const BATCH_BYTES = 1024 * 1024;

/** The files of `sha` as a scan source: symbolic links and submodules are not read. */
export function gitSource(dir: string, sha: string): ScanSource {
  return {
    async *batches(ctx: SourceContext): AsyncIterable<Batch> {
      const entries = await lsTree(dir, sha);
      const reader = new BlobReader(dir);
      try {
        let items: Array<{ path: string; bytes: Uint8Array }> = [];
        let bytes = 0;
        let files = 0;
        let total = 0;
        for (const e of entries) {
          if (ctx.stopped()) return;
          if (e.mode === "120000") ctx.skip("symlink", e.path);
          else if (e.type !== "blob") ctx.skip("special", e.path);
          else if (e.size > ctx.limits.maxFileBytes) ctx.skip("too_large", e.path, e.size);
          else {
            if (++files > ctx.limits.maxFiles) {
              ctx.hit("files");
              break;
            }
            if ((total += e.size) > ctx.limits.maxBytes) {
              ctx.hit("bytes");
              break;
            }
            items.push({ path: e.path, bytes: await reader.read(e.oid) });
            bytes += e.size;
            if (bytes >= BATCH_BYTES || items.length >= 256) {
              yield { type: "blobs", items };
              items = [];
              bytes = 0;
            }
          }
        }
        if (items.length) yield { type: "blobs", items };
      } finally {
        reader.close();
      }
    },
  };
}

/** One file at a commit, or undefined when the commit has no such file. */
export async function readAt(dir: string, sha: string, path: string): Promise<Buffer | undefined> {
  const reader = new BlobReader(dir);
  try {
    return await reader.read(`${sha}:${path}`);
  } catch {
    return undefined;
  } finally {
    reader.close();
  }
}
