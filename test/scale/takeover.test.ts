/**
 * kill -9 of the instance running a full review, mid-way (issue 19): three instances as
 * separate processes on one Postgres, a real OpenAI-compatible server answering slowly.
 * Another instance takes the run over once its lease lapses and finishes it; a client
 * following the run on a third instance sees it to `done`; the model is never asked again
 * a step that had been answered (the step cache holds it). Needs TEST_DATABASE_URL.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshPostgres } from "../helpers/app.js";
import { startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { answerFor } from "../core/review/e2e-helpers.js";
import type { SpecDoc } from "../helpers/types.js";

const PG = process.env.TEST_DATABASE_URL;
const ROOT = resolve(import.meta.dirname, "../..");
const CHECKOUT = readFileSync(resolve(ROOT, "fixtures/review/checkout/spec.md"), "utf8");

interface Child {
  proc: ChildProcess;
  url: string;
  worker: string;
}

function startChild(env: Record<string, string>): Promise<Child> {
  const proc = spawn(
    process.execPath,
    ["--import", "tsx", resolve(import.meta.dirname, "instance-main.ts")],
    {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  return new Promise((ok, fail) => {
    const lines = createInterface({ input: proc.stdout });
    lines.once("line", (line) => ok({ proc, ...(JSON.parse(line) as { url: string; worker: string }) }));
    proc.once("exit", (code) => fail(new Error(`instance exited with ${code} before listening`)));
  });
}

async function call<T>(base: string, method: string, path: string, body?: unknown): Promise<T> {
  const init: RequestInit = { method };
  if (body instanceof FormData) init.body = body;
  else if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { "content-type": "application/json" };
  }
  const res = await fetch(`${base}/api/v1${path}`, init);
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

describe.skipIf(!PG)("kill -9 of the instance running a review", () => {
  let pg: { url: string; drop: () => Promise<void> };
  let fake: FakeOpenAI;
  const children: Child[] = [];

  beforeAll(async () => {
    pg = await freshPostgres();
    // Slow answers: the run is mid-way for seconds.
    fake = await startFakeOpenAI({ handler: (req) => ({ ...answerFor(req), delayMs: 250 }) });
    const env = { DATABASE_URL: pg.url, SPEC_REVIEW_SECRET_KEY: randomBytes(32).toString("base64") };
    // One first (it migrates), then two more at once (they find the migrations done).
    children.push(await startChild(env));
    children.push(...(await Promise.all([startChild(env), startChild(env)])));
  }, 120_000);
  afterAll(async () => {
    for (const c of children)
      if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill("SIGTERM");
    await Promise.all(
      children.map((c) =>
        c.proc.exitCode === null && c.proc.signalCode === null
          ? new Promise((r) => c.proc.once("exit", r))
          : Promise.resolve(),
      ),
    );
    await fake?.close();
    await pg?.drop();
  });

  it("another instance finishes the run, the stream on a third ends with done, no answered step is asked again", async () => {
    const [a] = children;
    const form = new FormData();
    form.append("text", CHECKOUT);
    form.append("name", "checkout");
    const imported = await call<{ items: Array<{ docs: SpecDoc[] }> }>(
      a!.url,
      "POST",
      "/bundles/import",
      form,
    );
    const doc = imported.items[0]!.docs[0]!;
    const backend = await call<{ id: string }>(a!.url, "POST", "/admin/backends", {
      kind: "provider_1",
      name: "fake",
      base_url: fake.baseUrl,
      secret: "sk-test-0000",
    });
    for (const role of ["reviewer", "reader", "judge"])
      await call(a!.url, "PUT", `/admin/roles/${role}`, { backend_id: backend.id, model: `${role}-model` });
    const run = await call<{ id: string }>(a!.url, "POST", `/docs/${doc.id}/runs`);

    // Who holds it: the run's worker, as the database says.
    const { default: postgres } = await import("postgres");
    const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
    let holder: Child | undefined;
    for (let i = 0; i < 200 && !holder; i++) {
      const [row] = await sql<
        Array<{ worker: string | null }>
      >`select worker from review_runs where run_id = ${run.id}`;
      holder = children.find((c) => c.worker === row?.worker);
      if (!holder) await new Promise((r) => setTimeout(r, 50));
    }
    expect(holder, "a worker claimed the run").toBeDefined();
    const follower = children.find((c) => c !== holder)!;
    const stream = fetch(`${follower.url}/api/v1/runs/${run.id}/events`).then((r) => r.text());

    // Mid-way: some steps answered, others not yet. A step is finished once the holder kept
    // its answer (the step cache); give it a moment to, on this busy machine, then kill it.
    // A kept answer names its step only when no other reply had the same text: sections
    // with no requirement ID all answer `{"questions":[]}`, so one of them being kept says
    // nothing of the others. Wait for a few replies, one of them unlike the rest.
    const once = () => {
      const seen = new Map<string, number>();
      for (const r of fake.replies) seen.set(r.content, (seen.get(r.content) ?? 0) + 1);
      return (r: { content: string }) => seen.get(r.content) === 1;
    };
    while (fake.replies.length < 3 || !fake.replies.some(once())) await new Promise((r) => setTimeout(r, 20));
    const snapshot = [...fake.replies];
    let kept = new Set<string>();
    for (let i = 0; i < 60; i++) {
      const rows = await sql<Array<{ answer: string }>>`select answer from step_cache`;
      kept = new Set(rows.map((r) => r.answer));
      if (snapshot.every((r) => kept.has(r.content))) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const askedBeforeKill = fake.completions.length;
    holder!.proc.kill("SIGKILL");
    const unique = once();
    const answered = new Set(
      snapshot.filter((r) => kept.has(r.content) && unique(r)).map((r) => r.request.text),
    );
    expect(answered.size).toBeGreaterThan(0);
    const killedAt = Date.now();

    const text = await stream;
    const events = text
      .split("\n\n")
      .map((chunk) => /^event: (.+)$/m.exec(chunk)?.[1])
      .filter((e): e is string => e !== undefined);
    expect(events).toContain("requeued");
    expect(events.at(-1)).toBe("done");
    const [end] = await sql<Array<{ status: string; attempts: number; worker: string }>>`
      select r.status, rr.attempts, rr.worker from runs r join review_runs rr on rr.run_id = r.id where r.id = ${run.id}`;
    await sql.end();
    expect(end).toMatchObject({ status: "done", attempts: 2 });
    expect(end!.worker).not.toBe(holder!.worker);
    // Taken over within the lease (1.5 s) and its sweep (every 0.75 s), then finished.
    const after = fake.completions.slice(askedBeforeKill);
    expect(after.length).toBeGreaterThan(0);
    const before = fake.completions.slice(0, askedBeforeKill);
    const desc = (r: (typeof after)[number]) =>
      `${r.body.model} ${r.body.response_format?.json_schema?.name} ${r.prompt.length} x${before.filter((b) => b.text === r.text).length}`;
    expect(after.filter((r) => answered.has(r.text)).map(desc)).toEqual([]);
    expect(Date.now() - killedAt).toBeLessThan(60_000);
    const final = await call<{ status: string; verdict: { kind: string } }>(
      follower.url,
      "GET",
      `/runs/${run.id}`,
    );
    expect(final).toMatchObject({ status: "done", verdict: { kind: "full" } });
  }, 120_000);
});
