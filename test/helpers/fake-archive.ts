/**
 * The fake GitHub's archives (`GET /repos/{owner}/{repo}/tarball/{ref}`), real ones: each
 * commit of a fake repo is imported into a scratch git repository (`git fast-import`: one
 * process, blobs already imported named by their id, so a push costs its changed files),
 * and `git archive --format=tar.gz --prefix=<owner>-<repo>-<sha7>/` makes the archive, as
 * GitHub's codeload does. Archives are kept on disk by commit, and streamed from there.
 */
import { spawn } from "node:child_process";
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ServerResponse } from "node:http";

export interface ArchiveSource {
  owner: string;
  name: string;
  sha: string;
  files: Map<string, string>;
}

function run(
  dir: string,
  args: string[],
  input?: (w: NodeJS.WritableStream) => Promise<void>,
  out?: string,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = spawn("git", args, {
      cwd: dir,
      stdio: [input ? "pipe" : "ignore", out ? "pipe" : "ignore", "pipe"],
      env: {
        ...process.env,
        GIT_CONFIG_NOSYSTEM: "1",
        GIT_CONFIG_GLOBAL: "/dev/null",
        GIT_COMMITTER_NAME: "fake",
        GIT_COMMITTER_EMAIL: "fake@example.com",
        GIT_AUTHOR_NAME: "fake",
        GIT_AUTHOR_EMAIL: "fake@example.com",
      },
    });
    let err = "";
    p.stderr!.on("data", (d: Buffer) => (err += d.toString()));
    // Done when git exited and, with `out`, the file is flushed.
    let waiting = out ? 2 : 1;
    const one = () => --waiting === 0 && resolve();
    if (out) {
      const ws = createWriteStream(out);
      ws.on("finish", one);
      ws.on("error", reject);
      p.stdout!.pipe(ws);
    }
    p.on("error", reject);
    p.on("close", (code) =>
      code === 0 ? one() : reject(new Error(`git ${args[0]} failed (${code}): ${err.slice(0, 500)}`)),
    );
    if (input)
      input(p.stdin!).then(
        () => p.stdin!.end(),
        (e: unknown) => {
          p.kill();
          reject(e instanceof Error ? e : new Error(String(e)));
        },
      );
  });
}

function write(w: NodeJS.WritableStream, chunk: string | Buffer): Promise<void> {
  return new Promise((resolve) => {
    if (w.write(chunk)) resolve();
    else w.once("drain", resolve);
  });
}

export class FakeArchives {
  private dir: string | undefined;
  /** Blob ids already in the scratch repository. */
  private readonly blobs = new Set<string>();
  /** Fake commit -> archive file. */
  private readonly made = new Map<string, Promise<string>>();

  private async repo(): Promise<string> {
    if (!this.dir) {
      this.dir = mkdtempSync(join(tmpdir(), "fake-github-archives-"));
      await run(this.dir, ["init", "-q", "--bare", "."]);
    }
    return this.dir;
  }

  /** The archive of a commit, made once (a path to a `.tar.gz`). */
  archive(src: ArchiveSource, blobId: (text: string) => string): Promise<string> {
    let p = this.made.get(src.sha);
    if (!p) {
      p = this.make(src, blobId);
      this.made.set(src.sha, p);
      p.catch(() => this.made.delete(src.sha));
    }
    return p;
  }

  private async make(src: ArchiveSource, blobId: (text: string) => string): Promise<string> {
    const dir = await this.repo();
    const ref = `refs/heads/c-${src.sha}`;
    const fresh: string[] = [];
    await run(dir, ["fast-import", "--quiet", "--done"], async (w) => {
      await write(w, `commit ${ref}\ncommitter fake <fake@example.com> 1767225600 +0000\ndata 4\nfake\n`);
      await write(w, "deleteall\n");
      for (const [path, text] of src.files) {
        const id = blobId(text);
        const q = /[\n"\\]/.test(path) || path.startsWith('"') ? JSON.stringify(path) : path;
        if (this.blobs.has(id)) {
          await write(w, `M 100644 ${id} ${q}\n`);
          continue;
        }
        const bytes = Buffer.from(text, "utf8");
        await write(w, `M 100644 inline ${q}\ndata ${bytes.length}\n`);
        await write(w, bytes);
        await write(w, "\n");
        fresh.push(id);
      }
      await write(w, "\ndone\n");
    });
    for (const id of fresh) this.blobs.add(id);
    const out = join(dir, `${src.sha}.tar.gz`);
    await run(
      dir,
      ["archive", "--format=tar.gz", `--prefix=${src.owner}-${src.name}-${src.sha.slice(0, 7)}/`, ref],
      undefined,
      out,
    );
    return out;
  }

  /** Stream an archive as codeload does. */
  static send(res: ServerResponse, file: string, name: string): void {
    res.writeHead(200, {
      "content-type": "application/x-gzip",
      "content-disposition": `attachment; filename=${name}.tar.gz`,
    });
    createReadStream(file).pipe(res);
  }

  close(): void {
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
    this.made.clear();
    this.blobs.clear();
  }
}
