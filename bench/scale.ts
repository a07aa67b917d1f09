/**
 * npm run bench:scale
 *
 * Hosted instances on one Postgres (issue 19), in one run:
 *   1. measures, on one instance: transactions (statements outside explicit transactions,
 *      each its own) per save and per full review (a real local OpenAI-compatible server),
 *      and the rows and bytes the database holds per bundle, version and run;
 *   2. loads one instance with autocannon, mixed reads and saves (per connection, in turn:
 *      6 x GET /bundles?limit=50, 2 x GET /docs/{id}, 1 x GET the doc's file, 1 x PUT a save
 *      with base_version kept current);
 *   3. starts two more instances and loads the three at once (the connections spread
 *      over them, as a load balancer would), the same mix;
 * and prints throughput, p50, p99 and errors of each load. On 2 cores the figure that
 * matters is no errors and no p99 blow-up with three, not a speed-up.
 *
 * Options: --seconds N (10 per load), --connections N (12), --bundles N (200).
 * Database: BENCH_DATABASE_URL or TEST_DATABASE_URL (a new database is made and dropped).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import postgres from "postgres";
import { quantile } from "./lib/load.js";
import { startFakeOpenAI, type RecordedRequest } from "../test/helpers/fake-openai.js";
import { scriptedAnswer } from "../test/core/review/scripted-model.js";

/** The scripted review model of the tests: a valid answer for each stage's schema. */
function answerFor(req: RecordedRequest) {
  const rf = req.body.response_format?.json_schema;
  return { json: scriptedAnswer(rf?.name ?? "", req.prompt, rf?.schema) };
}

const ROOT = resolve(import.meta.dirname, "..");
const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "10" },
    connections: { type: "string", default: "12" },
    bundles: { type: "string", default: "200" },
  },
});
const SECONDS = Number(values.seconds);
const CONNECTIONS = Number(values.connections);
const BUNDLES = Number(values.bundles);
const BASE =
  process.env.BENCH_DATABASE_URL ??
  process.env.TEST_DATABASE_URL ??
  "postgres://postgres@127.0.0.1:5432/test";

const RFC = readFileSync(resolve(ROOT, "fixtures/review/checkout/spec.md"), "utf8");

interface Instance {
  proc: ChildProcess;
  url: string;
}

function startInstance(env: Record<string, string>): Promise<Instance> {
  const proc = spawn(process.execPath, ["--import", "tsx", resolve(ROOT, "test/scale/instance-main.ts")], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((ok, fail) => {
    createInterface({ input: proc.stdout }).once("line", (line) =>
      ok({ proc, url: (JSON.parse(line) as { url: string }).url }),
    );
    proc.once("exit", (code) => fail(new Error(`instance exited with ${code}`)));
  });
}

async function api<T>(base: string, method: string, path: string, body?: unknown): Promise<T> {
  const init: RequestInit = { method };
  if (body instanceof FormData || typeof body === "string") init.body = body;
  else if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { "content-type": "application/json" };
  }
  const res = await fetch(`${base}/api/v1${path}`, init);
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

interface Doc {
  id: string;
  path: string;
  base: string;
}

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  errors: number;
  non2xx: Record<string, number>;
}

/** One autocannon per instance at once, connections split among them; latencies pooled. */
async function loadMixed(targets: Instance[], docs: Doc[]): Promise<Figures> {
  const times: number[] = [];
  const statuses: Record<string, number> = {};
  let errors = 0;
  let next = 0;
  let serial = 0;
  const per = Math.max(1, Math.round(CONNECTIONS / targets.length));
  const pick = () => docs[next++ % docs.length]!;
  const results = await Promise.all(
    targets.map(
      (t) =>
        new Promise<autocannon.Result>((ok, ko) => {
          const requests: autocannon.Request[] = [
            ...Array.from({ length: 6 }, () => ({
              method: "GET" as const,
              path: "/api/v1/bundles?limit=50",
            })),
            ...Array.from({ length: 2 }, () => ({
              method: "GET" as const,
              setupRequest: (req: autocannon.Request) => ({ ...req, path: `/api/v1/docs/${pick().id}` }),
            })),
            {
              method: "GET" as const,
              setupRequest: (req: autocannon.Request) => {
                const d = pick();
                return {
                  ...req,
                  path: `/api/v1/docs/${d.id}/files/content?path=${encodeURIComponent(d.path)}`,
                };
              },
            },
            {
              method: "PUT" as const,
              setupRequest: (req: autocannon.Request, context: object) => {
                const d = pick();
                (context as { doc?: Doc }).doc = d;
                return {
                  ...req,
                  path: `/api/v1/docs/${d.id}/files/content?path=${encodeURIComponent(d.path)}&base_version=${d.base}`,
                  headers: { "content-type": "text/markdown" },
                  body: `${RFC}\nSave ${serial++}.\n`,
                };
              },
              onResponse: (status: number, body: string, context: object) => {
                const d = (context as { doc: Doc }).doc;
                if (status === 200 || status === 201)
                  d.base = (JSON.parse(body) as { version: { id: string } }).version.id;
                else if (status === 409) {
                  const p = JSON.parse(body) as { current_version?: { id: string } };
                  if (p.current_version?.id) d.base = p.current_version.id;
                }
              },
            },
          ];
          const inst = autocannon(
            { url: t.url, connections: per, duration: SECONDS, requests, timeout: 10 },
            (err, res) => (err ? ko(err instanceof Error ? err : new Error(String(err))) : ok(res)),
          );
          inst.on("response", (_c: unknown, status: number, _b: number, ms: number) => {
            times.push(ms);
            statuses[status] = (statuses[status] ?? 0) + 1;
          });
          inst.on("reqError", () => errors++);
        }),
    ),
  );
  times.sort((a, b) => a - b);
  const non2xx = Object.fromEntries(Object.entries(statuses).filter(([s]) => !s.startsWith("2")));
  const requests = results.reduce((n, r) => n + r.requests.total, 0);
  return {
    rps: Math.round(requests / SECONDS),
    p50: quantile(times, 0.5),
    p99: quantile(times, 0.99),
    requests,
    errors: errors + results.reduce((n, r) => n + r.errors + r.timeouts, 0),
    non2xx,
  };
}

async function xacts(sql: postgres.Sql, db: string): Promise<number> {
  const [row] = await sql<Array<{ n: string }>>`
    select (xact_commit + xact_rollback)::text as n from pg_stat_database where datname = ${db}`;
  // The statistics collector reports with a delay; callers wait for it.
  return Number(row!.n);
}

async function settleStats(): Promise<void> {
  await new Promise((r) => setTimeout(r, 1200));
}

async function main(): Promise<void> {
  const name = `sr_bench_${Date.now().toString(36)}`;
  const admin = postgres(BASE, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(BASE);
  url.pathname = `/${name}`;
  const env = {
    DATABASE_URL: url.toString(),
    SPEC_REVIEW_SECRET_KEY: randomBytes(32).toString("base64"),
    LEASE_MS: "30000",
    HEARTBEAT_MS: "5000",
  };
  const sql = postgres(url.toString(), { max: 1, onnotice: () => {} });
  const fake = await startFakeOpenAI({ handler: answerFor });
  const instances: Instance[] = [];
  try {
    const a = await startInstance(env);
    instances.push(a);

    // ---- 1. Bundles, and what one save and one review cost the database.
    process.stdout.write(`seeding ${BUNDLES} bundles…\n`);
    const docs: Doc[] = [];
    for (let i = 0; i < BUNDLES; i++) {
      const d = await api<{ id: string; path: string; current_version: { id: string } }>(
        a.url,
        "POST",
        "/bundles",
        {
          profile: "prd",
          name: `bench/spec-${String(i).padStart(4, "0")}`,
        },
      );
      docs.push({ id: d.id, path: d.path, base: d.current_version.id });
    }
    await new Promise((r) => setTimeout(r, 2000)); // the first lint of each
    await settleStats();
    const saves = 20;
    const before = await xacts(sql, name);
    for (let i = 0; i < saves; i++) {
      const d = docs[i]!;
      const r = await api<{ version: { id: string } }>(
        a.url,
        "PUT",
        `/docs/${d.id}/files/content?path=${encodeURIComponent(d.path)}&base_version=${d.base}`,
        `${RFC}\nMeasured save ${i}.\n`,
      );
      d.base = r.version.id;
    }
    await new Promise((r) => setTimeout(r, 1500)); // each save's lint run
    await settleStats();
    const perSave = ((await xacts(sql, name)) - before) / saves;

    const backend = await api<{ id: string }>(a.url, "POST", "/admin/backends", {
      kind: "provider_1",
      name: "fake",
      base_url: fake.baseUrl,
      secret: "sk-bench-0000",
    });
    for (const role of ["reviewer", "reader", "judge"])
      await api(a.url, "PUT", `/admin/roles/${role}`, { backend_id: backend.id, model: `${role}-model` });
    await settleStats();
    const beforeReview = await xacts(sql, name);
    const run = await api<{ id: string }>(a.url, "POST", `/docs/${docs[0]!.id}/runs`);
    for (;;) {
      const r = await api<{ status: string }>(a.url, "GET", `/runs/${run.id}`);
      if (r.status === "done" || r.status === "failed") break;
      await new Promise((res) => setTimeout(res, 100));
    }
    await settleStats();
    const perReview = (await xacts(sql, name)) - beforeReview;
    const modelCalls = fake.completions.length;

    const sizes = await sql<Array<{ table: string; rows: string; bytes: string }>>`
      select c.relname as table, c.reltuples::bigint::text as rows, pg_total_relation_size(c.oid)::text as bytes
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind = 'r' order by pg_total_relation_size(c.oid) desc`;
    await sql`analyze`;
    const counts = await sql<Array<{ bundles: string; versions: string; runs: string; events: string }>>`
      select (select count(*) from bundles)::text as bundles, (select count(*) from versions)::text as versions,
             (select count(*) from runs)::text as runs, (select count(*) from run_events)::text as events`;
    const exact = await Promise.all(
      sizes.slice(0, 12).map(async (s) => {
        const [r] = await sql.unsafe<Array<{ n: string }>>(`select count(*)::text as n from "${s.table}"`);
        return { ...s, rows: r!.n };
      }),
    );

    // ---- 2. and 3. Load: one instance, then three.
    const one = await loadMixed([a], docs);
    instances.push(...(await Promise.all([startInstance(env), startInstance(env)])));
    const three = await loadMixed(instances, docs);

    const c = counts[0]!;
    const out: string[] = [];
    out.push(
      `\nbench:scale — ${BUNDLES} bundles, ${CONNECTIONS} connections, ${SECONDS} s per load, Postgres ${BASE.replace(/\/\/[^@]*@/, "//")}`,
    );
    out.push(`\nper save: ${perSave.toFixed(1)} transactions (save, its lint run, notices)`);
    out.push(`per full review: ${perReview} transactions, ${modelCalls} model calls`);
    out.push(`held: ${c.bundles} bundles, ${c.versions} versions, ${c.runs} runs, ${c.events} run events`);
    out.push("\ntable                      rows      bytes   bytes/row");
    for (const s of exact)
      out.push(
        `${s.table.padEnd(24)} ${s.rows.padStart(6)} ${String(Math.round(Number(s.bytes) / 1024)).padStart(8)} kB ${String(Number(s.rows) > 0 ? Math.round(Number(s.bytes) / Number(s.rows)) : "-").padStart(9)}`,
      );
    out.push(
      "\nload (mixed: 60% list, 30% doc reads, 10% saves)   req/s    p50 ms   p99 ms   errors   non-2xx",
    );
    for (const [label, f] of [
      ["one instance", one],
      ["three instances", three],
    ] as const)
      out.push(
        `${label.padEnd(50)} ${String(f.rps).padStart(6)} ${f.p50.toFixed(1).padStart(9)} ${f.p99.toFixed(1).padStart(8)} ${String(f.errors).padStart(8)}   ${JSON.stringify(f.non2xx)}`,
      );
    process.stdout.write(out.join("\n") + "\n");
  } finally {
    for (const i of instances) i.proc.kill("SIGTERM");
    await Promise.all(
      instances.map((i) => new Promise((r) => (i.proc.exitCode !== null ? r(null) : i.proc.once("exit", r)))),
    );
    await fake.close();
    await sql.end();
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

await main();
