/**
 * One server-sent event stream for every kind of run that persists its events (review
 * runs in run_events, verification runs in verification_events). Each event's id is its
 * sequence number in the run, so a client that reconnects with `Last-Event-ID` (or
 * `?last_event_id=`) gets only what it missed. A comment line is sent as a heartbeat while
 * nothing happens; the stream closes after `done` or `failed`.
 */
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import type { Db } from "../db/index.js";
import type { RunBus } from "./bus.js";
import { eventsAfter, type EventTable } from "./events.js";

const TERMINAL = new Set(["done", "failed"]);
/** How long a stream waits for a finished run's terminal event before answering from the run row. */
const TERMINAL_EVENT_GRACE_MS = 2000;

export interface FollowOptions {
  db: Db;
  bus: RunBus;
  runId: string;
  table?: EventTable;
  /** The run's status now, and the terminal event's data when it ended without writing one. */
  state(): Promise<{ status: string; data: unknown }>;
}

/** The event id a client resumes after (`Last-Event-ID` header or `last_event_id` query). */
export function resumeAfter(c: Context): number {
  const header = c.req.header("Last-Event-ID") ?? c.req.query("last_event_id");
  const from = Number.parseInt(header ?? "0", 10);
  return Number.isFinite(from) && from > 0 ? from : 0;
}

export function followPersisted(c: Context, opts: FollowOptions): Response {
  const { db, bus, runId, table } = opts;
  let after = resumeAfter(c);
  return streamSSE(c, async (stream) => {
    let wake: (() => void) | undefined;
    const off = bus.onRun(runId, () => wake?.());
    stream.onAbort(() => wake?.());
    try {
      let lastBeat = Date.now();
      let endedSeenAt: number | undefined;
      while (!stream.aborted) {
        const events = await eventsAfter(db, runId, after, 500, table);
        for (const ev of events) {
          await stream.writeSSE({ id: String(ev.seq), event: ev.name, data: JSON.stringify(ev.data) });
          after = ev.seq;
          if (TERMINAL.has(ev.name)) return;
        }
        if (events.length > 0) continue;
        // No terminal event yet: the run may have ended without one (a crash); its row says.
        const now = await opts.state();
        if (now.status === "done" || now.status === "failed") {
          const more = await eventsAfter(db, runId, after, 500, table);
          if (more.length > 0) continue;
          // The row turns terminal a moment before the run's last events are written: wait
          // for them a little before answering from the row (a run that crashed has none).
          endedSeenAt ??= Date.now();
          if (Date.now() - endedSeenAt < TERMINAL_EVENT_GRACE_MS) {
            await new Promise((r) => setTimeout(r, Math.min(bus.sse.pollMs, 50)));
            continue;
          }
          await stream.writeSSE({ event: now.status, data: JSON.stringify(now.data) });
          return;
        }
        if (Date.now() - lastBeat >= bus.sse.heartbeatMs) {
          await stream.write(": heartbeat\n\n");
          lastBeat = Date.now();
        }
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
