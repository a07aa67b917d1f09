/**
 * npm run bench:app
 *
 * Reading a large repository (issue 30): a repohost source of N bundles (default 5,000;
 * each a PRD and four assets, about 20 KB, so about 25,000 files and 100 MB) from the
 * local fake GitHub API over HTTP (test/helpers/fake-github.ts), whose archives are real
 * (`git archive --format=tar.gz`), on the real service graph (hosted mode, embedded
 * PGlite). Every request to the fake is counted, the archive's redirect included:
 *
 *   1. the first read (POST /repohost/sources): calls (aim <= 5), time to every bundle
 *      listed and to every doc linted, and peak memory over idle (aim <= 150 MB);
 *   2. the same tree served from a local folder (`serve`): the same two times; the
 *      repohost ones are within 2x of these (aim);
 *   3. a push of 3 commits, each touching one bundle: aim <= 5 calls + 1 per bundle;
 *   4. a sync with nothing new: aim 1 call.
 *
 * The aims are checked: a missed one exits with status 1.
 *
 * Options: --bundles N (5000), --touched N (3), --seed S (30).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { randomBytes } from "node:crypto";
import type { OpenAPIHono } from "@hono/zod-openapi";
import { createApp } from "../server/app.js";
import { localAuthenticator } from "../server/auth/actor.js";
import { createServices, type Services } from "../server/services.js";
import { FakeGitHub } from "../test/helpers/fake-github.js";
import { runReconcileBench } from "./app-reconcile.js";

const { values } = parseArgs({
  options: {
    bundles: { type: "string", default: "5000" },
    touched: { type: "string", default: "3" },
    seed: { type: "string", default: "30" },
  },
});
const BUNDLES = Number(values.bundles);
const TOUCHED = Number(values.touched);

/** A small seeded generator (mulberry32): the same repository every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = rng(Number(values.seed));
// A pool of incompressible-ish 1 KB chunks: files are assembled from them, each with its own header.
const POOL = Array.from({ length: 512 }, () =>
  Buffer.from(Array.from({ length: 768 }, () => Math.floor(rand() * 256))).toString("base64"),
);
const chunks = (kb: number) =>
  Array.from({ length: kb }, () => POOL[Math.floor(rand() * POOL.length)]).join("\n");
const WORDS = "search results latency users filter saved query index page sort export share team alert".split(
  " ",
);
const sentence = () =>
  Array.from({ length: 12 }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(" ") + ".";

function prd(i: number, extra = ""): string {
  return [
    "---",
    "type: prd",
    "size: small",
    `title: Feature ${i}`,
    "---",
    `# Feature ${i}`,
    "",
    "## Problem",
    "",
    `Users of area ${i} wait too long for search results (p95 ${1000 + i} ms). ${sentence()} ${sentence()}`,
    "",
    "## Goals",
    "",
    `- F${i}-1: Results MUST appear within 300 ms at p95.`,
    `- F${i}-2: ${sentence()}`,
    extra,
    "",
    "## Notes",
    "",
    ...Array.from({ length: 12 }, sentence),
    "",
  ].join("\n");
}

const slug = (i: number) => `specs/f${String(i).padStart(5, "0")}`;

function tree(): Record<string, string> {
  const files: Record<string, string> = { "README.md": "# Specs\n" };
  for (let i = 0; i < BUNDLES; i++) {
    files[`${slug(i)}/prd.md`] = prd(i);
    files[`${slug(i)}/diagram.svg`] = `<svg><!-- ${i} -->\n${chunks(5)}\n</svg>\n`;
    files[`${slug(i)}/data.json`] = JSON.stringify({ i, rows: chunks(5) });
    files[`${slug(i)}/notes.txt`] = `notes ${i}\n${chunks(4)}\n`;
    files[`${slug(i)}/image.b64`] = `${i}\n${chunks(4)}\n`;
  }
  return files;
}

type App = OpenAPIHono<never>;
async function req(app: App, method: string, path: string, body?: unknown) {
  const res = await app.request(`/api/v1${path}`, {
    method,
    headers: { "content-type": "application/json" },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

interface BundlePage {
  items: Array<{
    docs: Array<{
      current_version: { number: number };
      verdict?: { version_number: number };
      run_error?: string;
    }>;
  }>;
  next_cursor?: string;
}

/** Bundles listed, and docs whose current version has its lint run. */
async function census(app: App): Promise<{ bundles: number; linted: number }> {
  let bundles = 0;
  let linted = 0;
  let cursor: string | undefined;
  do {
    const page = (await req(
      app,
      "GET",
      `/bundles?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    )) as unknown as BundlePage;
    for (const b of page.items) {
      bundles++;
      const d = b.docs[0]!;
      if (d.verdict?.version_number === d.current_version.number || d.run_error !== undefined) linted++;
    }
    cursor = page.next_cursor;
  } while (cursor);
  return { bundles, linted };
}

/** Milliseconds from `since` until every bundle is listed, and until every doc is linted. */
async function untilDone(app: App, since: number): Promise<{ listed: number; linted: number }> {
  let listed: number | undefined;
  for (const deadline = performance.now() + 30 * 60_000; performance.now() < deadline;) {
    const c = await census(app);
    if (listed === undefined && c.bundles >= BUNDLES) listed = performance.now() - since;
    if (c.bundles >= BUNDLES && c.linted >= BUNDLES)
      return { listed: listed!, linted: performance.now() - since };
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error("not every doc was linted within 30 minutes");
}

/** Peak resident memory while `run` runs (sampled every 20 ms). */
async function peakDuring<T>(run: () => Promise<T>): Promise<{ out: T; peak: number }> {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  try {
    const out = await run();
    return { out, peak: Math.max(peak, process.memoryUsage().rss) };
  } finally {
    clearInterval(timer);
  }
}

const mb = (b: number) => (b / 1024 / 1024).toFixed(0);
const gc = (globalThis as { gc?: () => void }).gc;

const t0 = performance.now();
const gh = new FakeGitHub();
await gh.start();
const repo = gh.addRepo("acme", "specs");
const files = tree();
gh.commit(repo, files, { message: "Import specs" });
const bytes = Object.values(files).reduce((n, t) => n + Buffer.byteLength(t), 0);
console.log(
  `repository: ${BUNDLES} bundles, ${Object.keys(files).length} files, ${mb(bytes)} MB (made in ${((performance.now() - t0) / 1000).toFixed(1)} s)`,
);
// The archive is made once, before anything is timed (GitHub's is ready when asked).
await gh.archives.archive(
  {
    owner: "acme",
    name: "specs",
    sha: repo.branches.get("main")!,
    files: repo.commits.get(repo.branches.get("main")!)!.files,
  },
  (await import("../test/helpers/fake-github.js")).gitBlobSha,
);

const work = mkdtempSync(join(tmpdir(), "bench-app-"));
const failures: string[] = [];
const aim = (ok: boolean, what: string) => {
  if (!ok) failures.push(what);
  return ok ? "met" : "MISSED";
};

// ------------------------------------------------------------------ repohost
const services: Services = await createServices({
  mode: "hosted",
  database: join(work, "hosted-db"),
  secretKey: randomBytes(32),
  auth: localAuthenticator(),
  catchUp: true,
  repohost: { apiUrl: `${gh.url}/api/v3` },
});
const app = createApp(services) as unknown as App;
gh.tokens.set("ghp_bench_token_0000", "bench");
await req(app, "PUT", "/admin/repohost", { token: "ghp_bench_token_0000" });

gc?.();
await new Promise((r) => setTimeout(r, 500));
const idle = process.memoryUsage().rss;
let from = gh.calls.length;
const tFirst = performance.now();
const { out: first, peak } = await peakDuring(async () => {
  const src = await req(app, "POST", "/repohost/sources", { url: "acme/specs" });
  console.log(`POST /repohost/sources answered after ${((performance.now() - tFirst) / 1000).toFixed(1)} s`);
  const done = await untilDone(app, tFirst);
  return { src, done };
});
const firstCalls = gh.since(from);
const id = first.src["id"] as string;
const growth = peak - idle;

from = gh.calls.length;
for (let i = 0; i < TOUCHED; i++) {
  const n = Math.floor((i * BUNDLES) / TOUCHED);
  gh.commit(repo, { [`${slug(n)}/prd.md`]: prd(n, "- Edited in a push.") }, { message: `Touch spec ${n}` });
}
let t = performance.now();
await req(app, "POST", `/repohost/sources/${id}/sync`);
const incMs = performance.now() - t;
const incCalls = gh.since(from);
from = gh.calls.length;
t = performance.now();
await req(app, "POST", `/repohost/sources/${id}/sync`);
const idleMs = performance.now() - t;
const idleCalls = gh.since(from);
await services.close();

// ------------------------------------------------------------------ serve on a local folder
const folder = join(work, "folder");
for (const [p, text] of Object.entries(files)) {
  const path = join(folder, p);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}
const tServe = performance.now();
const local = await createServices({
  mode: "local",
  folder,
  database: join(work, "local-db"),
  secretKey: randomBytes(32),
  auth: localAuthenticator(),
  catchUp: true,
});
const serve = await untilDone(createApp(local) as unknown as App, tServe);
await local.close();
await gh.stop();
rmSync(work, { recursive: true, force: true });

const kinds = (calls: ReadonlyArray<{ path: string; status: number }>) => {
  const by = new Map<string, number>();
  for (const c of calls) {
    const k = `${c.path
      .replace(/\?.*$/, "")
      .replace(/[0-9a-f]{40}/g, "<sha>")
      .replace(/^\/repos\/acme\/specs/, "")} ${c.status}`;
    by.set(k, (by.get(k) ?? 0) + 1);
  }
  return [...by].map(([k, n]) => `    ${String(n).padStart(5)}  ${k}`).join("\n");
};
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const listedRatio = first.done.listed / serve.listed;
const lintedRatio = first.done.linted / serve.linted;
console.log(`\nfirst read: ${firstCalls.length} calls\n${kinds(firstCalls)}`);
console.log(
  `push of ${TOUCHED} commits touching ${TOUCHED} bundles: ${incCalls.length} calls\n${kinds(incCalls)}`,
);
console.log(`nothing new: ${idleCalls.length} call\n${kinds(idleCalls)}`);
console.log(
  [
    "",
    `first read calls:         ${firstCalls.length} (aim <= 5: ${aim(firstCalls.length <= 5, "first read calls")})`,
    `every bundle listed:      ${s(first.done.listed)} vs serve ${s(serve.listed)} = ${listedRatio.toFixed(2)}x (aim <= 2x: ${aim(listedRatio <= 2, "listed ratio")})`,
    `every doc linted:         ${s(first.done.linted)} vs serve ${s(serve.linted)} = ${lintedRatio.toFixed(2)}x (aim <= 2x: ${aim(lintedRatio <= 2, "linted ratio")})`,
    `peak memory over idle:    ${mb(growth)} MB (idle ${mb(idle)} MB, peak ${mb(peak)} MB; aim <= 150 MB: ${aim(growth <= 150 * 1024 * 1024, "memory")})`,
    `incremental push:         ${incCalls.length} calls, ${s(incMs)} (aim <= ${5 + TOUCHED}: ${aim(incCalls.length <= 5 + TOUCHED, "incremental calls")})`,
    `nothing new:              ${idleCalls.length} call, ${idleMs.toFixed(0)} ms (aim 1: ${aim(idleCalls.length === 1, "unchanged calls")})`,
  ].join("\n"),
);
// 3. Reconciliation after an outage (bench/app-reconcile.ts): 20 pushes and 5 new pull requests missed.
const rec = await runReconcileBench({ bundles: 50, pushes: 20, pulls: 5 });
console.log("\nreconciliation after an outage of 20 pushes and 5 new pull requests:");
for (const [name, f] of [
  ["deliveries kept by GitHub", rec.withDeliveries],
  ["deliveries gone (safety net)", rec.safetyNet],
] as const) {
  const ok = f.passCounted <= f.aim && f.inStep && !f.duplicates;
  console.log(
    `  ${name}: the pass ${f.passCalls} calls (${f.passCounted} counted by GitHub; aim <= ${f.aim}: ${aim(ok, `reconcile (${name})`)}), ${f.redelivered} redelivered, ${f.checks} checks, in step: ${f.inStep ? "yes" : "no"}, duplicates: ${f.duplicates ? "yes" : "none"}`,
  );
}
if (failures.length > 0) {
  console.error(`\nmissed: ${failures.join(", ")}`);
  process.exit(1);
}
