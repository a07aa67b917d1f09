/** Worker thread: lints batches of docs sent by lint-pool.ts, with the profiles it was started with. */
import { parentPort, workerData } from "node:worker_threads";
import { lintTask } from "../node/lint.js";
import type { WorkerData, WorkerRequest, WorkerResponse } from "./lint-pool.js";

const { profiles, runId } = workerData as WorkerData;

parentPort?.on("message", (req: WorkerRequest) => {
  let response: WorkerResponse;
  try {
    response = {
      ok: true,
      reports: req.tasks.map(({ index, task }) => ({ index, report: lintTask(task, profiles, runId) })),
    };
  } catch (err) {
    response = { ok: false, error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
  }
  parentPort?.postMessage(response);
});
