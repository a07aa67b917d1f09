/**
 * Prometheus metrics of reading repositories (issue 30), on the graph's registry
 * (server/metrics.ts):
 *
 * - `spec_review_repohost_sync_lag_seconds{source,repo}`: seconds since each live source
 *   was last read in full step with its branch (read from the database at scrape time, so
 *   every instance reports the same);
 * - `spec_review_repohost_sources{state}`: sources by `sync_state` (same);
 * - `spec_review_github_rate_limit_remaining{who,resource}` and `..._limit`: the budget the
 *   last answer reported, per installation (or `token`);
 * - `spec_review_github_rate_limit_waits_total{kind}` and `..._wait_seconds_total{kind}`:
 *   rate limits met (primary, secondary) and the time they asked to wait.
 */
import { sql } from "drizzle-orm";
import { Counter, Gauge, type Registry } from "prom-client";
import { rowsOf, type Db } from "../db/index.js";
import { repohostSources } from "../db/schema.js";
import type { Clock } from "../deps.js";
import type { RateLimitObserver } from "./rate-limit.js";

export function repohostMetrics(registry: Registry, db: Db, clock: Clock): RateLimitObserver {
  new Gauge({
    name: "spec_review_repohost_sync_lag_seconds",
    help: "Seconds since each live repohost source was last read (read from the database at scrape time)",
    labelNames: ["source", "repo"] as const,
    registers: [registry],
    async collect() {
      const rows = rowsOf<{
        id: string;
        owner: string;
        repo: string;
        branch: string;
        at: string | null;
        created: string;
      }>(
        await db.execute(
          sql`select ${repohostSources.id} as id, ${repohostSources.owner} as owner, ${repohostSources.repo} as repo,
                ${repohostSources.branch} as branch, ${repohostSources.lastSyncedAt} as at, ${repohostSources.createdAt} as created
              from ${repohostSources} where ${repohostSources.deletedAt} is null`,
        ),
      );
      this.reset();
      const now = clock.now().getTime();
      for (const r of rows) {
        const at = new Date(r.at ?? r.created).getTime();
        this.set({ source: r.id, repo: `${r.owner}/${r.repo}@${r.branch}` }, Math.max(0, (now - at) / 1000));
      }
    },
  });
  new Gauge({
    name: "spec_review_repohost_sources",
    help: "Live repohost sources by sync_state (idle, syncing, waiting_rate_limit, error)",
    labelNames: ["state"] as const,
    registers: [registry],
    async collect() {
      const rows = rowsOf<{ state: string; n: number }>(
        await db.execute(
          sql`select ${repohostSources.syncState} as state, count(*)::int as n from ${repohostSources}
              where ${repohostSources.deletedAt} is null group by 1`,
        ),
      );
      this.reset();
      for (const r of rows) this.set({ state: r.state }, Number(r.n));
    },
  });
  const remaining = new Gauge({
    name: "spec_review_github_rate_limit_remaining",
    help: "Requests left in the GitHub rate-limit window, as the last answer reported, per installation (or token)",
    labelNames: ["who", "resource"] as const,
    registers: [registry],
  });
  const limit = new Gauge({
    name: "spec_review_github_rate_limit_limit",
    help: "The GitHub rate-limit window's size, as the last answer reported",
    labelNames: ["who", "resource"] as const,
    registers: [registry],
  });
  const waits = new Counter({
    name: "spec_review_github_rate_limit_waits_total",
    help: "GitHub rate limits met, by kind (primary, secondary)",
    labelNames: ["kind"] as const,
    registers: [registry],
  });
  const waited = new Counter({
    name: "spec_review_github_rate_limit_wait_seconds_total",
    help: "Seconds GitHub's rate limits asked to wait, by kind",
    labelNames: ["kind"] as const,
    registers: [registry],
  });
  return {
    budget(who, b) {
      remaining.set({ who, resource: b.resource }, b.remaining);
      limit.set({ who, resource: b.resource }, b.limit);
    },
    waited(_who, kind, ms) {
      waits.inc({ kind });
      waited.inc({ kind }, Math.max(0, ms) / 1000);
    },
  };
}
