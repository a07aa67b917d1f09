/**
 * A scan of one source on a few worker threads, with limits on files, bytes and time
 * (docs/verification.md, "Limits"). The source hands out batches (paths to read, or
 * bytes it read itself); each free worker takes the next one. Nothing waits past the time
 * limit: when it passes, dispatch stops and workers still busy are stopped.
 */
import { availableParallelism } from "node:os";
import { createHash } from "node:crypto";
import { Worker } from "node:worker_threads";
import type { Hit } from "./match.js";
import type { BatchResult, WorkerRequest } from "./worker.js";

export interface ScanLimits {
  /** Files read at most. */
  maxFiles: number;
  /** A file over this many bytes is skipped unread (listed in `too_large`). */
  maxFileBytes: number;
  /** Bytes read at most, over all files. */
  maxBytes: number;
  /** Wall time of the scan at most, in ms. */
  timeMs: number;
}

export const DEFAULT_LIMITS: ScanLimits = {
  maxFiles: 200_000,
  maxFileBytes: 8 * 1024 * 1024,
  maxBytes: 2 * 1024 * 1024 * 1024,
  timeMs: 120_000,
};

export type Batch =
  | { type: "paths"; root: string; paths: string[] }
  | { type: "blobs"; items: Array<{ path: string; bytes: Uint8Array }> };

/** What a source tells the scan besides its batches. */
export interface SourceContext {
  limits: ScanLimits;
  /** The source stopped early because of this limit (`files`, `bytes`). */
  hit(limit: string): void;
  /** A file the source skipped unread: a symbolic link, a submodule, a file over the size limit. */
  skip(reason: "symlink" | "special" | "too_large", path: string, size?: number): void;
  /** True once the scan stops taking batches (time or bytes ran out). */
  stopped(): boolean;
}

export interface ScanSource {
  batches(ctx: SourceContext): AsyncIterable<Batch>;
}

export interface ScanResult {
  hits: Hit[];
  files: number;
  bytes: number;
  binary: number;
  symlinks: number;
  special: number;
  too_large: Array<{ path: string; size: number }>;
  unreadable: Array<{ path: string; error: string }>;
  /** `files`, `bytes`, `time`: the limits the scan hit. */
  limits_hit: string[];
  /** sha256 over the sorted paths and file hashes, when asked for. */
  digest?: string;
  duration_ms: number;
}

function startWorker(): Worker {
  // From source (tsx, vitest) the worker is the .ts file next to this one; from dist, the .js.
  const fromSource = import.meta.url.endsWith(".ts");
  const url = new URL(`./worker${fromSource ? ".ts" : ".js"}`, import.meta.url);
  if (!fromSource) return new Worker(url);
  // Workers do not inherit tsx's loader: a small bootstrap registers it, then loads the module.
  const bootstrap = `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))}).then((m) => { m.register(); return import(${JSON.stringify(url.href)}); })`;
  return new Worker(bootstrap, { eval: true });
}

export interface ScanOptions {
  ids: Iterable<string>;
  limits?: Partial<ScanLimits>;
  /** Hash every file read into `digest` (folder runs). */
  digest?: boolean;
  signal?: AbortSignal;
}

/**
 * Worker threads kept between scans (starting one costs more than scanning a small repo),
 * stopped after `idleMs` without a scan. Scans run one at a time: a worker holds the IDs
 * of the scan in progress.
 */
export class ScanPool {
  private workers: Worker[] = [];
  private idle: NodeJS.Timeout | undefined;
  private chain: Promise<unknown> = Promise.resolve();
  private readonly size: number;
  private closed = false;

  constructor(opts: { threads?: number; idleMs?: number } = {}) {
    this.size = Math.max(1, opts.threads ?? Math.min(4, availableParallelism()));
    this.idleMs = opts.idleMs ?? 30_000;
  }

  private readonly idleMs: number;

  scan(source: ScanSource, opts: ScanOptions): Promise<ScanResult> {
    const run = this.chain.then(() => this.run(source, opts));
    this.chain = run.catch(() => undefined);
    return run;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.chain;
    await this.stopWorkers();
  }

  private async stopWorkers(): Promise<void> {
    clearTimeout(this.idle);
    const ws = this.workers.splice(0);
    await Promise.all(ws.map((w) => w.terminate()));
  }

  private take(): Worker[] {
    if (this.closed) throw new Error("the scan pool is closed");
    clearTimeout(this.idle);
    while (this.workers.length < this.size) this.workers.push(startWorker());
    for (const w of this.workers) w.ref();
    return this.workers;
  }

  private putBack(): void {
    for (const w of this.workers) w.unref();
    this.idle = setTimeout(() => void this.stopWorkers(), this.idleMs);
    this.idle.unref();
  }

  private async run(source: ScanSource, opts: ScanOptions): Promise<ScanResult> {
    const limits = { ...DEFAULT_LIMITS, ...opts.limits };
    const started = Date.now();
    const deadline = started + limits.timeMs;
    const result: ScanResult = {
      hits: [],
      files: 0,
      bytes: 0,
      binary: 0,
      symlinks: 0,
      special: 0,
      too_large: [],
      unreadable: [],
      limits_hit: [],
      duration_ms: 0,
    };
    const digests: Array<[string, string]> = [];
    const limitHit = (l: string) => {
      if (!result.limits_hit.includes(l)) result.limits_hit.push(l);
    };
    let stopped = false;
    const stop = (l?: string) => {
      if (l) limitHit(l);
      stopped = true;
    };

    const workers = this.take();
    const init: WorkerRequest = {
      type: "init",
      ids: [...opts.ids],
      maxFileBytes: limits.maxFileBytes,
      digest: opts.digest ?? false,
    };
    for (const w of workers) w.postMessage(init);

    const free: Worker[] = [...workers];
    const waiting: Array<(w: Worker | undefined) => void> = [];
    let inFlight = 0;
    let failure: Error | undefined;
    let drained: (() => void) | undefined;
    let timedOut = false;
    const release = (w: Worker) => {
      const next = waiting.shift();
      if (next) next(w);
      else free.push(w);
      if (inFlight === 0) drained?.();
    };
    const listeners = workers.map((w) => {
      const onMessage = (out: BatchResult) => {
        inFlight--;
        result.files += out.files;
        result.bytes += out.bytes;
        result.binary += out.binary;
        for (const h of out.hits) result.hits.push(h);
        for (const t of out.tooLarge) result.too_large.push(t);
        for (const u of out.unreadable) result.unreadable.push(u);
        for (const d of out.digests) digests.push(d);
        if (result.bytes > limits.maxBytes) stop("bytes");
        release(w);
      };
      const onError = (err: Error) => {
        failure ??= err;
        stop();
        inFlight = 0;
        drained?.();
        for (const r of waiting.splice(0)) r(undefined);
      };
      w.on("message", onMessage);
      w.on("error", onError);
      return () => {
        w.off("message", onMessage);
        w.off("error", onError);
      };
    });
    const timer = setTimeout(
      () => {
        timedOut = true;
        stop("time");
        // Workers still busy past the time limit are stopped (and started afresh next time).
        drained?.();
        for (const r of waiting.splice(0)) r(undefined);
      },
      Math.max(0, deadline - Date.now()),
    );
    const onAbort = () => stop("time");
    opts.signal?.addEventListener("abort", onAbort);

    const ctx: SourceContext = {
      limits,
      hit: limitHit,
      skip(reason, path, sz) {
        if (reason === "symlink") result.symlinks++;
        else if (reason === "special") result.special++;
        else result.too_large.push({ path, size: sz ?? 0 });
        if (reason === "too_large" && opts.digest) digests.push([path, `size:${sz ?? 0}`]);
      },
      stopped: () => stopped,
    };

    let batchNo = 0;
    try {
      for await (const batch of source.batches(ctx)) {
        if (stopped) break;
        const w = free.pop() ?? (await new Promise<Worker | undefined>((r) => waiting.push(r)));
        if (stopped || !w) break;
        inFlight++;
        const n = ++batchNo;
        if (batch.type === "paths")
          w.postMessage({ type: "paths", batch: n, root: batch.root, paths: batch.paths });
        // Copied, not transferred: small Buffers share Node's pool, which must not be detached.
        else w.postMessage({ type: "blobs", batch: n, items: batch.items });
      }
      if (inFlight > 0 && !timedOut && !failure)
        await new Promise<void>((r) => {
          drained = r;
          if (inFlight === 0) r();
        });
    } finally {
      clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onAbort);
      for (const off of listeners) off();
      if (timedOut || failure || inFlight > 0) await this.stopWorkers();
      else this.putBack();
    }
    if (failure) throw failure;
    if (opts.digest) {
      digests.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      const h = createHash("sha256");
      for (const [p, d] of digests) h.update(`${d}  ${p}\n`);
      result.digest = `sha256:${h.digest("hex")}`;
    }
    result.hits.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line));
    result.duration_ms = Date.now() - started;
    return result;
  }
}

/** One scan on a pool of its own (closed after). */
export async function scanSource(
  source: ScanSource,
  opts: ScanOptions & { threads?: number },
): Promise<ScanResult> {
  const pool = new ScanPool({ threads: opts.threads });
  try {
    return await pool.scan(source, opts);
  } finally {
    await pool.close();
  }
}
