/**
 * Atomic writes of small files on a thread of their own.
 *
 * An atomic write (`atomicWrite`: make the folder, open a temp file, write, fsync, close,
 * rename, open the folder, fsync it, close) is nine file operations. Made from the
 * request loop, each is a trip to libuv's pool and back: about 1.7 ms for a 10 KB file on
 * the machine of docs/performance.md, where the same calls made back to back take 0.9 ms,
 * and the loop has nothing to do in between. This thread makes them back to back while
 * the loop goes on: a save lints the new text meanwhile (server/runs.ts, `writing`).
 *
 * Files over `MAX_BYTES` keep the pool's asynchronous path (their bytes would be copied
 * to the thread, and their fsync is what takes the time). When the thread cannot start
 * or stops, writes fall back to that path too.
 */
import { Worker } from "node:worker_threads";
import { stat } from "node:fs/promises";
import { atomicWrite } from "./fsutil.js";

/** Files up to this size are written on the thread. */
export const MAX_BYTES = 1024 * 1024;

interface Pending {
  resolve: (mtimeMs: number) => void;
  reject: (err: Error) => void;
}

type Answer =
  | { id: number; ok: true; mtimeMs: number }
  | { id: number; ok: false; error: { message: string; code?: string; syscall?: string; path?: string } };

// The thread's code: plain JavaScript run with `eval`, so it needs no file of its own (in
// the package, from source under tsx, or bundled). The same steps as `atomicWrite`.
const THREAD = `
const { parentPort } = require("node:worker_threads");
const fs = require("node:fs");
const { dirname, join } = require("node:path");
const { randomBytes } = require("node:crypto");
function syncDir(dir) {
  let fd;
  try { fd = fs.openSync(dir, fs.constants.O_RDONLY); fs.fsyncSync(fd); }
  catch { /* some file systems refuse to fsync a folder; the rename is still atomic */ }
  finally { if (fd !== undefined) fs.closeSync(fd); }
}
parentPort.on("message", ({ id, file, bytes }) => {
  try {
    const dir = dirname(file);
    fs.mkdirSync(dir, { recursive: true });
    const tmp = join(dir, ".sr-tmp-" + randomBytes(6).toString("hex"));
    const fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o644);
    let mtimeMs;
    try {
      let at = 0;
      while (at < bytes.length) at += fs.writeSync(fd, bytes, at, bytes.length - at);
      fs.fsyncSync(fd);
      mtimeMs = fs.fstatSync(fd).mtimeMs;
    } catch (err) {
      fs.closeSync(fd);
      try { fs.unlinkSync(tmp); } catch {}
      throw err;
    }
    fs.closeSync(fd);
    try { fs.renameSync(tmp, file); }
    catch (err) { try { fs.unlinkSync(tmp); } catch {} throw err; }
    syncDir(dir);
    parentPort.postMessage({ id, ok: true, mtimeMs });
  } catch (err) {
    parentPort.postMessage({ id, ok: false, error: { message: String(err && err.message), code: err && err.code, syscall: err && err.syscall, path: err && err.path } });
  }
});
`;

export class DiskWriter {
  private worker: Worker | undefined;
  /** The thread stopped or could not start: every write takes the asynchronous path. */
  private broken = false;
  private closed = false;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  /** Called when the last write in flight settles (`close` waits for it). */
  private drained: (() => void) | undefined;

  /** Write `bytes` to `file` atomically (readers see the old or the new file); answers its mtime. */
  async write(file: string, bytes: Uint8Array): Promise<number> {
    const worker = bytes.length <= MAX_BYTES ? this.thread() : undefined;
    if (!worker) {
      await atomicWrite(file, bytes);
      return (await stat(file)).mtimeMs;
    }
    const id = this.nextId++;
    const done = new Promise<number>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    if (this.pending.size === 1) worker.ref();
    worker.postMessage({ id, file, bytes });
    return done;
  }

  /** Stop the thread (writes in flight finish first). */
  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = undefined;
    if (!worker) return;
    if (this.pending.size > 0) await new Promise<void>((resolve) => (this.drained = resolve));
    await worker.terminate();
  }

  private thread(): Worker | undefined {
    if (this.worker || this.broken || this.closed) return this.worker;
    let worker: Worker;
    try {
      worker = new Worker(THREAD, { eval: true });
    } catch {
      this.broken = true;
      return undefined;
    }
    worker.unref();
    worker.on("message", (a: Answer) => {
      const p = this.pending.get(a.id);
      if (!p) return;
      this.pending.delete(a.id);
      if (a.ok) p.resolve(a.mtimeMs);
      else p.reject(Object.assign(new Error(a.error.message), withoutUndefined(a.error)));
      if (this.pending.size === 0) {
        worker.unref();
        this.drained?.();
      }
    });
    const lost = (err: Error) => {
      if (this.broken) return;
      if (this.worker === worker) this.worker = undefined;
      this.broken = true;
      // A write the thread had not answered fails: the store records no version for it (if
      // its bytes reached the disk after all, the next look at the folder records them).
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
      this.drained?.();
    };
    worker.on("error", lost);
    worker.on("exit", (code) => lost(new Error(`the disk writer thread stopped (exit code ${code})`)));
    this.worker = worker;
    return worker;
  }
}

function withoutUndefined(o: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(o).filter((e): e is [string, string] => e[1] !== undefined));
}
