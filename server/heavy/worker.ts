/** Worker thread of the heavy pool (pool.ts): runs one task at a time and answers its result. */
import { parentPort } from "node:worker_threads";
import { runTask, type HeavyTask } from "./tasks.js";

export interface HeavyRequest {
  id: number;
  task: HeavyTask;
}

export type HeavyResponse =
  { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };

parentPort?.on("message", (req: HeavyRequest) => {
  let response: HeavyResponse;
  try {
    response = { id: req.id, ok: true, value: runTask(req.task) };
  } catch (err) {
    response = { id: req.id, ok: false, error: err instanceof Error ? err.message : String(err) };
  }
  // Bytes (a report) are moved to the request loop's thread, not copied.
  const value = response.ok ? response.value : undefined;
  parentPort?.postMessage(response, value instanceof Uint8Array ? [value.buffer as ArrayBuffer] : []);
});
