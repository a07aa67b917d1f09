/**
 * The full review end to end: the HTTP app with a review worker, a backend configured
 * through the admin API pointing at a real local OpenAI-compatible server (the openai
 * SDK over HTTP), answers scripted from the prompts (test/core/review/scripted-model.ts).
 */
import { resolve } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { eq, inArray } from "drizzle-orm";
import { DB_KINDS, json, makeTestApp, problem, type TestApp } from "../helpers/app.js";
import { judgeGarbage, startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { answerFor, configureModels, docIdOf, readSse, settle } from "../core/review/e2e-helpers.js";
import type { Items, SpecDoc, WriteResult } from "../helpers/types.js";
import type { z } from "@hono/zod-openapi";
import type {
  BuildQuestionListSchema,
  ClaimSchema,
  FindingSchema,
  FixSchema,
  RunEstimateSchema,
  RunReportSchema,
  RunSchema,
  TourPointSchema,
} from "../../server/schemas/runs.js";

type Run = z.infer<typeof RunSchema>;
type Finding = z.infer<typeof FindingSchema>;
type Questions = z.infer<typeof BuildQuestionListSchema>;
type Claim = z.infer<typeof ClaimSchema>;
type Estimate = z.infer<typeof RunEstimateSchema>;
type Report = z.infer<typeof RunReportSchema>;
type Fix = z.infer<typeof FixSchema>;
type TourPoint = z.infer<typeof TourPointSchema>;

const FIXTURE = resolve(import.meta.dirname, "../../fixtures/review");

function bytesOf(text: string, quote: string): [number, number] {
  const at = Buffer.from(text).indexOf(quote);
  return [at, at + Buffer.byteLength(quote)];
}

describe.each(DB_KINDS)("full review on %s", (kind) => {
  let fake: FakeOpenAI;
  let t: TestApp;
  let docId: string;
  const spec = async () =>
    t.store
      .resolveVersion(await t.store.bundleIdOfDoc(docId))
      .then((v) => t.store.fileBytes(v.id, "spec.md"));

  beforeAll(async () => {
    fake = await startFakeOpenAI({ handler: answerFor });
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(async () => {
    fake.reset();
    fake.handler = answerFor;
    t = await makeTestApp({ kind, fixture: FIXTURE, worker: { pollMs: 20 } });
    docId = await docIdOf(t);
  });
  afterEach(async () => {
    await t.close();
  });

  it("refuses to start without models, then runs every stage and records questions, claims, findings and a full verdict", async () => {
    const refused = await problem(await t.req("POST", `/docs/${docId}/runs`), 409, "model_not_configured");
    expect(refused.roles).toEqual(["reviewer", "reader", "judge"]);
    await configureModels(t, fake.baseUrl);

    const est = await json<Estimate>(t.req("GET", `/docs/${docId}/runs/estimate`));
    expect(Object.keys(est).sort()).toEqual([
      "cached_steps",
      "calls",
      "cost_usd",
      "priced",
      "tokens_in",
      "tokens_out",
    ]);
    expect(est).toMatchObject({ cached_steps: 0, priced: true });
    expect(est.cost_usd).toBeCloseTo((est.tokens_in * 1 + est.tokens_out * 2) / 1e6, 6);

    const started = await t.req("POST", `/docs/${docId}/runs`);
    expect(started.status).toBe(202);
    const queued = (await started.json()) as Run;
    expect(queued).toMatchObject({ kind: "full", status: "queued", version_number: 1 });
    const run = await settle(t, queued.id);
    expect(run.status, run.error).toBe("done");
    expect((run.stages as Array<{ name: string }>).map((s) => s.name)).toEqual([
      "lint",
      "questions",
      "readers",
      "judge",
      "claims",
      "findings",
      "verdict",
    ]);

    // Every request went through the SDK with the role's model and a JSON schema response format.
    const models = new Set(fake.completions.map((r) => r.body.model));
    expect(models).toEqual(new Set(["reviewer-model", "reader-model", "judge-model"]));
    expect(fake.completions.every((r) => r.body.response_format?.type === "json_schema")).toBe(true);

    // Build questions, contract 2.16 exactly.
    const { items } = await json<Questions>(t.req("GET", `/runs/${run.id}/questions`));
    expect(items.map((q) => [q.number, q.level, q.result, q.groups])).toEqual([
      [1, "MUST", "agree", [[1, 2, 3]]],
      [2, "MUST", "diverge", [[1], [2], [3]]],
      [3, "MUST", "unanswered", [[1, 2, 3]]],
      [4, "SHOULD", "agree", [[1, 2, 3]]],
    ]);
    for (const q of items)
      expect(Object.keys(q).sort()).toEqual([
        "answers",
        "cites",
        "groups",
        "id",
        "level",
        "number",
        "result",
        "text",
      ]);
    const text = (await spec()).bytes;
    const source = Buffer.from(text).toString("utf8");
    const line = "REQ-001 The cart total is shown in the shop's currency with two decimals.";
    expect(items[0]!.cites[0]).toMatchObject({ kind: "section", path: ["Checkout", "Requirements"] });
    expect([items[0]!.cites[0]!.anchor.start, items[0]!.cites[0]!.anchor.end]).toEqual(bytesOf(source, line));
    expect(items[0]!.answers[0]).toEqual({
      reader: 1,
      answer: line,
      answered: true,
      quotes: [{ text: line, found: true }],
    });
    expect(items[2]!.answers.map((a) => a.answered)).toEqual([false, false, false]);

    // Findings: lint and AI together in document order; AI anchors at the quoted bytes, or the section heading.
    const findings = (await json<Items<Finding>>(t.req("GET", `/runs/${run.id}/findings`))).items;
    const ai = findings.filter((f) => f.stage !== "lint");
    expect(ai.map((f) => [f.check_slug, f.level, f.stage])).toEqual([
      ["build-question", "MUST", "judge"],
      ["build-question", "MUST", "judge"],
      ["claim-contradicted", "SHOULD", "claims"],
      ["ai-review", "MUST", "findings"],
      ["ai-review", "SHOULD", "findings"],
    ]);
    expect([ai[0]!.anchor!.start, ai[0]!.anchor!.end]).toEqual(
      bytesOf(source, "REQ-002 A failed payment is retried at most 3 times (ambiguous)."),
    );
    // FIXME's quote is not in the text: anchored to its section's heading.
    expect(ai[3]!.anchor!.quote).toBe("## Open points");
    expect([ai[3]!.anchor!.start, ai[3]!.anchor!.end]).toEqual(bytesOf(source, "## Open points"));
    expect([ai[4]!.anchor!.start, ai[4]!.anchor!.end]).toEqual(
      bytesOf(source, "TODO decide the refund window."),
    );
    const starts = findings.map((f) => f.anchor?.start ?? 0);
    expect([...starts].sort((a, b) => a - b)).toEqual(starts);

    // Verdict of kind full, counting lint and AI findings.
    const lintMust = findings.filter((f) => f.stage === "lint" && f.level === "MUST").length;
    expect(run.verdict).toMatchObject({
      kind: "full",
      ai_run_id: run.id,
      result: "not_build_ready",
      must: lintMust + 3,
    });
    const doc = await json<SpecDoc>(t.req("GET", `/docs/${docId}`));
    expect(doc.verdict).toMatchObject({ kind: "full", run_id: run.id });

    // Claims: a supported claim whose quote is nowhere in the bundle is unsupported.
    const claims = (await json<Items<Claim>>(t.req("GET", `/runs/${run.id}/claims`))).items;
    expect(claims.map((c) => c.label)).toEqual(["supported", "contradicted", "unsupported"]);
    expect(claims[2]!.sources).toEqual([
      { text: "a sentence that no file of the bundle holds", found: false },
    ]);

    // Report and tour.
    const report = await json<Report>(t.req("GET", `/runs/${run.id}/report`));
    expect(report.reader_diversity).toMatchObject({
      readers: 3,
      questions: 4,
      divergent_questions: 1,
      agree: 2,
      unanswered: 1,
      unjudged: 0,
    });
    for (const stage of ["questions", "readers", "judge", "claims", "findings"])
      expect(report.answers_by_stage?.[stage]).toMatchObject({
        repaired: 0,
        retried: 0,
        dropped: 0,
        lost: 0,
      });
    expect(Object.values(report.answers_by_stage ?? {}).reduce((n, s) => n + s.calls, 0)).toBe(
      fake.completions.length,
    );
    expect(report.findings_by_category).toEqual(
      findings.reduce<Record<string, number>>(
        (m, f) => ({ ...m, [f.category]: (m[f.category] ?? 0) + 1 }),
        {},
      ),
    );
    expect(report.calls).toBe(fake.completions.length);
    const tour = (await json<Items<TourPoint>>(t.req("GET", `/docs/${docId}/tour`))).items;
    expect(tour.slice(0, 3).map((p) => [p.kind, p.finding_id])).toEqual([
      ["decide", ai[0]!.id],
      ["decide", ai[1]!.id],
      ["decide", ai[2]!.id],
    ]);
    // Then fixes: every MUST (lint and AI) before any SHOULD.
    const fixes = tour.filter((p) => p.kind === "fix").map((p) => p.sentence.slice(0, 11));
    expect(fixes).toEqual([...fixes].sort());
    expect(tour).toContainEqual(
      expect.objectContaining({
        kind: "fix",
        finding_id: ai[3]!.id,
        sentence: "Fix (MUST): Something here is broken.",
      }),
    );
    expect(tour.some((p) => p.kind === "fix" && p.finding_id === ai[4]!.id)).toBe(true);
  });

  it("streams events by stage with ids, resumes after Last-Event-ID, and closes at the end", async () => {
    await configureModels(t, fake.baseUrl);
    fake.handler = async (req) => {
      await new Promise((r) => setTimeout(r, 30));
      return answerFor(req);
    };
    t.bus.sse.heartbeatMs = 10;
    const run = await json<Run>(t.req("POST", `/docs/${docId}/runs`));
    const live = await readSse(await t.app.request(`/api/v1/runs/${run.id}/events`));
    const names = live.events.map((e) => e.event);
    expect(names[0]).toBe("queued");
    expect(names.at(-1)).toBe("done");
    expect(live.events.map((e) => Number(e.id))).toEqual(live.events.map((_, i) => i + 1));
    const stages = live.events
      .filter((e) => e.event === "stage")
      .map((e) => e.data as { stage: string; status: string; done?: number; total?: number });
    expect(stages[0]).toEqual({ stage: "lint", status: "started" });
    const readers = stages.filter((s) => s.stage === "readers" && s.status === "progress");
    expect(readers.map((s) => s.done)).toEqual(readers.map((_, i) => i + 1));
    expect(names.filter((n) => n === "finding")).toHaveLength(5);
    expect(live.comments).toContain("heartbeat");
    expect((live.events.at(-1)!.data as { verdict: { kind: string } }).verdict.kind).toBe("full");

    // Resume: only the events after the given id.
    const from = Number(live.events[9]!.id);
    const resumed = await readSse(
      await t.app.request(`/api/v1/runs/${run.id}/events`, { headers: { "Last-Event-ID": String(from) } }),
    );
    expect(resumed.events.map((e) => e.id)).toEqual(live.events.slice(10).map((e) => e.id));
    await problem(await t.req("GET", `/runs/00000000-0000-4000-8000-000000000000/events`), 404, "not_found");
    // A lint run has no stages to follow: one `done` with its verdict.
    const lint = (await t.runs.latestRuns([docId])).get(docId)!;
    expect(lint.kind).toBe("full");
    const lintRun = (await t.runs.list(docId, { limit: 10 })).find((r) => r.kind === "lint")!;
    const single = await readSse(await t.app.request(`/api/v1/runs/${lintRun.id}/events`));
    expect(single.events).toEqual([
      { id: undefined, event: "done", data: { verdict: lintRun.verdict, status: "done" } },
    ]);
  });

  it("re-asks only what a one-section edit changed, and a later lint verdict keeps counting the AI findings", async () => {
    await configureModels(t, fake.baseUrl);
    const first = await settle(t, (await json<Run>(t.req("POST", `/docs/${docId}/runs`))).id);
    expect(first.status).toBe("done");
    const asked = fake.completions.length;
    const report1 = await json<Report>(t.req("GET", `/runs/${first.id}/report`));
    expect(report1).toMatchObject({ calls: asked, cached_calls: 0 });

    // Unchanged: everything is cached, the estimate says so.
    expect(await json<Estimate>(t.req("GET", `/docs/${docId}/runs/estimate`))).toMatchObject({
      calls: 0,
      cached_steps: asked,
      tokens_in: 0,
    });

    // Edit one section and save: a lint run counts the full review's AI findings.
    const v1 = await spec();
    const edited = Buffer.from(v1.bytes).toString("utf8").replace("two decimals", "no decimals");
    const saved = await json<WriteResult>(
      t.req(
        "PUT",
        `/docs/${docId}/files/content?path=spec.md&base_version=${(await t.store.resolveVersion(await t.store.bundleIdOfDoc(docId))).id}`,
        edited,
        {
          "content-type": "text/markdown",
        },
      ),
    );
    expect(saved.version.number).toBe(2);
    expect(saved.verdict).toMatchObject({
      kind: "lint",
      ai_run_id: first.id,
      ai_version_number: 1,
      sections_changed: 1,
    });
    expect(saved.verdict!.must).toBe(first.verdict!.must);

    fake.reset();
    const second = await settle(t, (await json<Run>(t.req("POST", `/docs/${docId}/runs`))).id);
    expect(second.status).toBe("done");
    const stages = fake.completions.map((r) => r.body.response_format!.json_schema!.name).sort();
    expect(stages).toEqual([
      "build_questions",
      "claims",
      "findings",
      "judge_groups",
      ...Array<string>(9).fill("reader_answer"),
    ]);
    const report2 = await json<Report>(t.req("GET", `/runs/${second.id}/report`));
    expect(report2).toMatchObject({ calls: asked, cached_calls: asked - 13 });
  });

  it("retries a 429 after Retry-After, a 500, and broken JSON once", async () => {
    await configureModels(t, fake.baseUrl);
    await t.req("PUT", "/admin/settings", {
      max_file_mb: 10,
      max_bundle_mb: 50,
      invite_ttl_days: 7,
      parallel_calls: 1,
    });
    fake.enqueue({ status: 429, retryAfter: 1 }, { status: 500 }, { content: "{ not json" });
    const started = Date.now();
    const run = await settle(t, (await json<Run>(t.req("POST", `/docs/${docId}/runs`))).id);
    expect(run.status, run.error).toBe("done");
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(fake.maxConcurrent).toBe(1);
    const report = await json<Report>(t.req("GET", `/runs/${run.id}/report`));
    // Three extra requests: after the 429, after the 500, and the re-ask with the error.
    expect(fake.completions.length).toBe(Number(report.calls) + 3);
    expect(
      fake.completions.filter((r) => r.prompt.includes("Your previous answer was not valid: not JSON")),
    ).toHaveLength(1);
  });

  it("fails a run whose judge stage produced nothing usable, naming the stage and keeping what finished", async () => {
    await configureModels(t, fake.baseUrl);
    fake.handler = judgeGarbage(answerFor);
    const run = await settle(t, (await json<Run>(t.req("POST", `/docs/${docId}/runs`))).id);
    expect(run.status).toBe("failed");
    expect(run.error).toMatch(
      /^model_output_invalid: judge: no answer of this stage was usable \(3 lost\); the first error: judge: the model's answer is not valid twice in a row/,
    );
    expect(run.verdict).toMatchObject({ kind: "lint" });
    const doc = await json<SpecDoc>(t.req("GET", `/docs/${docId}`));
    expect(doc.run_error).toBe(run.error);
    const stream = await readSse(await t.app.request(`/api/v1/runs/${run.id}/events`));
    expect(stream.events.at(-1)).toMatchObject({
      event: "failed",
      data: { code: "model_output_invalid", stage: "judge" },
    });
    expect((await json<Items<Claim>>(t.req("GET", `/runs/${run.id}/claims`))).items.length).toBe(3);
    const { items } = await json<Questions>(t.req("GET", `/runs/${run.id}/questions`));
    expect(items.map((q) => q.result)).toEqual(["unjudged", "unjudged", "unanswered", "unjudged"]);
    const report = await json<Report>(t.req("GET", `/runs/${run.id}/report`));
    expect(report.answers_by_stage?.judge).toEqual({
      calls: 6,
      repaired: 0,
      retried: 3,
      dropped: 0,
      lost: 3,
    });
  });

  it("checks the budget before a run and enforces it during one", async () => {
    await configureModels(t, fake.baseUrl);
    await t.req("PUT", "/admin/settings", {
      max_file_mb: 10,
      max_bundle_mb: 50,
      invite_ttl_days: 7,
      parallel_calls: 1,
    });
    await t.req("PUT", "/admin/budget", { limit_tokens: 3000 });
    const run = await settle(t, (await json<Run>(t.req("POST", `/docs/${docId}/runs`))).id);
    expect(run.status).toBe("failed");
    expect(run.error).toMatch(/^budget_exceeded: /);
    const report = await json<Report>(t.req("GET", `/runs/${run.id}/report`));
    expect(Number(report.calls)).toBeGreaterThan(0);
    expect(fake.completions.length).toBe(report.calls);
    const used = (await json<{ used_tokens: number }>(t.req("GET", "/admin/budget"))).used_tokens;
    expect(used).toBe(Number(report.tokens_in) + Number(report.tokens_out));
    expect(used).toBeLessThanOrEqual(3000);

    await t.budget.record(new Date(), 5000, 0);
    await problem(await t.req("POST", `/docs/${docId}/runs`), 409, "budget_exceeded");
  });

  it("suggests a fix without changing the doc, applies it on base_version, and refuses a patch that no longer applies", async () => {
    await configureModels(t, fake.baseUrl);
    const run = await settle(t, (await json<Run>(t.req("POST", `/docs/${docId}/runs`))).id);
    const todo = (await json<Items<Finding>>(t.req("GET", `/runs/${run.id}/findings`))).items.find(
      (f) => f.check_slug === "ai-review" && f.level === "SHOULD",
    )!;
    await problem(
      await t.req("POST", `/runs/${run.id}/findings/${todo.id}/fix/accept?base_version=${run.version_id}`),
      409,
      "fix_not_suggested",
    );
    const fix = await json<Fix>(t.req("POST", `/runs/${run.id}/findings/${todo.id}/fix`));
    expect(fix.patch).toContain("-TODO decide the refund window.");
    expect(fix.patch).toContain("+DONE decide the refund window.");
    expect((await t.store.versions(await t.store.bundleIdOfDoc(docId), { limit: 10 })).length).toBe(1);

    const accepted = await json<WriteResult>(
      t.req("POST", `/runs/${run.id}/findings/${todo.id}/fix/accept?base_version=${run.version_id}`),
    );
    expect(accepted).toMatchObject({ changed: true, version: { number: 2 } });
    expect(Buffer.from((await spec()).bytes).toString("utf8")).toContain("DONE decide the refund window.");
    await problem(
      await t.req("POST", `/runs/${run.id}/findings/${todo.id}/fix/accept?base_version=${run.version_id}`),
      409,
      "version_conflict",
    );
    // On the new version the TODO is gone: the same patch no longer applies.
    await problem(
      await t.req(
        "POST",
        `/runs/${run.id}/findings/${todo.id}/fix/accept?base_version=${accepted.version.id}`,
      ),
      409,
      "patch_conflict",
    );
  });

  it("summarizes a diff and the change in findings", async () => {
    await configureModels(t, fake.baseUrl);
    const v1 = await t.store.resolveVersion(await t.store.bundleIdOfDoc(docId));
    const lint1 = (await t.runs.latestRuns([docId])).get(docId)!;
    const todoLint = (await t.runs.findings(lint1.id)).filter((f) =>
      (f.anchor as { quote: string }).quote.includes("TODO"),
    );
    expect(todoLint.length).toBeGreaterThan(0);
    const text = Buffer.from((await spec()).bytes)
      .toString("utf8")
      .replace("TODO decide the refund window.", "The refund window is 30 days.");
    await t.req("PUT", `/docs/${docId}/files/content?path=spec.md&base_version=${v1.id}`, text, {
      "content-type": "text/markdown",
    });
    const summary = await json<{
      summary: string;
      sections_changed: number;
      findings: { added: string[]; resolved: string[] };
    }>(t.req("POST", `/docs/${docId}/diff/summary`, { from: v1.id }));
    expect(summary.summary).toBe("- 1 section changed");
    expect(summary.sections_changed).toBe(1);
    // The lint finding on the TODO is resolved by the edit.
    expect(summary.findings).toEqual({ added: [], resolved: todoLint.map((f) => f.id) });
  });

  it("never makes more than parallel_calls calls at once, and two workers never take the same run", async () => {
    await configureModels(t, fake.baseUrl);
    await t.req("PUT", "/admin/settings", {
      max_file_mb: 10,
      max_bundle_mb: 50,
      invite_ttl_days: 7,
      parallel_calls: 2,
    });
    fake.handler = async (req) => {
      await new Promise((r) => setTimeout(r, 15));
      return answerFor(req);
    };
    await t.worker!.stop();
    const ids = [];
    for (let i = 0; i < 4; i++) ids.push((await json<Run>(t.req("POST", `/docs/${docId}/runs`))).id);
    const claimed: string[] = [];
    // Two workers of one service graph: the same database, bus and review service.
    const deps = t.services;
    const { claimNext } = await import("../../server/jobs/queue.js");
    // Four claimers race for four runs: each run is claimed exactly once.
    const got = await Promise.all([1, 2, 3, 4, 5].map((n) => claimNext(t.database.db, `w${n}`, new Date())));
    for (const g of got) if (g) claimed.push(g.id);
    expect(claimed.sort()).toEqual([...ids].sort());
    const { runs } = await import("../../server/db/schema.js");
    await t.database.db.update(runs).set({ status: "queued", stage: null }).where(inArray(runs.id, ids));
    // Two workers on one database run them all, each run once, with at most 2 calls at once per run.
    const { createReviewWorker } = await import("../../server/review/worker.js");
    const w1 = createReviewWorker(deps, { pollMs: 10, concurrency: 1 });
    const w2 = createReviewWorker(deps, { pollMs: 10, concurrency: 1 });
    await Promise.all([w1.start(), w2.start()]);
    try {
      for (const id of ids) expect((await settle(t, id)).status).toBe("done");
    } finally {
      await Promise.all([w1.stop(), w2.stop()]);
    }
    // 2 runs at once (one per worker) x parallel_calls 2.
    expect(fake.maxConcurrent).toBeLessThanOrEqual(4);
    expect(fake.maxConcurrent).toBeGreaterThan(1);
    const { reviewRuns } = await import("../../server/db/schema.js");
    const rows = await t.database.db.select().from(reviewRuns).where(inArray(reviewRuns.runId, ids));
    expect(rows.map((r) => r.attempts)).toEqual([2, 2, 2, 2]);
  });

  it("requeues a run a dead process left running, and fails one tried too often", async () => {
    await configureModels(t, fake.baseUrl);
    await t.worker!.stop();
    const { runs, reviewRuns } = await import("../../server/db/schema.js");
    const a = await json<Run>(t.req("POST", `/docs/${docId}/runs`));
    const b = await json<Run>(t.req("POST", `/docs/${docId}/runs`));
    const old = new Date(Date.now() - 3_600_000);
    for (const [id, attempts] of [
      [a.id, 1],
      [b.id, 2],
    ] as const) {
      await t.database.db
        .update(runs)
        .set({ status: "running", stage: "readers", startedAt: old })
        .where(eq(runs.id, id));
      await t.database.db
        .update(reviewRuns)
        .set({ attempts, worker: "worker-dead", heartbeatAt: old })
        .where(eq(reviewRuns.runId, id));
    }
    await t.worker!.start();
    const [ra, rb] = [await settle(t, a.id), await settle(t, b.id)];
    expect(ra.status, ra.error).toBe("done");
    expect(rb).toMatchObject({
      status: "failed",
      error: "interrupted: the server stopped while the run was running (2 attempts)",
    });
    const evs = await readSse(await t.app.request(`/api/v1/runs/${a.id}/events`));
    expect(evs.events.map((e) => e.event)).toContain("requeued");
  });
});
