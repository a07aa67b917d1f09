/**
 * Lint many docs on worker threads: a queue of small batches shared by `count - 1`
 * workers and the main thread, which lints too (it has every module loaded already, and a
 * worker costs a start-up). Workers get the profiles as loaded by the main thread, so
 * none parses a profile again. This module loads nothing of the lint engine: `spec-review
 * lint` starts its workers before it loads the engine itself (cli/lint-early.ts), so the
 * workers' start-up overlaps the main thread's.
 */
import { loadavg } from "node:os";
import { Worker } from "node:worker_threads";
import type { DocReport, LintTask } from "../node/lint.js";
import type { Profile } from "../core/profile/schema.js";

/** Below this many docs, threads cost more than they save. */
export const WORKER_THRESHOLD = 48;

/** The first message to each worker: what every batch is linted with. */
export interface WorkerInit {
  init: { profiles: readonly Profile[]; runId: string };
}

export interface WorkerBatch {
  tasks: { index: number; task: LintTask }[];
}

export type WorkerRequest = WorkerInit | WorkerBatch;

export type WorkerResponse =
  { ok: true; reports: { index: number; report: DocReport }[] } | { ok: false; error: string };

type LintOne = (task: LintTask, profiles: readonly Profile[], runId: string) => DocReport;

const BATCH = 8;

/** Worker threads started ahead of the work: they load their modules while the main thread still finds the docs. */
export interface LintPool {
  /** Lint the tasks on the workers and the main thread (with `lintOne`); reports in task order. Once per pool. */
  lint(
    tasks: readonly LintTask[],
    profiles: readonly Profile[],
    runId: string,
    lintOne: LintOne,
  ): Promise<DocReport[]>;
  /** Stop the workers (lint does when it is done). */
  close(): void;
}

/**
 * The threads to lint `docs` docs with, the main one included: from WORKER_THRESHOLD docs
 * on, one per idle core (at most 8), idle being the cores less the load average (1 minute;
 * as `make --load-average` does). A thread that finds no idle core only adds its start-up:
 * on a busy machine one thread finishes sooner than two. `asked` (--workers) decides alone.
 */
export function threadsFor(docs: number, cores: number, asked?: number, load = loadavg()[0] ?? 0): number {
  if (asked !== undefined) return asked;
  const idle = Math.min(cores, 8, Math.ceil(cores - load));
  return docs >= WORKER_THRESHOLD && idle > 1 ? idle : 0;
}

/**
 * Start `count - 1` workers now (the main thread is the last of `count`); `expected` is
 * an upper bound on the docs, so no worker is started that would find no batch to take.
 */
export function startLintPool(count: number, expected: number): LintPool {
  // From source (tsx) the worker is the .ts file next to this one; from dist, the .js.
  const fromSource = import.meta.url.endsWith(".ts");
  const url = new URL(`./lint-worker${fromSource ? ".ts" : ".js"}`, import.meta.url);
  // Running from source under tsx (dev only): workers do not inherit its loader, so a
  // small bootstrap registers tsx's ESM hooks first, then loads the worker module.
  const bootstrap = fromSource
    ? `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))}).then((m) => { m.register(); return import(${JSON.stringify(url.href)}); })`
    : undefined;
  const n = Math.max(0, Math.min(count - 1, Math.ceil(expected / BATCH) - 1));
  const workers: Worker[] = [];
  for (let i = 0; i < n; i++)
    workers.push(bootstrap ? new Worker(bootstrap, { eval: true }) : new Worker(url));
  // An error before lint() is called is kept for it (a worker that cannot start fails the run).
  let early: Error | undefined;
  for (const w of workers) w.on("error", (err) => (early ??= err));
  const close = () => {
    for (const w of workers) void w.terminate();
  };
  return {
    lint: (tasks, profiles, runId, lintOne) =>
      share(tasks, profiles, runId, lintOne, workers, () => early).finally(close),
    close,
  };
}

/** Lint many docs on `count - 1` workers and the main thread. */
export async function lintInWorkers(
  tasks: readonly LintTask[],
  profiles: readonly Profile[],
  runId: string,
  count: number,
): Promise<DocReport[]> {
  const pool = startLintPool(count, tasks.length);
  const { lintTask } = await import("../node/lint.js");
  return pool.lint(tasks, profiles, runId, lintTask);
}

function share(
  tasks: readonly LintTask[],
  profiles: readonly Profile[],
  runId: string,
  lintOne: LintOne,
  workers: readonly Worker[],
  early: () => Error | undefined,
): Promise<DocReport[]> {
  const results = new Array<DocReport>(tasks.length);
  let next = 0;
  let done = 0;
  const take = (): WorkerBatch["tasks"] => {
    const batch: WorkerBatch["tasks"] = [];
    for (; next < tasks.length && batch.length < BATCH; next++)
      batch.push({ index: next, task: tasks[next]! });
    return batch;
  };
  return new Promise((resolvePromise, reject) => {
    let settled = false;
    const finish = (err?: Error) => {
      if (settled) return;
      settled = true;
      if (err) reject(err);
      else resolvePromise(results);
    };
    const failed = early();
    if (failed) return finish(failed);
    if (tasks.length === 0) return finish();
    const record = (reports: { index: number; report: DocReport }[]) => {
      for (const r of reports) results[r.index] = r.report;
      done += reports.length;
      if (done === tasks.length) finish();
    };
    const feed = (w: Worker) => {
      const batch = take();
      if (batch.length > 0) w.postMessage({ tasks: batch } satisfies WorkerBatch);
    };
    for (const w of workers) {
      w.on("message", (msg: WorkerResponse) => {
        if (settled) return;
        if (!msg.ok) return finish(new Error(msg.error));
        record(msg.reports);
        feed(w);
      });
      w.on("error", (err) => finish(err));
      w.postMessage({ init: { profiles, runId } } satisfies WorkerInit);
      // Two batches in flight: the next one waits in the worker's queue, so it does not
      // sit idle while this thread, busy with its own batch, cannot answer its message.
      feed(w);
      feed(w);
    }
    // The main thread's share: one batch at a time, yielding between batches so workers are fed.
    const own = () => {
      if (settled) return;
      const batch = take();
      if (batch.length === 0) return;
      try {
        record(batch.map(({ index, task }) => ({ index, report: lintOne(task, profiles, runId) })));
      } catch (err) {
        return finish(err instanceof Error ? err : new Error(String(err)));
      }
      setImmediate(own);
    };
    setImmediate(own);
  });
}
