/**
 * npm run bench:store
 *
 * Serves a generated folder of 1,000 bundles with the real server (`node dist/cli/main.js
 * serve`, a subprocess; built first when dist/ is missing or older than the sources) and,
 * in one run:
 *   1. times the first 200 answer of GET /api/v1/bundles after spawn, on a fresh data dir
 *      (the initial scan records 1,000 versions) and after a restart on the same data dir;
 *   2. loads GET /api/v1/bundles (the default page, and limit=500) with autocannon;
 *   3. loads PUT /docs/{docId}/files/content with a 10 KB spec doc, each request a valid
 *      save (round robin over the 1,000 docs, base_version kept current from the answers);
 *   4. loads a bare Hono route (`GET /x` -> {ok:true}, also a subprocess) the same way;
 *   5. times GET /docs/{docId} (one connection, one request at a time) idle, and while the
 *      server re-lints the 400 bundles whose profile just changed (PUT /profiles/prd; the
 *      other bundles are given another type before the first start);
 * and prints each p50/p99 beside the bare route's, with the ratios.
 * Aims: first start (spawn -> first 200 listing every bundle) under 5 s; GET /bundles p99
 * within 5x of the bare route's p99; a save under 10 ms p50; GET /docs/{docId} during
 * the re-lint within 2x of idle.
 *
 * Options: --bundles N (1000), --seconds N (10 per load), --connections N (10),
 *   --kb N (size of the generated spec docs, 4), --cpu-prof (profile the server under
 *   load and print its hot spots; profiles kept under tmp/), --keep (keep the folder).
 */
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import type autocannon from "autocannon";
import { packageRoot } from "../server/paths.js";
import { generateCorpus, rng, specDoc } from "./lib/corpus.js";
import { load, statusText, warmUp, type LoadFigures } from "./lib/load.js";
import { freePort, killAll, start, stop, waitFor200, type Child } from "./lib/proc.js";
import { categories, profileClock, summarize } from "./lib/profile.js";

const { values } = parseArgs({
  options: {
    bundles: { type: "string", default: "1000" },
    seconds: { type: "string", default: "10" },
    connections: { type: "string", default: "10" },
    kb: { type: "string", default: "4" },
    "cpu-prof": { type: "boolean", default: false },
    keep: { type: "boolean", default: false },
  },
});
const BUNDLES = Number(values.bundles);
const SECONDS = Number(values.seconds);
const CONNECTIONS = Number(values.connections);
const KB = Number(values.kb);
for (const [name, v] of [
  ["--bundles", BUNDLES],
  ["--seconds", SECONDS],
  ["--connections", CONNECTIONS],
  ["--kb", KB],
] as const)
  if (!Number.isInteger(v) || v < 1) {
    process.stderr.write(`bench:store: ${name} must be a whole number of at least 1\n`);
    process.exit(2);
  }

const root = packageRoot();
const log = (line: string) => process.stderr.write(`${line}\n`);

// ------------------------------------------------------------------- build

function newestSource(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestSource(p));
    else if (e.name.endsWith(".ts")) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

function ensureBuilt(): void {
  const main = join(root, "dist", "cli", "main.js");
  const sources = Math.max(...["cli", "core", "server"].map((d) => newestSource(join(root, d))));
  if (existsSync(main) && statSync(main).mtimeMs >= sources) return;
  log("building dist/ (npm run build) ...");
  const r = spawnSync("npm", ["run", "build"], { cwd: root, encoding: "utf8" });
  if (r.status !== 0) {
    if (!existsSync(main)) throw new Error(`npm run build failed:\n${r.stdout}${r.stderr}`);
    log(
      `npm run build reported errors (tsc still emitted); benchmarking dist/ as built:\n${r.stdout.slice(-2000)}`,
    );
  }
}

// ------------------------------------------------------------------ server

interface Served {
  child: Child;
  base: string;
  /** performance.now() at the spawn. */
  spawned: number;
  spawnToFirst200: number;
}

async function startServer(folder: string, profDir?: string): Promise<Served> {
  const port = await freePort();
  const args = [
    ...(profDir ? ["--cpu-prof", `--cpu-prof-dir=${profDir}`] : []),
    join(root, "dist", "cli", "main.js"),
    "serve",
    folder,
    "--port",
    String(port),
  ];
  const env = { ...process.env };
  delete env.DATABASE_URL; // the embedded database, in the data dir
  const t0 = performance.now();
  const child = start(process.execPath, args, { cwd: root, env });
  const base = `http://127.0.0.1:${port}/api/v1`;
  const spawnToFirst200 = await waitFor200(`${base}/bundles`, child, t0);
  return { child, base, spawned: t0, spawnToFirst200 };
}

async function stopServer(s: Child): Promise<void> {
  const t = performance.now();
  const code = await stop(s, 120_000);
  const took = performance.now() - t;
  if (code !== 0) log(`warning: the server exited with ${code} on SIGTERM`);
  if (took > 2000) log(`note: the server took ${(took / 1000).toFixed(1)} s to stop on SIGTERM`);
}

interface DocRef {
  docId: string;
  base: string;
  /** The current version has its lint run (a verdict or a run error). */
  linted: boolean;
}

interface BundlePage {
  items: Array<{
    docs: Array<{
      id: string;
      current_version: { id: string; number: number };
      verdict?: { version_number: number };
      run_error?: string;
    }>;
  }>;
  next_cursor?: string;
}

async function listDocs(base: string): Promise<DocRef[]> {
  const out: DocRef[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const url = `${base}/bundles?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const res = await fetch(url, { signal: AbortSignal.timeout(60_000) });
    if (res.status !== 200) throw new Error(`GET /bundles answered ${res.status}: ${await res.text()}`);
    const body = (await res.json()) as BundlePage;
    for (const b of body.items) {
      const d = b.docs[0]!;
      out.push({
        docId: d.id,
        base: d.current_version.id,
        linted: d.verdict?.version_number === d.current_version.number || d.run_error !== undefined,
      });
    }
    cursor = body.next_cursor;
    if (!cursor) return out;
  }
  throw new Error("GET /bundles kept giving next_cursor");
}

/**
 * After a start the server lints every doc without a run in the background; wait (bounded)
 * until each current version has its run, so that the loads do not compete with it.
 * Returns the milliseconds since `since`.
 */
async function waitLinted(
  base: string,
  expected: number,
  since: number,
  timeoutMs = 600_000,
): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  let linted = 0;
  while (performance.now() < deadline) {
    const docs = await listDocs(base);
    linted = docs.filter((d) => d.linted).length;
    if (docs.length === expected && linted === expected) return performance.now() - since;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`only ${linted} of ${expected} docs had a lint run after ${timeoutMs / 1000} s`);
}

// ------------------------------------------------------- reads during a re-lint

const RELINT = 400;

/** Give every bundle after the first `keep` another type, so a change of `prd` re-lints `keep` bundles. */
function retype(folder: string, slugs: readonly string[], docName: string, keep: number): void {
  for (const slug of slugs.slice(keep)) {
    const file = join(folder, slug, docName);
    writeFileSync(file, readFileSync(file, "utf8").replace(/^type: prd$/m, "type: api"));
  }
}

async function timedGet(url: string): Promise<number> {
  const t = performance.now();
  const res = await fetch(url, { signal: AbortSignal.timeout(60_000) });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}`);
  return performance.now() - t;
}

interface RunItem {
  kind: string;
  created_at: string;
  finished_at?: string;
}

async function lintRunsSince(base: string, docId: string, since: number): Promise<RunItem[]> {
  const res = await fetch(`${base}/docs/${docId}/runs?limit=10`, { signal: AbortSignal.timeout(60_000) });
  const body = (await res.json()) as { items: RunItem[] };
  return body.items.filter((r) => r.kind === "lint" && Date.parse(r.created_at) >= since);
}

/**
 * GET /docs/{docId} of a doc the re-lint covers, one request at a time: idle, then from
 * the profile change until its re-lint of every doc finished (the window's end is the
 * last re-lint run's finished_at).
 */
async function readsDuringRelint(
  base: string,
  relinted: readonly DocRef[],
): Promise<{ idle: number[]; during: number[]; relintMs: number }> {
  const url = `${base}/docs/${relinted[0]!.docId}`;
  for (let i = 0; i < 50; i++) await timedGet(url);
  const idle: number[] = [];
  for (let i = 0; i < 300; i++) idle.push(await timedGet(url));

  const profile = (await (await fetch(`${base}/profiles/prd`)).json()) as { yaml: string; template: string };
  const since = Date.now() - 5; // server and bench share the clock
  const res = await fetch(`${base}/profiles/prd`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      yaml: `${profile.yaml.trimEnd()}\n# bench:store re-lint\n`,
      template: profile.template,
      message: "bench:store re-lint",
    }),
  });
  if (res.status !== 200) throw new Error(`PUT /profiles/prd answered ${res.status}: ${await res.text()}`);
  const probes = relinted.filter((_, i) => i % Math.max(1, Math.floor(relinted.length / 10)) === 0);
  const samples: Array<{ at: number; ms: number }> = [];
  let checked = Date.now();
  while (Date.now() - since < 300_000) {
    const at = Date.now();
    samples.push({ at, ms: await timedGet(url) });
    if (Date.now() - checked < 500) continue;
    checked = Date.now();
    const done = await Promise.all(
      probes.map(async (d) => (await lintRunsSince(base, d.docId, since)).length > 0),
    );
    if (done.every(Boolean)) break;
  }
  let end = since;
  for (const d of relinted)
    for (const r of await lintRunsSince(base, d.docId, since))
      if (r.finished_at) end = Math.max(end, Date.parse(r.finished_at));
  return { idle, during: samples.filter((x) => x.at < end).map((x) => x.ms), relintMs: end - since };
}

function p50(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.ceil(0.5 * sorted.length) - 1]!;
}

function p99(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0
    ? NaN
    : sorted[Math.min(sorted.length - 1, Math.ceil(0.99 * sorted.length) - 1)]!;
}

// -------------------------------------------------------------------- saves

interface SaveCounts {
  ok: number;
  unchanged: number;
  conflicts: number;
  other: number;
}

/**
 * One autocannon request that saves the next doc in turn (10 KB, different each time) on
 * its current version, and takes the new version from the answer for the doc's next save.
 */
function saveRequests(docs: DocRef[], docName: string, counts: SaveCounts): autocannon.Request[] {
  const template = specDoc(rng(7), "Saved under load", "SAV", 10);
  let next = 0;
  let serial = 0;
  return [
    {
      method: "PUT",
      setupRequest: (req, context) => {
        const i = next++ % docs.length;
        const doc = docs[i]!;
        (context as { doc?: number }).doc = i;
        const body = Buffer.from(`${template}\nSave ${serial++} at ${Date.now()}.\n`);
        return {
          ...req,
          path: `/api/v1/docs/${doc.docId}/files/content?path=${docName}&base_version=${doc.base}`,
          headers: { "content-type": "application/octet-stream" },
          body,
        };
      },
      onResponse: (status, body, context) => {
        const doc = docs[(context as { doc: number }).doc]!;
        if (status === 200) {
          const r = JSON.parse(body) as { version: { id: string }; changed: boolean };
          doc.base = r.version.id;
          if (r.changed) counts.ok++;
          else counts.unchanged++;
        } else if (status === 409) {
          counts.conflicts++;
          const p = JSON.parse(body) as { current_version?: { id: string } };
          if (p.current_version?.id) doc.base = p.current_version.id;
        } else {
          counts.other++;
          if (counts.other <= 3) log(`save answered ${status}: ${body.slice(0, 300)}`);
        }
      },
    },
  ];
}

// -------------------------------------------------------------------- report

const ms = (v: number) => (v >= 100 ? v.toFixed(0) : v.toFixed(1)).padStart(8) + " ms";
const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(1)}x` : "-").padStart(7);

function row(label: string, ours: string, bare: string, r: string, aim: string): string {
  return `${label.padEnd(34)} ${ours.padStart(11)} ${bare.padStart(11)} ${r.padStart(7)}  ${aim}`;
}

// --------------------------------------------------------------------- main

async function main(): Promise<void> {
  ensureBuilt();
  mkdirSync(join(root, "tmp"), { recursive: true });
  const work = mkdtempSync(join(tmpdir(), "sr-bench-store-"));
  const profDir = values["cpu-prof"] ? mkdtempSync(join(root, "tmp", "bench-store-prof-")) : undefined;
  const cleanup = () => {
    killAll();
    if (!values.keep) rmSync(work, { recursive: true, force: true });
  };
  const onSignal = () => {
    cleanup();
    process.exit(130);
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    const folder = join(work, "bundles");
    mkdirSync(folder);
    let t = performance.now();
    const corpus = generateCorpus(folder, BUNDLES, KB);
    const relintCount = Math.min(RELINT, BUNDLES);
    retype(folder, corpus.slugs, corpus.docName, relintCount);
    log(
      `generated ${BUNDLES} bundles (${(corpus.bytes / 1024 / 1024).toFixed(1)} MB) in ${(performance.now() - t).toFixed(0)} ms under ${folder}`,
    );

    log("first start (fresh data dir, initial scan) ...");
    const first = await startServer(folder);
    const docs = await listDocs(first.base);
    if (docs.length !== BUNDLES)
      throw new Error(`GET /bundles lists ${docs.length} bundles, expected ${BUNDLES}`);
    const firstLinted = await waitLinted(first.base, BUNDLES, first.spawned);
    await stopServer(first.child);

    log("restart on the same data dir ...");
    const server = await startServer(folder, profDir);
    const restartLinted = await waitLinted(server.base, BUNDLES, server.spawned);

    log(`GET /docs/{docId} idle, then during a re-lint of ${relintCount} bundles (PUT /profiles/prd) ...`);
    const prdSlugs = new Set(corpus.slugs.slice(0, relintCount));
    const byDoc = await (async () => {
      const out: DocRef[] = [];
      let cursor: string | undefined;
      do {
        const res = await fetch(
          `${server.base}/bundles?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
        );
        const body = (await res.json()) as BundlePage & { items: Array<{ slug: string }> };
        for (const b of body.items)
          if (prdSlugs.has(b.slug))
            out.push({ docId: b.docs[0]!.id, base: b.docs[0]!.current_version.id, linted: true });
        cursor = body.next_cursor;
      } while (cursor);
      return out;
    })();
    const relint = await readsDuringRelint(server.base, byDoc);
    log(
      `  idle p50 ${p50(relint.idle).toFixed(1)} ms; during p50 ${p50(relint.during).toFixed(1)} ms (${relint.during.length} reads in ${(relint.relintMs / 1000).toFixed(1)} s of re-lint)`,
    );

    const barePort = await freePort();
    t = performance.now();
    const bare = start(
      process.execPath,
      ["--import", "tsx", join(root, "bench", "lib", "bare-server.ts"), String(barePort)],
      {
        cwd: root,
      },
    );
    const bareUrl = `http://127.0.0.1:${barePort}/x`;
    await waitFor200(bareUrl, bare, t, 60_000);

    const settings = { connections: CONNECTIONS, seconds: SECONDS };
    const windows: Array<{ name: string; from: number; to: number }> = [];
    const measure = async (name: string, opts: Parameters<typeof load>[0]): Promise<LoadFigures> => {
      log(`load: ${name} (${opts.connections} connections, ${opts.seconds} s) ...`);
      await warmUp(opts);
      const from = profileClock();
      const f = await load(opts);
      windows.push({ name, from, to: profileClock() });
      log(
        `  p50 ${f.p50} ms, p99 ${f.p99} ms, ${f.requests} requests (${statusText(f)}), ${f.errors} errors`,
      );
      return f;
    };

    const bareGet = await measure("bare Hono GET /x", { url: bareUrl, ...settings });
    const bundles50 = await measure("GET /bundles", { url: `${server.base}/bundles`, ...settings });
    const bundles500 = await measure("GET /bundles?limit=500", {
      url: `${server.base}/bundles?limit=500`,
      ...settings,
    });

    const counts: SaveCounts = { ok: 0, unchanged: 0, conflicts: 0, other: 0 };
    const current = await listDocs(server.base);
    const requests = saveRequests(current, corpus.docName, counts);
    const saves = await measure("PUT /files/content 10 KB", {
      url: server.base,
      method: "PUT",
      requests,
      ...settings,
    });
    const saves1 = await measure("PUT /files/content 10 KB, one connection", {
      url: server.base,
      method: "PUT",
      requests,
      ...settings,
      connections: 1,
    });
    const bareAgain = await measure("bare Hono GET /x (again, after the saves)", {
      url: bareUrl,
      ...settings,
    });

    await stopServer(server.child);
    await stop(bare);

    const lines = [
      "",
      `spec-review bench:store: ${BUNDLES} bundles, autocannon ${CONNECTIONS} connections x ${SECONDS} s per load, node ${process.version}`,
      "",
      row("", "ours", "bare Hono", "ratio", "aim"),
      row(
        "spawn -> first 200 GET /bundles",
        ms(first.spawnToFirst200),
        "",
        "",
        `< 5 s  ${first.spawnToFirst200 < 5000 ? "met" : "MISSED"} (first start: migrations + scan)`,
      ),
      row("  ... -> every doc linted", ms(firstLinted), "", "", "(lint catch-up in the background)"),
      row("  after a restart, same data dir", ms(server.spawnToFirst200), "", "", ""),
      row("  ... -> every doc linted", ms(restartLinted), "", "", ""),
      row(
        "GET /bundles (limit 50)  p50",
        ms(bundles50.p50),
        ms(bareGet.p50),
        ratio(bundles50.p50, bareGet.p50),
        "",
      ),
      row(
        "GET /bundles (limit 50)  p99",
        ms(bundles50.p99),
        ms(bareGet.p99),
        ratio(bundles50.p99, bareGet.p99),
        `<= 5x  ${bundles50.p99 <= 5 * bareGet.p99 ? "met" : "MISSED"}`,
      ),
      row(
        "GET /bundles?limit=500   p50",
        ms(bundles500.p50),
        ms(bareGet.p50),
        ratio(bundles500.p50, bareGet.p50),
        "",
      ),
      row(
        "GET /bundles?limit=500   p99",
        ms(bundles500.p99),
        ms(bareGet.p99),
        ratio(bundles500.p99, bareGet.p99),
        "",
      ),
      row(
        "PUT /files/content 10 KB p50",
        ms(saves.p50),
        ms(bareGet.p50),
        ratio(saves.p50, bareGet.p50),
        `< 10 ms  ${saves.p50 < 10 ? "met" : "MISSED"}`,
      ),
      row("PUT /files/content 10 KB p99", ms(saves.p99), ms(bareGet.p99), ratio(saves.p99, bareGet.p99), ""),
      row(
        "  one connection (no queueing) p50",
        ms(saves1.p50),
        ms(bareGet.p50),
        ratio(saves1.p50, bareGet.p50),
        `< 10 ms  ${saves1.p50 < 10 ? "met" : "MISSED"}`,
      ),
      row(
        "  one connection (no queueing) p99",
        ms(saves1.p99),
        ms(bareGet.p99),
        ratio(saves1.p99, bareGet.p99),
        "",
      ),
      "",
      row("", "during", "idle", "ratio", "aim"),
      row(
        `GET /docs/{id}, ${relintCount}-bundle re-lint p50`,
        ms(p50(relint.during)),
        ms(p50(relint.idle)),
        ratio(p50(relint.during), p50(relint.idle)),
        `<= 2x  ${p50(relint.during) <= 2 * p50(relint.idle) ? "met" : "MISSED"}`,
      ),
      row(
        `GET /docs/{id}, ${relintCount}-bundle re-lint p99`,
        ms(p99(relint.during)),
        ms(p99(relint.idle)),
        ratio(p99(relint.during), p99(relint.idle)),
        `(${relint.during.length} reads over ${(relint.relintMs / 1000).toFixed(1)} s of re-lint)`,
      ),
      "",
      `requests/s: bare ${bareGet.rps.toFixed(0)} (after the saves: ${bareAgain.rps.toFixed(0)}, p99 ${bareAgain.p99} ms), ` +
        `GET /bundles ${bundles50.rps.toFixed(0)}, limit=500 ${bundles500.rps.toFixed(0)}, saves ${saves.rps.toFixed(0)} (one connection: ${saves1.rps.toFixed(0)})`,
      `saves: ${counts.ok} new versions, ${counts.unchanged} unchanged, ${counts.conflicts} x 409 version_conflict, ${counts.other} other answers, ${saves.errors} connection errors`,
      "",
    ];
    process.stdout.write(lines.join("\n"));

    if (profDir) {
      const files = readdirSync(profDir).filter((f) => f.endsWith(".cpuprofile"));
      for (const f of files) {
        process.stdout.write(`\nCPU profile of the server: ${join(profDir, f)}\n`);
        for (const w of windows.filter((x) => !x.name.startsWith("bare"))) {
          const s = summarize(join(profDir, f), 15, w);
          if (s.samples === 0) continue;
          process.stdout.write(`\n  during ${w.name} (${s.samples} samples), by part:\n`);
          for (const c of categories(join(profDir, f), w))
            process.stdout.write(`    ${(c.share * 100).toFixed(1).padStart(5)}%  ${c.name}\n`);
          process.stdout.write("  self time:\n");
          for (const h of s.self)
            process.stdout.write(`    ${(h.share * 100).toFixed(1).padStart(5)}%  ${h.name}\n`);
          process.stdout.write("  inclusive, of busy samples:\n");
          for (const h of s.total)
            process.stdout.write(`    ${(h.share * 100).toFixed(1).padStart(5)}%  ${h.name}\n`);
        }
      }
    }
  } finally {
    cleanup();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(
    `bench:store failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exitCode = 1;
});
