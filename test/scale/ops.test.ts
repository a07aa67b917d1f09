/**
 * Operating one instance (issue 19): /healthz, /readyz (database, migrations, shutdown),
 * /metrics in Prometheus text (request latency by route pattern, runs by status, queue
 * depth, a webhook delivery counted by the App's port), the metrics token, the request id
 * on answers and log lines, and no secret in a log line.
 */
import { afterEach, describe, expect, it } from "vitest";
import { DB_KINDS, makeTestApp, type TestApp } from "../helpers/app.js";
import { jsonLogger } from "../../server/deps.js";
import { createApp } from "../../server/app.js";
import type { Actor } from "../../server/auth/actor.js";

const ADA: Actor = { id: "ada", name: "Ada", kind: "user", role: "admin" };

describe.each(DB_KINDS)("ops endpoints, on %s", (kind) => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
    delete process.env.SPEC_REVIEW_METRICS_TOKEN;
  });

  it("healthz answers; readyz checks the database and migrations, and fails once a shutdown starts", async () => {
    t = await makeTestApp({ kind, mode: "hosted" });
    const health = await t.app.request("/healthz");
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
    const ready = await t.app.request("/readyz");
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: "ready", checks: { database: "ok", migrations: "ok" } });
    t.services.lifecycle.draining = true;
    const draining = await t.app.request("/readyz");
    expect(draining.status).toBe(503);
    expect(await draining.json()).toMatchObject({
      status: "not_ready",
      checks: { shutdown: "shutting down" },
    });
  }, 180_000);

  it("metrics: latency by route pattern, runs by status, queue depth, webhook deliveries", async () => {
    const lines: string[] = [];
    t = await makeTestApp({
      kind,
      mode: "hosted",
      actor: ADA,
      logger: jsonLogger({ write: (l) => lines.push(l) }),
    });
    const bundle = "3f1c1a8e-2b7d-4c2a-9a51-0d5b8c1e7f20";
    expect((await t.req("GET", `/bundles/${bundle}`)).status).toBe(404);
    t.services.metrics.webhookDeliveries.inc({ event: "pull_request", outcome: "handled" });
    const res = await t.app.request("/metrics");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    const text = await res.text();
    expect(text).toMatch(
      /spec_review_http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/bundles\/:bundleId",status="404"\} 1/,
    );
    // Ids never become labels: the route pattern does.
    expect(text).not.toContain(bundle);
    expect(text).toContain("spec_review_queue_depth 0");
    expect(text).toContain('spec_review_webhook_deliveries_total{event="pull_request",outcome="handled"} 1');
    expect(text).toContain("# TYPE spec_review_model_tokens_total counter");
    const request = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.msg === "request");
    expect(request).toMatchObject({
      level: "info",
      method: "GET",
      status: 404,
      route: "/api/v1/bundles/:bundleId",
    });
    expect(request!.req_id).toEqual(expect.any(String));
  }, 180_000);

  it("metrics need the token when SPEC_REVIEW_METRICS_TOKEN is set (problem+json 401 otherwise)", async () => {
    process.env.SPEC_REVIEW_METRICS_TOKEN = "metrics-token-7f3a9c";
    t = await makeTestApp({ kind, mode: "hosted" });
    const app = createApp(t.services);
    const none = await app.request("/metrics");
    expect(none.status).toBe(401);
    expect(none.headers.get("content-type")).toBe("application/problem+json");
    expect(((await none.json()) as { code: string }).code).toBe("unauthenticated");
    expect(
      (await app.request("/metrics", { headers: { authorization: "Bearer wrong-token-000" } })).status,
    ).toBe(401);
    const ok = await app.request("/metrics", { headers: { authorization: "Bearer metrics-token-7f3a9c" } });
    expect(ok.status).toBe(200);
  }, 180_000);

  it("a request id: the caller's sane one is kept, else a new one; on the answer and on every log line of the request", async () => {
    const lines: string[] = [];
    t = await makeTestApp({
      kind,
      mode: "hosted",
      actor: ADA,
      logger: jsonLogger({ write: (l) => lines.push(l) }),
    });
    const kept = await t.req("GET", "/bundles", undefined, { "x-request-id": "edge-42.a" });
    expect(kept.headers.get("x-request-id")).toBe("edge-42.a");
    const replaced = await t.req("GET", "/bundles", undefined, { "x-request-id": "bad id with <script>" });
    expect(replaced.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const ids = lines.map((l) => (JSON.parse(l) as { req_id?: string }).req_id);
    expect(ids).toContain("edge-42.a");
    expect(ids).toContain(replaced.headers.get("x-request-id"));
  }, 180_000);

  it("log lines are JSON with level and time, and carry no secret", () => {
    const lines: string[] = [];
    const logger = jsonLogger({ write: (l) => lines.push(l) });
    logger.warn("backend refused", { authorization: "Bearer sk-live-abcdefghijklmnop", attempt: 2 });
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({ level: "warn", msg: "backend refused", attempt: 2 });
    expect(line.time).toEqual(expect.any(String));
    expect(lines[0]).not.toContain("abcdefghijklmnop");
  });
});
