/**
 * The run queue is the runs table: a full run is `queued` until a worker claims it with
 * `SELECT … FOR UPDATE SKIP LOCKED` (two workers never take the same run), `running`
 * while the worker holds it and says so (heartbeat), then `done` or `failed`. A run left
 * `running` by a process that died is found by its old heartbeat and requeued, or failed
 * once it was tried `maxAttempts` times. Works the same on PGlite and on Postgres.
 */
import { and, asc, eq, inArray, isNull, lt, or, sql } from "drizzle-orm";
import type { Db } from "../db/index.js";
import { reviewRuns, runs } from "../db/schema.js";
import type { RunRow } from "../runs.js";

/** Claim the oldest queued full run, or nothing. */
export async function claimNext(db: Db, worker: string, now: Date): Promise<RunRow | undefined> {
  return db.transaction(async (tx) => {
    const [next] = await tx
      .select({ id: runs.id })
      .from(runs)
      .where(and(eq(runs.status, "queued"), eq(runs.kind, "full")))
      .orderBy(asc(runs.createdAt), asc(runs.id))
      .limit(1)
      .for("update", { skipLocked: true });
    if (!next) return undefined;
    const [row] = await tx
      .update(runs)
      .set({ status: "running", stage: "lint", startedAt: now })
      .where(eq(runs.id, next.id))
      .returning();
    await tx
      .update(reviewRuns)
      .set({ worker, heartbeatAt: now, attempts: sql`${reviewRuns.attempts} + 1` })
      .where(eq(reviewRuns.runId, next.id));
    return row;
  });
}

/**
 * The worker still holds these runs; returns those it no longer holds (another worker
 * took them over after its lease lapsed). Only the holder's heartbeat counts.
 */
export async function heartbeat(db: Db, runIds: string[], now: Date, worker?: string): Promise<string[]> {
  if (runIds.length === 0) return [];
  const held = await db
    .update(reviewRuns)
    .set({ heartbeatAt: now })
    .where(and(inArray(reviewRuns.runId, runIds), worker ? eq(reviewRuns.worker, worker) : undefined))
    .returning({ id: reviewRuns.runId });
  const still = new Set(held.map((r) => r.id));
  return runIds.filter((id) => !still.has(id));
}

export interface Recovered {
  requeued: string[];
  failed: string[];
}

/**
 * Runs `running` whose worker is gone: every one (`all`, at the start of the only
 * process), or those whose heartbeat is older than `leaseMs`.
 */
export async function recoverRuns(
  db: Db,
  now: Date,
  opts: { all: boolean; leaseMs: number; maxAttempts: number },
): Promise<Recovered> {
  const stale = new Date(now.getTime() - opts.leaseMs);
  const rows = await db
    .select({ id: runs.id, attempts: reviewRuns.attempts })
    .from(runs)
    .leftJoin(reviewRuns, eq(reviewRuns.runId, runs.id))
    .where(
      and(
        eq(runs.status, "running"),
        eq(runs.kind, "full"),
        opts.all ? undefined : or(isNull(reviewRuns.heartbeatAt), lt(reviewRuns.heartbeatAt, stale)),
      ),
    );
  const out: Recovered = { requeued: [], failed: [] };
  for (const r of rows) {
    const attempts = r.attempts ?? opts.maxAttempts;
    if (attempts >= opts.maxAttempts) {
      const [done] = await db
        .update(runs)
        .set({
          status: "failed",
          stage: null,
          error: `interrupted: the server stopped while the run was running (${attempts} attempt${attempts === 1 ? "" : "s"})`,
          finishedAt: now,
        })
        .where(and(eq(runs.id, r.id), eq(runs.status, "running")))
        .returning({ id: runs.id });
      if (done) out.failed.push(r.id);
    } else {
      const [done] = await db
        .update(runs)
        .set({ status: "queued", stage: null })
        .where(and(eq(runs.id, r.id), eq(runs.status, "running")))
        .returning({ id: runs.id });
      if (done) out.requeued.push(r.id);
    }
  }
  return out;
}
