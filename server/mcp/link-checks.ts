/**
 * The states of external links (contract 2.8 `state`, `state_reason`, `checked_at`): each full
 * run records what it found for every external target of its doc; the trace view shows, per
 * target, what the latest run that read it found.
 */
import { desc, eq } from "drizzle-orm";
import type { LinkCheck, LinkState } from "../../core/review/stages/external.js";
import type { Db } from "../db/index.js";
import { linkChecks } from "../db/schema.js";
import { redact } from "../redact.js";

export interface LinkCheckState {
  state: LinkState;
  state_reason: string;
  checked_at: string;
  /** For a code target: the commit that was read, when known. */
  commit?: string;
}

/** Record a run's checks (a run that is run again replaces its own). */
export async function saveLinkChecks(
  db: Db,
  run: { id: string; bundleId: string },
  checks: readonly LinkCheck[],
  checkedAt: Date,
): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.delete(linkChecks).where(eq(linkChecks.runId, run.id));
    if (checks.length === 0) return;
    await tx.insert(linkChecks).values(
      checks.map((c) => ({
        runId: run.id,
        bundleId: run.bundleId,
        targetUrl: c.url,
        state: c.state,
        stateReason: redact(c.state_reason),
        commit: c.commit ?? null,
        checkedAt,
      })),
    );
  });
}

/** Per target URL of the bundle, the state the latest run that read it found. */
export async function linkCheckStates(db: Db, bundleId: string): Promise<Map<string, LinkCheckState>> {
  const rows = await db
    .select()
    .from(linkChecks)
    .where(eq(linkChecks.bundleId, bundleId))
    .orderBy(desc(linkChecks.checkedAt));
  const out = new Map<string, LinkCheckState>();
  for (const r of rows) {
    if (out.has(r.targetUrl)) continue;
    out.set(r.targetUrl, {
      state: r.state as LinkState,
      state_reason: r.stateReason,
      checked_at: r.checkedAt.toISOString(),
      ...(r.commit ? { commit: r.commit } : {}),
    });
  }
  return out;
}
