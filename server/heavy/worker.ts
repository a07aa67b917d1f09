/** Worker thread of the heavy pool (pool.ts): runs one task at a time and answers its result. */
import { parentPort } from "node:worker_threads";
import { FINDINGS_PART, runTask, type HeavyTask } from "./tasks.js";

export type HeavyRequest =
  | { id: number; task: HeavyTask }
  /** The pool has read the last part of task `id`'s findings: send the next. */
  | { id: number; more: true };

export type HeavyResponse =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: string }
  /** Findings of the result that follows, sent ahead of it in parts (see FINDINGS_PART). */
  | { id: number; part: unknown[] };

/** The findings of a result (a lint's), when it has more than one part of them. */
function manyFindings(value: unknown): unknown[] | undefined {
  if (typeof value !== "object" || value === null || !("findings" in value)) return undefined;
  const list = value.findings;
  return Array.isArray(list) && list.length > FINDINGS_PART ? list : undefined;
}

/** A result whose findings are being sent a part at a time, each when the pool asks. */
let sending: { id: number; findings: unknown[]; at: number; rest: HeavyResponse } | undefined;

/** The next part of the result being sent, or the result itself once every part is out. */
function sendNext(): void {
  const s = sending!;
  if (s.at < s.findings.length) {
    const part = s.findings.slice(s.at, (s.at += FINDINGS_PART));
    parentPort?.postMessage({ id: s.id, part } satisfies HeavyResponse);
    return;
  }
  sending = undefined;
  parentPort?.postMessage(s.rest);
}

parentPort?.on("message", (req: HeavyRequest) => {
  if ("more" in req) {
    if (sending?.id === req.id) sendNext();
    return;
  }
  let response: HeavyResponse;
  try {
    response = { id: req.id, ok: true, value: runTask(req.task) };
  } catch (err) {
    response = { id: req.id, ok: false, error: err instanceof Error ? err.message : String(err) };
  }
  // Many findings go a part at a time, the next only once the pool asks for it: parts
  // sent at once arrive together, and the request loop would read them in one go.
  const many = response.ok ? manyFindings(response.value) : undefined;
  if (response.ok && many) {
    const rest = { ...response, value: { ...(response.value as object), findings: [] } };
    sending = { id: req.id, findings: many, at: 0, rest };
    sendNext();
    return;
  }
  // Bytes (a report) are moved to the request loop's thread, not copied.
  const value = response.ok ? response.value : undefined;
  parentPort?.postMessage(response, value instanceof Uint8Array ? [value.buffer as ArrayBuffer] : []);
});
