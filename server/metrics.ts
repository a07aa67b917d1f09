/**
 * Prometheus metrics of one service graph (prom-client), served at `GET /metrics`
 * (server/ops.ts). One registry per graph, never prom-client's global one: two graphs in
 * one process (tests) count apart.
 *
 * Counted as it happens: request latency by route, stage durations and model tokens and
 * cost (as each model call answers), webhook deliveries (the App increments
 * `webhookDeliveries`). Read from the database at scrape time, so that every instance
 * reports the same truth: runs by status, and the queue's depth.
 */
import { sql } from "drizzle-orm";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { rowsOf, type Db } from "./db/index.js";
import type { RoleModel } from "./models/types.js";
import { runs } from "./db/schema.js";

export class Metrics {
  readonly registry = new Registry();
  readonly httpDuration = new Histogram({
    name: "spec_review_http_request_duration_seconds",
    help: "HTTP request latency by method, route pattern and status",
    labelNames: ["method", "route", "status"] as const,
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly stageDuration = new Histogram({
    name: "spec_review_run_stage_duration_seconds",
    help: "Duration of each stage of full review runs",
    labelNames: ["stage"] as const,
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 120, 300, 600],
    registers: [this.registry],
  });
  readonly modelTokens = new Counter({
    name: "spec_review_model_tokens_total",
    help: "Model tokens used, by role, model and direction (in: prompt, out: answer)",
    labelNames: ["role", "model", "direction"] as const,
    registers: [this.registry],
  });
  readonly modelCost = new Counter({
    name: "spec_review_model_cost_usd_total",
    help: "Cost of model calls in USD, by role and model (roles with prices only)",
    labelNames: ["role", "model"] as const,
    registers: [this.registry],
  });
  readonly modelCalls = new Counter({
    name: "spec_review_model_calls_total",
    help: "Model calls, by role, model and outcome",
    labelNames: ["role", "model", "outcome"] as const,
    registers: [this.registry],
  });
  /** GitHub App webhook deliveries: the App calls `webhookDeliveries.inc({ event, outcome })`. */
  readonly webhookDeliveries = new Counter({
    name: "spec_review_webhook_deliveries_total",
    help: "Webhook deliveries received, by event and outcome (handled, ignored, failed, rejected)",
    labelNames: ["event", "outcome"] as const,
    registers: [this.registry],
  });

  /** The App's reconciliation (app/reconcile.ts): deliveries it asked GitHub to send again. */
  readonly deliveriesRedelivered = new Counter({
    name: "spec_review_deliveries_redelivered_total",
    help: "Webhook deliveries the App's reconciliation asked GitHub to redeliver, by event",
    labelNames: ["event"] as const,
    registers: [this.registry],
  });
  /** The App's reconciliation passes, by outcome (done, skipped: another instance held the lease, failed). */
  readonly reconcilePasses = new Counter({
    name: "spec_review_reconcile_passes_total",
    help: "Reconciliation passes of the GitHub App, by outcome (done, skipped, failed)",
    labelNames: ["outcome"] as const,
    registers: [this.registry],
  });

  constructor(db: Db, opts: { defaults?: boolean } = {}) {
    new Gauge({
      name: "spec_review_runs",
      help: "Runs by kind and status (read from the database at scrape time)",
      labelNames: ["kind", "status"] as const,
      registers: [this.registry],
      async collect() {
        const rows = rowsOf<{ kind: string; status: string; n: number }>(
          await db.execute(
            sql`select ${runs.kind} as kind, ${runs.status} as status, count(*)::int as n from ${runs} group by 1, 2`,
          ),
        );
        this.reset();
        for (const r of rows) this.set({ kind: r.kind, status: r.status }, Number(r.n));
      },
    });
    new Gauge({
      name: "spec_review_queue_depth",
      help: "Full review runs waiting for a worker",
      registers: [this.registry],
      async collect() {
        const [row] = rowsOf<{ n: number }>(
          await db.execute(
            sql`select count(*)::int as n from ${runs} where ${runs.status} = 'queued' and ${runs.kind} = 'full'`,
          ),
        );
        this.set(Number(row?.n ?? 0));
      },
    });
    // Process metrics (memory, event loop lag, GC): once per process is what matters; tests skip them.
    if (opts.defaults) collectDefaultMetrics({ register: this.registry, prefix: "spec_review_" });
  }

  /** Stage durations of a finished run (its `stages`, in ms). */
  observeStages(stages: ReadonlyArray<{ name: string; duration_ms: number }>): void {
    for (const s of stages) this.stageDuration.observe({ stage: s.name }, s.duration_ms / 1000);
  }

  /** The role's model with its calls counted: tokens, cost, outcome. */
  instrumentRole(m: RoleModel): RoleModel {
    const labels = { role: m.role, model: m.model };
    const client = m.client;
    return {
      ...m,
      client: {
        call: async (req) => {
          try {
            const answer = await client.call(req);
            this.modelCalls.inc({ ...labels, outcome: "ok" });
            this.modelTokens.inc({ ...labels, direction: "in" }, answer.tokensIn);
            this.modelTokens.inc({ ...labels, direction: "out" }, answer.tokensOut);
            if (m.priceInPerMTok !== undefined && m.priceOutPerMTok !== undefined)
              this.modelCost.inc(
                labels,
                (answer.tokensIn * m.priceInPerMTok + answer.tokensOut * m.priceOutPerMTok) / 1e6,
              );
            return answer;
          } catch (err) {
            this.modelCalls.inc({ ...labels, outcome: "error" });
            throw err;
          }
        },
      },
    };
  }
}
