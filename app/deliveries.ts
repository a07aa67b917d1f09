/**
 * A webhook delivery is done only when its handler finished. Each delivery id (GitHub's
 * `X-GitHub-Delivery` guid, kept by a redelivery) is written down when its handler starts
 * and marked finished when it ends; the same id again is skipped only once it finished.
 * It runs again when
 *
 * - its last run failed (the error is kept: `failed_at`);
 * - its last run started on a process that is gone: on the embedded database (the only
 *   process) any run this process did not start, else one started longer ago than
 *   `staleMs` (a handler killed midway: kill -9, a deploy, a crash);
 * - the reconciliation asked GitHub to deliver it again (`redelivered_at` after the start).
 *
 * Taking a run over is one conditional UPDATE, so of two instances handed the same
 * delivery at once exactly one runs it.
 */
import { and, eq, gt, isNotNull, isNull, lt, ne, or, sql } from "drizzle-orm";
import type { Db } from "../server/db/index.js";
import { repohostDeliveries } from "../server/db/schema.js";

/** A run not finished after this long was killed (handlers answer within seconds; a review runs apart). */
export const HANDLER_STALE_MS = 10 * 60_000;

export interface DeliveryRecorder {
  /** This process, as the `worker` of the runs it starts. */
  worker: string;
  /** The only process on its database: a run another process started is gone. */
  exclusive: boolean;
  staleMs: number;
}

/** What a handler is told of its delivery. */
export interface DeliveryRun {
  /** The delivery was seen before (a run killed or failed, or the reconciliation asked for it again). */
  again: boolean;
  /** `repository`: a redelivered push that stands for every missed push of its repository. */
  scope: string | null;
}

export async function onceper(
  db: Db,
  delivery: { id: string; name: string; now: Date },
  run: (d: DeliveryRun) => Promise<void>,
  rec: DeliveryRecorder & { clock?: () => Date } = {
    worker: "app",
    exclusive: false,
    staleMs: HANDLER_STALE_MS,
  },
): Promise<"ran" | "duplicate"> {
  const clock = rec.clock ?? (() => new Date());
  let info: DeliveryRun = { again: false, scope: null };
  const now = delivery.now;
  const inserted = await db
    .insert(repohostDeliveries)
    .values({
      id: delivery.id,
      event: delivery.name,
      receivedAt: now,
      startedAt: now,
      worker: rec.worker,
      attempts: 1,
    })
    .onConflictDoNothing()
    .returning({ id: repohostDeliveries.id });
  if (inserted.length === 0) {
    const stale = new Date(now.getTime() - rec.staleMs);
    const d = repohostDeliveries;
    const taken = await db
      .update(d)
      .set({ startedAt: now, worker: rec.worker, failedAt: null, attempts: sql`${d.attempts} + 1` })
      .where(
        and(
          eq(d.id, delivery.id),
          isNull(d.finishedAt),
          or(
            isNotNull(d.failedAt),
            isNull(d.startedAt),
            lt(d.startedAt, stale),
            and(isNotNull(d.redeliveredAt), gt(d.redeliveredAt, d.startedAt)),
            rec.exclusive ? ne(d.worker, rec.worker) : undefined,
          ),
        ),
      )
      .returning({ id: d.id, scope: d.scope });
    if (taken.length === 0) return "duplicate";
    info = { again: true, scope: taken[0]!.scope };
  }
  try {
    await run(info);
  } catch (err) {
    await db
      .update(repohostDeliveries)
      .set({ failedAt: clock() })
      .where(and(eq(repohostDeliveries.id, delivery.id), eq(repohostDeliveries.worker, rec.worker)));
    throw err;
  }
  await db
    .update(repohostDeliveries)
    .set({ finishedAt: clock(), failedAt: null })
    .where(eq(repohostDeliveries.id, delivery.id));
  return "ran";
}
