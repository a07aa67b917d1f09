/** Worker thread: lints batches of docs sent by lint-pool.ts. */
import { parentPort } from "node:worker_threads";
import { lintTask, loadProfilesFromDir } from "./lint-fs.js";
import type { WorkerRequest, WorkerResponse } from "./lint-pool.js";

parentPort?.on("message", (req: WorkerRequest) => {
  let response: WorkerResponse;
  try {
    const { profiles } = loadProfilesFromDir(req.profilesDir);
    response = {
      ok: true,
      reports: req.tasks.map(({ index, task }) => ({ index, report: lintTask(task, profiles, req.runId) })),
    };
  } catch (err) {
    response = { ok: false, error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
  }
  parentPort?.postMessage(response);
});
