/**
 * npm run bench:app
 *
 * Syncs a repohost source of 500 bundles (generated PRD-shaped spec docs, each with an
 * asset) from a local fake GitHub API over HTTP (test/helpers/fake-github.ts), on the real
 * service graph (hosted mode, embedded PGlite):
 *   1. the first read (POST /repohost/sources: tree, every markdown file, each folder's history);
 *   2. a push of 3 commits, each touching one bundle (POST /repohost/sources/{id}/sync):
 *      each commit is a version of its bundle;
 *   3. a sync with nothing new (one conditional request, answered 304).
 * Prints the API calls and wall time of each. Aim: the incremental sync makes at most
 * 5 calls plus one per touched bundle.
 *
 * Options: --bundles N (500), --touched N (3).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { randomBytes } from "node:crypto";
import { createApp } from "../server/app.js";
import { localAuthenticator } from "../server/auth/actor.js";
import { createServices } from "../server/services.js";
import { FakeGitHub } from "../test/helpers/fake-github.js";

const { values } = parseArgs({
  options: { bundles: { type: "string", default: "500" }, touched: { type: "string", default: "3" } },
});
const BUNDLES = Number(values.bundles);
const TOUCHED = Number(values.touched);

function prd(i: number, extra = ""): string {
  return [
    "---",
    "type: prd",
    "size: small",
    `title: Feature ${i}`,
    "---",
    `# Feature ${i} 🚀`,
    "",
    "## Problem",
    "",
    `Users of area ${i} wait too long for search results (p95 ${1000 + i} ms).`,
    "",
    "## Goals",
    "",
    `- F${i}-1: Results MUST appear within 300 ms at p95.`,
    extra,
    "",
  ].join("\n");
}

const gh = new FakeGitHub();
await gh.start();
const repo = gh.addRepo("acme", "specs");
const files: Record<string, string> = { "README.md": "# Specs\n" };
for (let i = 0; i < BUNDLES; i++) {
  files[`specs/f${String(i).padStart(4, "0")}/prd.md`] = prd(i);
  files[`specs/f${String(i).padStart(4, "0")}/notes.txt`] = `notes ${i}\n`;
}
gh.commit(repo, files, { message: "Import specs" });

const dir = mkdtempSync(join(tmpdir(), "bench-app-"));
const services = await createServices({
  mode: "hosted",
  database: join(dir, "db"),
  secretKey: randomBytes(32),
  auth: localAuthenticator(),
  repohost: { apiUrl: gh.url },
});
const app = createApp(services);
const req = async (method: string, path: string, body?: unknown) => {
  const res = await app.request(`/api/v1${path}`, {
    method,
    headers: { "content-type": "application/json" },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
};

gh.tokens.set("ghp_bench_token_0000", "bench");
await req("PUT", "/admin/repohost", { token: "ghp_bench_token_0000" });

async function measure(label: string, run: () => Promise<Record<string, unknown>>) {
  const from = gh.calls.length;
  const t0 = performance.now();
  const out = await run();
  const ms = performance.now() - t0;
  const calls = gh.since(from);
  const byKind = new Map<string, number>();
  for (const c of calls) {
    const k = c.path
      .replace(/\?.*$/, "")
      .replace(/[0-9a-f]{40}/g, "<sha>")
      .replace(/^\/repos\/acme\/specs/, "");
    byKind.set(k, (byKind.get(k) ?? 0) + 1);
  }
  console.log(`${label}: ${calls.length} API calls, ${ms.toFixed(0)} ms`);
  for (const [k, n] of [...byKind].sort((a, b) => b[1] - a[1]))
    console.log(`    ${String(n).padStart(5)}  ${k}`);
  return { out, calls: calls.length, ms };
}

const first = await measure(`first read (${BUNDLES} bundles)`, () =>
  req("POST", "/repohost/sources", { url: "acme/specs" }),
);
const id = first.out["id"] as string;
// One push, one commit per touched bundle: each becomes its own version.
for (let i = 0; i < TOUCHED; i++) {
  const n = Math.floor((i * BUNDLES) / TOUCHED);
  gh.commit(
    repo,
    { [`specs/f${String(n).padStart(4, "0")}/prd.md`]: prd(n, "- Edited in a push.") },
    { message: `Touch spec ${n}` },
  );
}
const inc = await measure(`push of ${TOUCHED} commits touching ${TOUCHED} bundles`, () =>
  req("POST", `/repohost/sources/${id}/sync`),
);
const idle = await measure("sync with nothing new", () => req("POST", `/repohost/sources/${id}/sync`));

const aim = 5 + TOUCHED;
console.log(
  `\nincremental: ${inc.calls} calls (aim <= ${aim}: ${inc.calls <= aim ? "met" : "MISSED"}), ${inc.ms.toFixed(0)} ms; ` +
    `first read: ${first.calls} calls, ${first.ms.toFixed(0)} ms; unchanged: ${idle.calls} call, ${idle.ms.toFixed(0)} ms`,
);
await services.close();
await gh.stop();
rmSync(dir, { recursive: true, force: true });
