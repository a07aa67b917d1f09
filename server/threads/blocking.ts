/**
 * Blocking threads and the verdict (contract 2.4, section 3): an open blocking thread makes
 * a doc Not Build Ready and is counted in `blocking_threads`. Runs count them when they
 * compute their verdict (`blockingThreadsOf`, fed to `countBlockingThreads`); a thread that
 * becomes blocking, or stops being so, or is resolved or reopened after the run, updates the
 * verdicts on the doc's current version at once (`restampVerdicts`), so no one waits for
 * the next run to see it.
 */
import { and, eq, isNotNull } from "drizzle-orm";
import {
  BLOCKING_THREAD_FACTOR,
  SCORE_FACTORS,
  countBlockingThreads,
  type Verdict,
} from "../../core/verdict/index.js";
import type { Db } from "../db/index.js";
import { bundles, runs, threads } from "../db/schema.js";
import type { RunService } from "../runs.js";

/** The doc's threads as `countBlockingThreads` reads them. */
export async function blockingThreadsOf(
  db: Db,
  docId: string,
): Promise<Array<{ blocking: boolean; status: string }>> {
  return db
    .select({ blocking: threads.blocking, status: threads.status })
    .from(threads)
    .where(and(eq(threads.docId, docId), eq(threads.blocking, true), eq(threads.status, "open")));
}

/**
 * The verdict with `blocking` open blocking threads instead of the ones it counted. The
 * score is the verdict formula (core/verdict/verdict.ts) from the open finding counts the
 * verdict carries, so it equals what `computeVerdict` gives with the new count.
 */
export function withBlocking(v: Verdict, blocking: number): Verdict {
  const factor =
    Math.pow(BLOCKING_THREAD_FACTOR, blocking) *
    Math.pow(SCORE_FACTORS.MUST, v.must) *
    Math.pow(SCORE_FACTORS.SHOULD, v.should) *
    Math.pow(SCORE_FACTORS.INFO, v.info);
  return {
    ...v,
    blocking_threads: blocking,
    score: Math.round(100 * factor),
    result:
      v.result === "stale" ? "stale" : v.must === 0 && blocking === 0 ? "build_ready" : "not_build_ready",
  };
}

/** Update the verdicts of the runs on the doc's current version to its open blocking threads now. */
export async function restampVerdicts(db: Db, runService: RunService, docId: string): Promise<void> {
  const count = countBlockingThreads(await blockingThreadsOf(db, docId));
  const rows = await db
    .select({ id: runs.id, verdict: runs.verdict, bundleId: runs.bundleId })
    .from(runs)
    .innerJoin(bundles, eq(bundles.id, runs.bundleId))
    .where(and(eq(runs.docId, docId), eq(runs.versionNumber, bundles.headNumber), isNotNull(runs.verdict)));
  let bundleId: string | undefined;
  for (const r of rows) {
    bundleId = r.bundleId;
    if (!r.verdict || r.verdict.blocking_threads === count) continue;
    await db
      .update(runs)
      .set({ verdict: withBlocking(r.verdict, count) })
      .where(eq(runs.id, r.id));
  }
  if (bundleId) runService.changed(bundleId, docId);
}
