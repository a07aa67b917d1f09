/**
 * `GET /insights` (maintainers and admins): per profile, the docs by review status and by
 * verdict state, the median time from a bundle's creation to its first Build Ready
 * verdict, the checks that find the most in the current reviews, and approved waivers per
 * check. Counts come from the database in a few grouped queries, not per doc.
 */
import { and, asc, count, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Db } from "../db/index.js";
import { bundles, docs, findings, runs, waivers } from "../db/schema.js";
import { docVerdict, type RunService } from "../runs.js";

const TOP = 5;

export function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export async function insights(db: Db, runService: RunService, profileKeys: readonly string[]) {
  const rows = await db
    .select({
      docId: docs.id,
      profileKey: docs.profileKey,
      status: docs.status,
      headNumber: bundles.headNumber,
      createdAt: bundles.createdAt,
    })
    .from(docs)
    .innerJoin(bundles, eq(bundles.id, docs.bundleId))
    .where(and(isNull(bundles.goneAt), isNull(bundles.archivedAt)));
  const ids = rows.map((r) => r.docId);
  const latest = await runService.latestRuns(ids);
  const runIds = [...latest.values()].map((r) => r.id);
  const [checkCounts, firstReady, waived] = await Promise.all([
    runIds.length
      ? db
          .select({ runId: findings.runId, check: findings.checkSlug, n: count() })
          .from(findings)
          .where(inArray(findings.runId, runIds))
          .groupBy(findings.runId, findings.checkSlug)
      : Promise.resolve([]),
    ids.length
      ? db
          .selectDistinctOn([runs.docId], { docId: runs.docId, at: runs.finishedAt })
          .from(runs)
          .where(
            and(
              inArray(runs.docId, ids),
              eq(runs.status, "done"),
              sql`${runs.verdict}->>'result' = 'build_ready'`,
            ),
          )
          .orderBy(runs.docId, asc(runs.finishedAt))
      : Promise.resolve([]),
    db
      .select({ profileKey: waivers.profileKey, check: waivers.checkSlug, kind: waivers.kind, n: count() })
      .from(waivers)
      .where(eq(waivers.status, "approved"))
      .groupBy(waivers.profileKey, waivers.checkSlug, waivers.kind),
  ]);
  const readyAt = new Map(firstReady.map((r) => [r.docId, r.at]));
  const runProfile = new Map([...latest.values()].map((r) => [r.id, r.profileKey]));
  const keys = [...new Set([...profileKeys, ...rows.map((r) => r.profileKey)])].sort();
  return keys.map((key) => {
    const mine = rows.filter((r) => r.profileKey === key);
    const byStatus = { draft: 0, in_review: 0, approved: 0, superseded: 0 };
    const byState = { build_ready: 0, not_build_ready: 0, not_reviewed: 0 };
    const scores: number[] = [];
    const toReady: number[] = [];
    for (const r of mine) {
      byStatus[r.status]++;
      const v = docVerdict(latest.get(r.docId), r.headNumber);
      if (v && v.result !== "stale") {
        byState[v.result]++;
        scores.push(v.score);
      } else byState.not_reviewed++;
      const at = readyAt.get(r.docId);
      if (at) toReady.push(Math.max(0, at.getTime() - r.createdAt.getTime()) / 1000);
    }
    const perCheck = new Map<string, { findings: number; docs: number }>();
    for (const c of checkCounts) {
      if (runProfile.get(c.runId) !== key) continue;
      const e = perCheck.get(c.check) ?? { findings: 0, docs: 0 };
      e.findings += c.n;
      e.docs += 1;
      perCheck.set(c.check, e);
    }
    const top = [...perCheck]
      .sort((a, b) => b[1].findings - a[1].findings || b[1].docs - a[1].docs || a[0].localeCompare(b[0]))
      .slice(0, TOP)
      .map(([check_slug, e]) => ({ check_slug, findings: e.findings, docs: e.docs }));
    const w = waived.filter((x) => x.profileKey === key);
    const medianScore = median(scores);
    const medianReady = median(toReady);
    return {
      profile_key: key,
      bundles: mine.length,
      build_ready: byState.build_ready,
      by_status: byStatus,
      by_state: byState,
      ...(medianScore !== undefined ? { median_score: medianScore } : {}),
      ...(medianReady !== undefined ? { median_seconds_to_build_ready: Math.round(medianReady) } : {}),
      top_checks: top,
      waivers_per_check: w
        .filter((x) => x.kind === "finding" && x.check)
        .sort((a, b) => b.n - a.n || a.check!.localeCompare(b.check!))
        .map((x) => ({ check_slug: x.check!, waivers: x.n })),
      acknowledgements: w.filter((x) => x.kind !== "finding").reduce((n, x) => n + x.n, 0),
    };
  });
}
