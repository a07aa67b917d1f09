/**
 * What operators and their tools call, outside the API (docs/deploy.md):
 *
 * - `GET /healthz`: the process answers (liveness; never touches the database).
 * - `GET /readyz`: the database answers, every migration is applied, and the instance is
 *   not shutting down (readiness: a load balancer sends requests only to a ready one).
 * - `GET /metrics`: Prometheus text (server/metrics.ts). When SPEC_REVIEW_METRICS_TOKEN is
 *   set it needs `Authorization: Bearer <token>`; else it is open like any exporter, and
 *   the proxy keeps it off the public address (deploy/Caddyfile).
 *
 * And the request middleware every request passes first: a request id (the caller's
 * `X-Request-Id` when it is a sane one, else a new one; sent back), carried by every log
 * line written while answering (server/log.ts), one log line per request (hosted mode;
 * local mode at debug), and its latency by route pattern.
 */
import { randomUUID, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Hono, MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { sql } from "drizzle-orm";
import type { Deps } from "./deps.js";
import type { Env } from "./http.js";
import { ApiError } from "./errors.js";
import { migrationsFolder, rowsOf } from "./db/index.js";
import { requestContext } from "./log.js";

/** Flipped by a shutdown (server/start.ts): readiness fails first, so balancers stop sending. */
export interface Lifecycle {
  draining: boolean;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,100}$/;
const QUIET = new Set(["/healthz", "/readyz", "/metrics"]);

export function requestMiddleware(deps: Deps): MiddlewareHandler {
  return async (c, next) => {
    const given = c.req.header("x-request-id");
    const requestId = given && REQUEST_ID.test(given) ? given : randomUUID();
    const started = performance.now();
    // Set before the answer is made, so it joins the answer's headers: set after, Hono
    // would copy the whole response to add it.
    c.header("X-Request-Id", requestId);
    await requestContext.run({ requestId }, async () => {
      await next();
      // A handler that built its own Response skipped the prepared headers.
      if (c.res.headers.get("x-request-id") !== requestId) c.header("X-Request-Id", requestId);
      const seconds = (performance.now() - started) / 1000;
      const route = routePath(c, -1) || "*";
      const status = c.res.status;
      deps.metrics?.httpDuration.observe({ method: c.req.method, route, status: String(status) }, seconds);
      const line = {
        method: c.req.method,
        route,
        path: c.req.path,
        status,
        ms: Math.round(seconds * 1e4) / 10,
      };
      // Local mode is one person at a terminal: their requests are logged at debug only.
      if (QUIET.has(c.req.path) || deps.mode === "local") deps.logger.debug("request", line);
      else deps.logger.info("request", line);
    });
  };
}

let journalSize: number | undefined;
/** Migrations the package ships (the journal drizzle-kit writes). */
function shippedMigrations(): number {
  journalSize ??= (
    JSON.parse(readFileSync(join(migrationsFolder(), "meta", "_journal.json"), "utf8")) as {
      entries: unknown[];
    }
  ).entries.length;
  return journalSize;
}

async function readiness(
  deps: Deps,
  lifecycle: Lifecycle,
): Promise<{ ok: boolean; checks: Record<string, string> }> {
  const checks: Record<string, string> = {};
  if (lifecycle.draining) checks.shutdown = "shutting down";
  try {
    const [row] = rowsOf<{ n: number }>(
      await Promise.race([
        deps.db.execute(sql`select count(*)::int as n from drizzle.__drizzle_migrations`),
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error("no answer within 2 s")), 2000).unref(),
        ),
      ]),
    );
    checks.database = "ok";
    const applied = Number(row?.n ?? 0);
    const shipped = shippedMigrations();
    checks.migrations = applied >= shipped ? "ok" : `${applied} of ${shipped} applied`;
  } catch (err) {
    checks.database = `unreachable: ${err instanceof Error ? err.message : String(err)}`;
    checks.migrations = "unknown";
  }
  if (deps.cluster && !deps.cluster.listening) checks.cluster = "not listening (reconnecting)";
  const ok = !lifecycle.draining && checks.database === "ok" && checks.migrations === "ok";
  return { ok, checks };
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Mount /healthz, /readyz and /metrics on the app (before the API's guards: probes send no Host a browser would). */
export function mountOps(
  app: Hono<Env>,
  deps: Deps,
  lifecycle: Lifecycle = deps.lifecycle ?? { draining: false },
  metricsToken: string | undefined = process.env.SPEC_REVIEW_METRICS_TOKEN || undefined,
): void {
  app.get("/healthz", (c) => c.json({ status: "ok" }));
  app.get("/readyz", async (c) => {
    const r = await readiness(deps, lifecycle);
    return c.json({ status: r.ok ? "ready" : "not_ready", checks: r.checks }, r.ok ? 200 : 503);
  });
  app.get("/metrics", async (c) => {
    if (metricsToken) {
      const auth = c.req.header("authorization") ?? "";
      const given = auth.startsWith("Bearer ") ? auth.slice(7) : "";
      if (!sameToken(given, metricsToken))
        throw new ApiError(
          "unauthenticated",
          "GET /metrics needs Authorization: Bearer <SPEC_REVIEW_METRICS_TOKEN>",
        );
    }
    if (!deps.metrics) return c.text("", 200);
    const text = await deps.metrics.registry.metrics();
    return c.body(text, 200, { "content-type": deps.metrics.registry.contentType });
  });
}
