/**
 * npm run bench:heavy
 *
 * Heavy work on large docs, in one run:
 *   1. scaling: times render, the HTML report (export), lint and the version diff on
 *      generated docs of --small (2,000) and --large (20,000) sections, in this process,
 *      and prints each ratio (linear is about 10x; the aim is 15x at most);
 *   2. the request loop: serves a temp folder with the real server (`node dist/cli/main.js
 *      serve`, a subprocess; built first when dist/ is missing or older than the
 *      sources) and, while a --big-mb (10) MB doc is saved (PUT, then its lint),
 *      exported as HTML and imported in a zip of --entries (10,000) files, polls
 *      GET /meta every 20 ms and prints the slowest answer (aim: under 100 ms); also the
 *      PUT of the small and large docs, and their ratio;
 *   3. memory: the server's resident memory at idle on a served folder, with the embedded
 *      PGlite and, when TEST_DATABASE_URL is set, with Postgres.
 *
 * Options: --small N, --large N, --big-mb N, --entries N, --skip-scaling, --skip-server,
 *   --skip-saves (the request-loop part without the saves of the --small and --large docs),
 *   --skip-memory, --idle-seconds N (5), --cpu-prof DIR (profile the request-loop part's server).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { zipSync } from "fflate";
import { loadProfileLayersCached } from "../node/profiles.js";
import { builtinProfilesDir } from "../node/package.js";
import { lintBundle } from "../core/lint/index.js";
import { renderMarkdown } from "../core/render/html.js";
import { reportHtml, versionDiff } from "../server/heavy/tasks.js";
import { bigDoc, editDoc } from "./lib/bigdoc.js";
import { generateCorpus } from "./lib/corpus.js";
import { killAll, stop } from "./lib/proc.js";
import { ensureBuilt, serveFolder, type Served } from "./lib/serve.js";

const { values } = parseArgs({
  options: {
    small: { type: "string", default: "2000" },
    large: { type: "string", default: "20000" },
    "big-mb": { type: "string", default: "10" },
    entries: { type: "string", default: "10000" },
    "idle-seconds": { type: "string", default: "5" },
    "skip-scaling": { type: "boolean", default: false },
    "skip-server": { type: "boolean", default: false },
    "skip-memory": { type: "boolean", default: false },
    "skip-saves": { type: "boolean", default: false },
    /** Profile the server of the request-loop part (node --cpu-prof), writing the profile here. */
    "cpu-prof": { type: "string" },
  },
});
const SMALL = Number(values.small);
const LARGE = Number(values.large);
const BIG_MB = Number(values["big-mb"]);
const ENTRIES = Number(values.entries);
const IDLE_SECONDS = Number(values["idle-seconds"]);
for (const [name, v] of [
  ["--small", SMALL],
  ["--large", LARGE],
  ["--big-mb", BIG_MB],
  ["--entries", ENTRIES],
  ["--idle-seconds", IDLE_SECONDS],
] as const)
  if (!Number.isInteger(v) || v < 1) {
    process.stderr.write(`bench:heavy: ${name} must be a whole number of at least 1\n`);
    process.exit(2);
  }

const log = (line: string) => process.stderr.write(`${line}\n`);
const out = (line: string) => process.stdout.write(`${line}\n`);
const ms = (n: number) => `${n >= 100 ? n.toFixed(0) : n.toFixed(1)} ms`;
const pad = (s: string, n: number) => s.padEnd(n);
const padl = (s: string, n: number) => s.padStart(n);

// ----------------------------------------------------------------- scaling

/** CPU milliseconds of this process (every thread: the collector's too). */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/**
 * Wall and CPU time of one call. On a machine shared with other work the wall time
 * includes waiting for a core; the CPU time does not, so its ratio is the steadier one.
 */
function time<T>(f: () => T): { ms: number; cpu: number; value: T } {
  const c = cpuMs();
  const t = performance.now();
  const value = f();
  return { ms: performance.now() - t, cpu: cpuMs() - c, value };
}

function scaling(): void {
  const { profiles } = loadProfileLayersCached([{ dir: builtinProfilesDir(), origin: "built-in" }]);
  const docs = [SMALL, LARGE].map((sections) => {
    const text = bigDoc({ sections });
    return { sections, text, bytes: Buffer.from(text), next: Buffer.from(editDoc(text)) };
  });
  // Warm up the JIT on a small doc, so the first figure is not the compiler's.
  const warm = bigDoc({ sections: 200 });
  renderMarkdown(warm);
  lintBundle({ files: new Map([["spec.md", warm]]), mainPath: "spec.md", profiles });
  const ops: Array<{ name: string; run: (d: (typeof docs)[number]) => unknown }> = [
    { name: "render (POST /render)", run: (d) => renderMarkdown(d.text) },
    {
      name: "lint (each save)",
      run: (d) => lintBundle({ files: new Map([["spec.md", d.bytes]]), mainPath: "spec.md", profiles }),
    },
    {
      name: "export (HTML report)",
      run: (d) => {
        const lint = lintBundle({ files: new Map([["spec.md", d.bytes]]), mainPath: "spec.md", profiles });
        return reportHtml({
          bytes: d.bytes,
          fallbackTitle: "bench",
          slug: "bench",
          profile: { key: lint.profile_key },
          path: "spec.md",
          version: { number: 1, created_at: new Date().toISOString(), created_by: "bench", message: "" },
          findingsJson: JSON.stringify(lint.findings),
          generatedAt: new Date().toISOString(),
        });
      },
    },
    {
      name: "diff (GET /diff)",
      run: (d) => versionDiff(new Map([["spec.md", d.bytes]]), new Map([["spec.md", d.next]]), "spec.md"),
    },
  ];
  out(`\nScaling: generated docs of ${SMALL} and ${LARGE} sections`);
  out(
    `  (${(docs[0]!.bytes.length / 1e6).toFixed(2)} MB and ${(docs[1]!.bytes.length / 1e6).toFixed(2)} MB; linear is ${(LARGE / SMALL).toFixed(0)}x, aim: at most ${((LARGE / SMALL) * 1.5).toFixed(0)}x)`,
  );
  out(
    `  ${pad("operation", 24)}${padl(`${SMALL}`, 12)}${padl(`${LARGE}`, 12)}${padl("ratio", 9)}   CPU time: ${SMALL} / ${LARGE} / ratio`,
  );
  for (const op of ops) {
    log(`timing ${op.name} ...`);
    const small = time(() => op.run(docs[0]!));
    const large = time(() => op.run(docs[1]!));
    out(
      `  ${pad(op.name, 24)}${padl(ms(small.ms), 12)}${padl(ms(large.ms), 12)}${padl(`${(large.ms / small.ms).toFixed(1)}x`, 9)}` +
        `   ${padl(ms(small.cpu), 10)} ${padl(ms(large.cpu), 10)} ${padl(`${(large.cpu / small.cpu).toFixed(1)}x`, 7)}`,
    );
  }
}

// ------------------------------------------------------------------ server

const serve = (folder: string, databaseUrl?: string): Promise<Served> =>
  serveFolder(folder, {
    ...(databaseUrl ? { databaseUrl } : {}),
    ...(values["cpu-prof"] ? { cpuProfDir: values["cpu-prof"] } : {}),
  });

/** Polls GET /meta every 20 ms while `work` runs; the slowest answer and how many were asked. */
async function whilePolling<T>(
  base: string,
  work: () => Promise<T>,
): Promise<{ value: T; maxMs: number; polls: number; ms: number }> {
  let done = false;
  let maxMs = 0;
  let polls = 0;
  let failures = 0;
  const poller = (async () => {
    while (!done) {
      const t = performance.now();
      try {
        const res = await fetch(`${base}/meta`);
        await res.arrayBuffer();
      } catch (err) {
        failures++;
        if (failures === 1)
          log(
            `GET /meta failed: ${err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err)}`,
          );
      }
      maxMs = Math.max(maxMs, performance.now() - t);
      polls++;
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const t0 = performance.now();
  try {
    const value = await work();
    return { value, maxMs, polls, ms: performance.now() - t0 };
  } finally {
    done = true;
    await poller;
  }
}

/**
 * A request with no time limit (fetch gives up after 300 s without the answer's headers,
 * which a save of a 10 MB doc on a busy machine can pass), answered as a Response.
 */
async function slowFetch(url: string, init: RequestInit): Promise<Response> {
  const req = new Request(url, init);
  const body = Buffer.from(await req.arrayBuffer());
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = Object.fromEntries(req.headers);
    headers["content-length"] = String(body.length);
    const r = httpRequest(url, { method: req.method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve(new Response(Buffer.concat(chunks), { status: res.statusCode ?? 0 })));
      res.on("error", reject);
    });
    r.on("error", reject);
    r.end(body);
  });
}

async function json<T>(res: Promise<Response>): Promise<T> {
  const r = await res;
  const body = await r.text();
  if (!r.ok) throw new Error(`HTTP ${r.status}: ${body.slice(0, 500)}`);
  return JSON.parse(body) as T;
}

interface DocRef {
  id: string;
  current_version: { id: string; number: number };
}

async function lintDone(base: string, docId: string, versionNumber: number): Promise<void> {
  const deadline = performance.now() + 1_800_000;
  while (performance.now() < deadline) {
    const runs = await json<{ items: Array<{ kind: string; status: string; version_number: number }> }>(
      fetch(`${base}/docs/${docId}/runs`),
    );
    if (
      runs.items.some(
        (r) =>
          r.kind === "lint" &&
          r.version_number >= versionNumber &&
          r.status !== "queued" &&
          r.status !== "running",
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the lint run did not finish within 30 minutes");
}

async function serverLoop(): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), "bench-heavy-"));
  let served: Served | undefined;
  try {
    mkdirSync(join(folder, "big"));
    writeFileSync(join(folder, "big", "spec.md"), "---\ntype: prd\n---\n# Big\n\nStarts small.\n");
    log("starting the server ...");
    served = await serve(folder);
    let base = served.base;
    const bundles = await json<{ items: Array<{ docs: DocRef[] }> }>(fetch(`${base}/bundles`));
    const doc = bundles.items[0]!.docs[0]!;
    let versionId = doc.current_version.id;
    const put = async (text: string) => {
      const r = await json<{ version: { id: string; number: number } }>(
        slowFetch(`${base}/docs/${doc.id}/files/content?path=spec.md&base_version=${versionId}`, {
          method: "PUT",
          headers: { "content-type": "application/octet-stream" },
          body: Buffer.from(text),
        }),
      );
      versionId = r.version.id;
      return r.version.number;
    };
    // Warm up the server's paths and its worker threads.
    await lintDone(base, doc.id, await put(bigDoc({ sections: 300, seed: 1 })));

    async function sizedSaves(): Promise<void> {
      out("\nSaves (PUT /files/content: the answer, then the lint of the new version)");
      const saveTimes: number[] = [];
      for (const sections of [SMALL, LARGE]) {
        const text = bigDoc({ sections, seed: sections });
        let number = 0;
        const r = await whilePolling(base, async () => {
          const t = performance.now();
          number = await put(text);
          const answered = performance.now() - t;
          await lintDone(base, doc.id, number);
          return answered;
        });
        saveTimes.push(r.value);
        out(
          `  ${pad(`${sections} sections`, 18)} PUT ${padl(ms(r.value), 10)}   with its lint ${padl(ms(r.ms), 10)}   GET /meta max ${ms(r.maxMs)}`,
        );
      }
      out(
        `  PUT ratio ${(saveTimes[1]! / saveTimes[0]!).toFixed(1)}x (linear ${(LARGE / SMALL).toFixed(0)}x)`,
      );
    }
    if (!values["skip-saves"]) await sizedSaves();

    // A doc just under --big-mb MB.
    let sections = Math.round((BIG_MB * 1e6) / 100);
    let big = bigDoc({ sections });
    while (Buffer.byteLength(big) > BIG_MB * 1024 * 1024 - 1024)
      big = bigDoc({ sections: (sections = Math.round(sections * 0.95)) });
    const mb = (Buffer.byteLength(big) / 1e6).toFixed(1);
    out(
      `\nThe request loop while a ${mb} MB doc (${sections} sections) is worked on (GET /meta every 20 ms; aim: under 100 ms)`,
    );
    /**
     * One operation while GET /meta is polled: its line, or why it failed (with the end of
     * the server's log when the server stopped, and a new server for what follows).
     */
    const measured = async (label: string, work: () => Promise<string | void>) => {
      log(`${label} ...`);
      try {
        const r = await whilePolling(base, work);
        out(
          `  ${pad(r.value ? `${label} (${r.value})` : label, 40)}${padl(ms(r.ms), 12)}   GET /meta max ${padl(ms(r.maxMs), 9)} (${r.polls} answers)`,
        );
      } catch (err) {
        const why =
          err instanceof Error
            ? `${err.message}${err.cause instanceof Error ? ` (${err.cause.message})` : ""}`
            : String(err);
        out(`  ${pad(label, 40)} FAILED: ${why}`);
        const child = served!.child;
        await new Promise((r) => setTimeout(r, 1000));
        if (child.proc.exitCode !== null || child.proc.signalCode !== null) {
          out(
            `    the server stopped (${child.proc.exitCode ?? child.proc.signalCode}); the end of its log:`,
          );
          out(child.stderr().slice(-2000).replace(/^/gm, "    | "));
          log("starting the server again ...");
          served = await serve(folder);
          base = served.base;
        }
      }
    };
    await measured(`PUT of the ${mb} MB doc, then its lint`, async () => {
      const number = await put(big);
      await lintDone(base, doc.id, number);
    });
    await measured("GET /export?format=html", async () => {
      const r = await slowFetch(`${base}/docs/${doc.id}/export?format=html`, {});
      const body = await r.arrayBuffer();
      if (!r.ok) throw new Error(`HTTP ${r.status}: ${Buffer.from(body).toString().slice(0, 300)}`);
      return `${(body.byteLength / 1e6).toFixed(1)} MB of HTML`;
    });
    const files: Record<string, Uint8Array> = { "spec.md": Buffer.from(big) };
    for (let i = 1; i < ENTRIES; i++)
      files[`notes/n${String(i).padStart(5, "0")}.txt`] = Buffer.from(`note ${i}\n`);
    const zip = zipSync(files, { level: 1 });
    await measured(`POST /bundles/import, then its lint`, async () => {
      const form = new FormData();
      form.set("file", new Blob([zip], { type: "application/zip" }), "big-import.zip");
      form.set("name", "big-import");
      const r = await slowFetch(`${base}/bundles/import`, { method: "POST", body: form });
      const body = await r.text();
      if (r.status !== 201) throw new Error(`HTTP ${r.status}: ${body.slice(0, 300)}`);
      const items = (JSON.parse(body) as { items: Array<{ docs: DocRef[] }> }).items;
      for (const it of items) for (const d of it.docs) await lintDone(base, d.id, d.current_version.number);
      return `${ENTRIES} files, ${(zip.length / 1e6).toFixed(1)} MB zip`;
    });
  } finally {
    if (served) await stop(served.child, 60_000);
    rmSync(folder, { recursive: true, force: true });
  }
}

// ------------------------------------------------------------------ memory

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? "0");
  return kb / 1024;
}

async function idleRss(folder: string, databaseUrl?: string): Promise<number> {
  const served = await serve(folder, databaseUrl);
  try {
    await json(fetch(`${served.base}/bundles?limit=500`));
    await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
    return rssMb(served.child.proc.pid!);
  } finally {
    await stop(served.child, 60_000);
  }
}

async function memory(): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), "bench-heavy-mem-"));
  try {
    generateCorpus(folder, 100);
    out(`\nResident memory of the server at idle (${IDLE_SECONDS} s after its first answer; 100 bundles)`);
    log("serving on PGlite (a new data dir, then a restart) ...");
    const fresh = await idleRss(folder);
    const pglite = await idleRss(folder);
    out(
      `  PGlite (embedded)      ${fresh.toFixed(0)} MB on first start, ${pglite.toFixed(0)} MB after a restart`,
    );
    const url = process.env.TEST_DATABASE_URL;
    if (url) {
      // A database of its own on that server, dropped afterwards, so tests sharing it are not disturbed.
      const { default: postgres } = await import("postgres");
      const admin = postgres(url, { max: 1, onnotice: () => {} });
      const name = `bench_heavy_${process.pid}`;
      await admin.unsafe(`create database ${name}`);
      try {
        log("serving on Postgres ...");
        const target = new URL(url);
        target.pathname = `/${name}`;
        rmSync(join(folder, ".spec-review"), { recursive: true, force: true });
        const pg = await idleRss(folder, target.href);
        out(
          `  Postgres (server process only) ${pg.toFixed(0)} MB   (PGlite / Postgres: ${(pglite / pg).toFixed(1)}x)`,
        );
      } finally {
        await admin.unsafe(`drop database if exists ${name} with (force)`);
        await admin.end({ timeout: 5 });
      }
    } else out("  Postgres: set TEST_DATABASE_URL to compare");
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

// -------------------------------------------------------------------- main

process.once("SIGINT", () => {
  killAll();
  process.exit(130);
});
try {
  if (!values["skip-scaling"]) scaling();
  if (!values["skip-server"] || !values["skip-memory"]) ensureBuilt();
  if (!values["skip-server"]) await serverLoop();
  if (!values["skip-memory"]) await memory();
} catch (err) {
  killAll();
  log(`bench:heavy failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exit(1);
}
