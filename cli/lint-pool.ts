/** Lint many docs on worker threads: a queue of small batches, one worker per core. */
import { Worker } from "node:worker_threads";
import type { DocReport, LintTask } from "../node/lint.js";
import type { ProfileLayer } from "../node/profiles.js";

export interface WorkerRequest {
  layers: ProfileLayer[];
  runId: string;
  tasks: { index: number; task: LintTask }[];
}

export type WorkerResponse =
  { ok: true; reports: { index: number; report: DocReport }[] } | { ok: false; error: string };

const BATCH = 16;

export function lintInWorkers(
  tasks: readonly LintTask[],
  layers: ProfileLayer[],
  runId: string,
  count: number,
): Promise<DocReport[]> {
  // From source (tsx) the worker is the .ts file next to this one; from dist, the .js.
  const fromSource = import.meta.url.endsWith(".ts");
  const url = new URL(`./lint-worker${fromSource ? ".ts" : ".js"}`, import.meta.url);
  // Running from source under tsx (dev only): workers do not inherit its loader, so a
  // small bootstrap registers tsx's ESM hooks first, then loads the worker module.
  const bootstrap = fromSource
    ? `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))}).then((m) => { m.register(); return import(${JSON.stringify(url.href)}); })`
    : undefined;
  const results = new Array<DocReport>(tasks.length);
  let next = 0;
  let done = 0;
  return new Promise((resolvePromise, reject) => {
    const workers: Worker[] = [];
    let failed = false;
    const finish = (err?: Error) => {
      for (const w of workers) void w.terminate();
      if (err) {
        failed = true;
        reject(err);
      } else resolvePromise(results);
    };
    const feed = (w: Worker) => {
      if (next >= tasks.length) return false;
      const batch: WorkerRequest["tasks"] = [];
      for (; next < tasks.length && batch.length < BATCH; next++)
        batch.push({ index: next, task: tasks[next]! });
      w.postMessage({ layers, runId, tasks: batch } satisfies WorkerRequest);
      return true;
    };
    const n = Math.max(1, Math.min(count, Math.ceil(tasks.length / BATCH)));
    for (let i = 0; i < n; i++) {
      const w = bootstrap ? new Worker(bootstrap, { eval: true }) : new Worker(url);
      workers.push(w);
      w.on("message", (msg: WorkerResponse) => {
        if (failed) return;
        if (!msg.ok) return finish(new Error(msg.error));
        for (const r of msg.reports) results[r.index] = r.report;
        done += msg.reports.length;
        if (done === tasks.length) return finish();
        feed(w);
      });
      w.on("error", (err) => {
        if (!failed) finish(err);
      });
      feed(w);
    }
  });
}
