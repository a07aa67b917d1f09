/**
 * The full review through a coding-agent CLI subprocess (a custom `agent_cli` backend),
 * and reviews of unsaved files (POST /reviews): nothing saved, an HTML report, purged
 * after 90 days.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { z } from "@hono/zod-openapi";
import { DB_KINDS, json, makeTestApp, problem, type TestApp } from "../helpers/app.js";
import type { Clock } from "../../server/deps.js";
import type { AdHocReviewSchema, BuildQuestionListSchema, RunSchema } from "../../server/schemas/runs.js";
import type { Items, SpecDoc } from "../helpers/types.js";
import { docIdOf, settle } from "../core/review/e2e-helpers.js";

type Run = z.infer<typeof RunSchema>;
type Questions = z.infer<typeof BuildQuestionListSchema>;
type AdHoc = z.infer<typeof AdHocReviewSchema>;

const FIXTURE = resolve(import.meta.dirname, "../../fixtures/review");
const SPEC = readFileSync(resolve(FIXTURE, "checkout/spec.md"), "utf8");
const AGENT = resolve(import.meta.dirname, "../core/review/agent-cli.ts");
const TSX = fileURLToPath(import.meta.resolve("tsx"));

function movableClock(start: string): Clock & { set(iso: string): void } {
  let now = new Date(start);
  return { now: () => new Date(now), set: (iso) => void (now = new Date(iso)) };
}

async function agentBackend(t: TestApp): Promise<void> {
  const res = await t.req("POST", "/admin/backends", {
    kind: "agent_cli",
    name: "scripted agent",
    preset: "custom",
    command: [process.execPath, "--import", TSX, AGENT, "--schema", "{schema}", "--model", "{model}"],
    prompt_via: "stdin",
  });
  expect(res.status, await res.clone().text()).toBe(201);
  const { id } = (await res.json()) as { id: string };
  for (const role of ["reviewer", "reader", "judge"])
    expect(
      (await t.req("PUT", `/admin/roles/${role}`, { backend_id: id, model: `${role}-cli` })).status,
    ).toBe(200);
}

describe.each(DB_KINDS)("full review through an agent CLI, and ad-hoc reviews, on %s", (kind) => {
  let t: TestApp;
  const clock = movableClock("2026-11-15T12:00:00Z");
  beforeEach(async () => {
    clock.set("2026-11-15T12:00:00Z");
    t = await makeTestApp({ kind, fixture: FIXTURE, clock, worker: { pollMs: 20 } });
  });
  afterEach(async () => {
    await t.close();
  });

  it("runs every stage through the subprocess and gets the same questions", async () => {
    await agentBackend(t);
    await t.req("PUT", "/admin/settings", {
      max_file_mb: 10,
      max_bundle_mb: 50,
      invite_ttl_days: 7,
      parallel_calls: 8,
    });
    const docId = await docIdOf(t);
    const est = await json<{ priced: boolean; cost_usd?: number }>(
      t.req("GET", `/docs/${docId}/runs/estimate`),
    );
    expect(est.priced).toBe(false);
    expect(est).not.toHaveProperty("cost_usd");
    const run = await settle(t, (await json<Run>(t.req("POST", `/docs/${docId}/runs`))).id, 90_000);
    expect(run.status, run.error).toBe("done");
    const { items } = await json<Questions>(t.req("GET", `/runs/${run.id}/questions`));
    expect(items.map((q) => [q.text, q.result])).toEqual([
      ["What exactly does REQ-001 require?", "agree"],
      ["What exactly does REQ-002 require?", "diverge"],
      ["What exactly does REQ-003 require?", "unanswered"],
      ["What exactly does REQ-004 require?", "agree"],
    ]);
    expect(run.verdict).toMatchObject({ kind: "full", ai_run_id: run.id });
  }, 120_000);

  it("reviews files that are not saved, keeps a report for 90 days, then purges it", async () => {
    const bundles = async () =>
      (await json<Items<{ id: string; docs: SpecDoc[] }>>(t.req("GET", "/bundles"))).items.map((b) => [
        b.id,
        b.docs.map((d) => [d.id, d.current_version.id, d.verdict?.run_id]),
      ]);
    await t.runs.idle();
    const before = await bundles();
    const lintOnly = await json<AdHoc>(
      t.req("POST", "/reviews", {
        files: [
          { path: "spec.md", content: SPEC },
          { path: "notes.txt", content: "x" },
        ],
      }),
    );
    expect(lintOnly.verdict).toMatchObject({ kind: "lint", run_id: lintOnly.id });
    expect(lintOnly.findings.length).toBeGreaterThan(0);
    expect(lintOnly.findings.every((f) => f.run_id === lintOnly.id && f.stage === "lint")).toBe(true);
    expect(lintOnly.expires_at).toBe("2027-02-13T12:00:00.000Z");
    expect(lintOnly).not.toHaveProperty("questions");

    // full: needs the models.
    await problem(
      await t.req("POST", "/reviews", { files: [{ path: "spec.md", content: SPEC }], full: true }),
      409,
      "model_not_configured",
    );
    await agentBackend(t);
    const full = await json<AdHoc>(
      t.req("POST", "/reviews", {
        files: [{ path: "spec.md", content: Buffer.from(SPEC).toString("base64"), encoding: "base64" }],
        full: true,
      }),
    );
    expect(full.verdict).toMatchObject({ kind: "full", ai_run_id: full.id });
    expect(full.questions!.map((q) => q.result)).toEqual(["agree", "diverge", "unanswered", "agree"]);
    expect(full.claims!.map((c) => c.label)).toEqual(["supported", "contradicted", "unsupported"]);

    // No bundle changed or appeared.
    expect(await bundles()).toEqual(before);
    expect(before).toHaveLength(1);

    const report = await t.req("GET", `/reviews/${full.id}/report`);
    expect(report.status).toBe(200);
    expect(report.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await report.text();
    expect(html).toContain("Not Build Ready");
    expect(html).toContain("What exactly does REQ-002 require?");
    expect(html).not.toMatch(/<script|<link|src="http/);

    await problem(
      await t.req("POST", "/reviews", { files: [{ path: "../x.md", content: "# x" }] }),
      400,
      "bad_path",
    );

    clock.set("2027-02-14T12:00:00Z");
    await problem(await t.req("GET", `/reviews/${full.id}/report`), 404, "not_found");
    await problem(await t.req("GET", `/reviews/${lintOnly.id}/report`), 404, "not_found");
  }, 120_000);
});
