/**
 * GET /runs/{runId}/events: a run's persisted events as server-sent events. Each event's
 * id is its sequence number in the run, so a client that reconnects with `Last-Event-ID`
 * gets only what it missed. A comment line is sent as a heartbeat while nothing happens;
 * the stream closes after `done` or `failed` (or when the instance shuts down: the client
 * resumes elsewhere with `Last-Event-ID`). A lint run (no stages to follow) answers one
 * `done` with its verdict.
 */
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import type { Env } from "../../http.js";
import { deps } from "../../http.js";
import { eventsAfter } from "../../jobs/events.js";

const TERMINAL = new Set(["done", "failed"]);
/** How long a stream waits for a finished run's terminal event before answering from the run row. */
const TERMINAL_EVENT_GRACE_MS = 2000;

export async function followEvents(c: Context<Env>, runId: string): Promise<Response> {
  const { db, runs, bus } = deps(c);
  const run = await runs.get(runId);
  const header = c.req.header("Last-Event-ID") ?? c.req.query("last_event_id");
  const from = Number.parseInt(header ?? "0", 10);
  let after = Number.isFinite(from) && from > 0 ? from : 0;
  return streamSSE(c, async (stream) => {
    let wake: (() => void) | undefined;
    // A notice that comes while the database is being read must not be lost until the next poll.
    let noticed: boolean;
    const off = bus.onRun(runId, () => {
      noticed = true;
      wake?.();
    });
    stream.onAbort(() => wake?.());
    try {
      if (run.kind === "lint") {
        await stream.writeSSE({
          event: "done",
          data: JSON.stringify({
            verdict: run.verdict ?? null,
            status: run.status,
            ...(run.error ? { error: run.error } : {}),
          }),
        });
        return;
      }
      let lastBeat = Date.now();
      let endedSeenAt: number | undefined;
      while (!stream.aborted) {
        // Shutting down: end the stream; the client resumes on another instance with Last-Event-ID.
        if (deps(c).lifecycle?.draining) return;
        noticed = false;
        const events = await eventsAfter(db, runId, after);
        for (const ev of events) {
          await stream.writeSSE({ id: String(ev.seq), event: ev.name, data: JSON.stringify(ev.data) });
          after = ev.seq;
          if (TERMINAL.has(ev.name)) return;
        }
        if (events.length > 0) continue;
        // No terminal event yet: the run may have ended without one (a crash); its row says.
        const now = await runs.get(runId);
        if (now.status === "done" || now.status === "failed") {
          const more = await eventsAfter(db, runId, after);
          if (more.length > 0) continue;
          // The row turns terminal a moment before the run's last events are written: wait
          // for them a little before answering from the row (a run that crashed has none).
          endedSeenAt ??= Date.now();
          if (Date.now() - endedSeenAt < TERMINAL_EVENT_GRACE_MS) {
            await new Promise((r) => setTimeout(r, Math.min(bus.sse.pollMs, 50)));
            continue;
          }
          await stream.writeSSE({
            event: now.status,
            data: JSON.stringify(now.status === "done" ? { verdict: now.verdict } : { error: now.error }),
          });
          return;
        }
        if (Date.now() - lastBeat >= bus.sse.heartbeatMs) {
          await stream.write(": heartbeat\n\n");
          lastBeat = Date.now();
        }
        if (noticed) continue;
        await new Promise<void>((resolve) => {
          const t = setTimeout(done, Math.min(bus.sse.pollMs, bus.sse.heartbeatMs));
          function done() {
            clearTimeout(t);
            resolve();
          }
          wake = done;
        });
        wake = undefined;
      }
    } finally {
      off();
    }
  });
}
