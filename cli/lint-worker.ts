/** Worker thread: lints batches of docs sent by lint-pool.ts. */
import { parentPort } from "node:worker_threads";
import { lintTask } from "../node/lint.js";
import { loadProfileLayersCached } from "../node/profiles.js";
import type { WorkerRequest, WorkerResponse } from "./lint-pool.js";

parentPort?.on("message", (req: WorkerRequest) => {
  let response: WorkerResponse;
  try {
    const { profiles } = loadProfileLayersCached(req.layers);
    response = {
      ok: true,
      reports: req.tasks.map(({ index, task }) => ({ index, report: lintTask(task, profiles, req.runId) })),
    };
  } catch (err) {
    response = { ok: false, error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
  }
  parentPort?.postMessage(response);
});
