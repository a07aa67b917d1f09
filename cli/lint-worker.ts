/** Worker thread: lints batches of docs sent by lint-pool.ts, with the profiles of its first message. */
import { parentPort } from "node:worker_threads";
import { lintTask } from "../node/lint.js";
import type { Profile } from "../core/profile/schema.js";
import type { WorkerRequest, WorkerResponse } from "./lint-pool.js";

let profiles: readonly Profile[] = [];
let runId = "";

parentPort?.on("message", (req: WorkerRequest) => {
  if ("init" in req) {
    ({ profiles, runId } = req.init);
    return;
  }
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
