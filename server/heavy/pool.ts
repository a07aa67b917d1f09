/**
 * Heavy work off the request loop. Rendering, the HTML report, lint and version diffs
 * of a large doc take seconds of CPU; run on the loop they would stall every other
 * request (GET /meta included). A task whose input is at least `thresholdBytes` runs on
 * one of a few worker threads; a smaller one runs in process, where it takes less
 * than the trip to a worker would. Workers start on first use and stop when idle.
 *
 * docs/performance.md describes the thresholds and how to measure them.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { forTransfer, runTask, taskSize, type HeavyResult, type HeavyTask } from "./tasks.js";
import type { HeavyRequest, HeavyResponse } from "./worker.js";

export interface HeavyPoolOptions {
  /** Inputs of at least this many bytes run on a worker. Default 64 KiB. */
  thresholdBytes?: number;
  /** Worker threads at most. Default: the cores, at most 2 (the request loop needs one too). */
  size?: number;
  /** A worker idle this long stops. Default 30 s. */
  idleMs?: number;
}

interface Job {
  id: number;
  task: HeavyTask;
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  job?: Job;
  /** Findings of the running job's result received so far (sent ahead of it in parts). */
  parts?: unknown[][];
  idle?: NodeJS.Timeout;
}

export const DEFAULT_THRESHOLD_BYTES = 64 * 1024;

export class HeavyPool {
  readonly thresholdBytes: number;
  private readonly size: number;
  private readonly idleMs: number;
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  /** Tasks run on a worker so far (for tests and the benchmark). */
  offloaded = 0;

  constructor(opts: HeavyPoolOptions = {}) {
    this.thresholdBytes = opts.thresholdBytes ?? DEFAULT_THRESHOLD_BYTES;
    this.size = Math.max(1, opts.size ?? Math.min(2, availableParallelism()));
    this.idleMs = opts.idleMs ?? 30_000;
  }

  /** Run a task: in process when its input is small, else on a worker thread. */
  run<T extends HeavyTask>(task: T): Promise<HeavyResult<T>> {
    if (taskSize(task) < this.thresholdBytes) {
      try {
        return Promise.resolve(runTask(task));
      } catch (err) {
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
    }
    this.offloaded++;
    return new Promise<HeavyResult<T>>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, task, resolve: resolve as (v: unknown) => void, reject });
      this.dispatch();
    });
  }

  renderMarkdown(markdown: string): Promise<string> {
    return this.run({ kind: "render", markdown });
  }

  /** Stop every worker; tasks still queued or running fail. */
  async close(): Promise<void> {
    for (const job of this.queue.splice(0)) job.reject(new Error("the heavy-work pool closed"));
    const slots = this.slots.splice(0);
    await Promise.all(
      slots.map(async (s) => {
        clearTimeout(s.idle);
        s.job?.reject(new Error("the heavy-work pool closed"));
        await s.worker.terminate();
      }),
    );
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => !s.job);
      if (!slot) {
        if (this.slots.length >= this.size) return;
        slot = this.spawn();
      }
      const job = this.queue.shift()!;
      clearTimeout(slot.idle);
      slot.idle = undefined;
      slot.job = job;
      slot.worker.ref();
      slot.worker.postMessage({ id: job.id, task: forTransfer(job.task) } satisfies HeavyRequest);
    }
  }

  private spawn(): Slot {
    const worker = startWorker();
    const slot: Slot = { worker };
    this.slots.push(slot);
    worker.on("message", (msg: HeavyResponse) => {
      const job = slot.job;
      if (!job || job.id !== msg.id) return;
      if ("part" in msg) {
        (slot.parts ??= []).push(msg.part);
        slot.worker.postMessage({ id: msg.id, more: true } satisfies HeavyRequest);
        return;
      }
      const parts = slot.parts;
      slot.job = undefined;
      slot.parts = undefined;
      if (msg.ok) job.resolve(parts ? { ...(msg.value as object), findings: parts.flat() } : msg.value);
      else job.reject(new Error(msg.error));
      this.rest(slot);
      this.dispatch();
    });
    const lost = (err: Error) => {
      const i = this.slots.indexOf(slot);
      if (i < 0) return;
      this.slots.splice(i, 1);
      clearTimeout(slot.idle);
      slot.job?.reject(err);
      slot.job = undefined;
      slot.parts = undefined;
      this.dispatch();
    };
    worker.on("error", lost);
    worker.on("exit", (code) => lost(new Error(`a heavy-work thread stopped (exit code ${code})`)));
    return slot;
  }

  /** An idle worker does not keep the process alive, and stops after idleMs. */
  private rest(slot: Slot): void {
    slot.worker.unref();
    slot.idle = setTimeout(() => {
      const i = this.slots.indexOf(slot);
      if (i < 0 || slot.job) return;
      this.slots.splice(i, 1);
      void slot.worker.terminate();
    }, this.idleMs);
    slot.idle.unref();
  }
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
