/**
 * GET /runs/{runId}/events: a run's persisted events as server-sent events
 * (server/jobs/follow.ts: ids, resume with `Last-Event-ID`, heartbeats, closing after
 * `done` or `failed`). A lint run (no stages to follow) answers one `done` with its verdict.
 */
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import type { Env } from "../../http.js";
import { deps } from "../../http.js";
import { followPersisted } from "../../jobs/follow.js";

export async function followEvents(c: Context<Env>, runId: string): Promise<Response> {
  const { db, runs, bus } = deps(c);
  const run = await runs.get(runId);
  if (run.kind === "lint")
    return streamSSE(c, async (stream) => {
      await stream.writeSSE({
        event: "done",
        data: JSON.stringify({
          verdict: run.verdict ?? null,
          status: run.status,
          ...(run.error ? { error: run.error } : {}),
        }),
      });
    });
  return followPersisted(c, {
    db,
    bus,
    runId,
    async state() {
      const now = await runs.get(runId);
      return {
        status: now.status,
        data: now.status === "done" ? { verdict: now.verdict } : { error: now.error },
      };
    },
  });
}
