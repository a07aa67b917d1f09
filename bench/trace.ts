/**
 * npm run bench:trace
 *
 * A generated folder: a PRD with 300 IDs implemented by 100 design bundles (each names and
 * covers some of the IDs), and a chain of 5 levels (prd <- design <- api <- design <- api).
 * In one process (the real app on embedded PGlite, requests through `app.request`), one
 * request at a time:
 *   1. GET /docs/{docId}/trace of the PRD (a 300 x 100 matrix) and of the chain's middle,
 *      each beside a plain GET /docs/{docId} of the same doc, interleaved, p50 and p99;
 *   2. `spec-review trace` over the folder (node/trace, the CLI's work without its startup).
 * Aim: the trace read within 10x of the plain doc read.
 *
 * Options: --requests N (200 per series), --keep (keep the folder).
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { createApp } from "../server/app.js";
import { silentLogger } from "../server/deps.js";
import { createServices } from "../server/services.js";
import { builtinProfilesDir } from "../node/package.js";
import { loadLayers, profileLayers } from "../cli/lint-fs.js";
import { traceFolder } from "../node/trace.js";

const { values } = parseArgs({
  options: { requests: { type: "string", default: "200" }, keep: { type: "boolean", default: false } },
});
const REQUESTS = Number(values.requests);
const IDS = 300;
const DOWNSTREAM = 100;

const id = (n: number) => `REQ-${String(n).padStart(3, "0")}`;

function write(root: string, slug: string, file: string, text: string) {
  mkdirSync(join(root, slug), { recursive: true });
  writeFileSync(join(root, slug, file), text);
}

function prd(title: string, ids: number): string {
  const reqs = Array.from(
    { length: ids },
    (_, i) => `- **${id(i + 1)}** The service MUST handle case ${i + 1} within 200 ms.`,
  );
  return `---\ntype: prd\n---\n\n# ${title}\n\n## Summary\n\nWhat we build.\n\n## Requirements\n\n${reqs.join("\n")}\n\n- A shopper MUST see a receipt.\n`;
}

function generate(root: string) {
  write(root, "product/prd", "prd.md", prd("Orders", IDS));
  for (let d = 0; d < DOWNSTREAM; d++) {
    const named = Array.from({ length: 30 }, (_, k) => id(((d * 7 + k * 11) % IDS) + 1));
    const covers = named
      .slice(0, 10)
      .map((x) => `Covers ${x}.`)
      .join("\n\n");
    write(
      root,
      `product/designs/d${String(d).padStart(3, "0")}`,
      "design.md",
      `---\ntype: design\nimplements: product/prd\n---\n\n# Design ${d}\n\n## Context\n\nThis design takes on ${named.join(", ")}.\n\n## Proposed design\n\nA queue and a worker.\n\n${covers}\n`,
    );
  }
  const chain = ["prd", "design", "api", "design", "api"];
  chain.forEach((type, level) => {
    const up = level === 0 ? "" : `implements: chain/l${level}\n`;
    write(
      root,
      `chain/l${level + 1}`,
      `${type}.md`,
      level === 0
        ? prd("Chain top", 20)
        : `---\ntype: ${type}\n${up}---\n\n# Level ${level + 1}\n\n## Overview\n\nNames ${id(level)} and ${id(level + 1)}.\n\nCovers ${id(level)}.\n`,
    );
  });
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
const ms = (n: number) => `${n.toFixed(2)} ms`;

async function main() {
  const root = mkdtempSync(join(tmpdir(), "sr-bench-trace-"));
  generate(root);
  const services = await createServices({
    mode: "local",
    folder: root,
    database: "memory://",
    secretKey: randomBytes(32),
    logger: silentLogger,
    profilesDir: builtinProfilesDir(),
    serverVersion: "bench",
    watch: false,
    catchUp: true,
  });
  const app = createApp(services);
  const get = async (path: string) => {
    const res = await app.request(`/api/v1${path}`);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  };
  try {
    await services.runs.idle();
    const list = (await (await app.request("/api/v1/bundles?limit=500")).json()) as {
      items: { slug: string; docs: { id: string }[] }[];
    };
    const doc = (slug: string) => list.items.find((b) => b.slug === slug)!.docs[0]!.id;
    console.log(
      `bench:trace  ${list.items.length} bundles; ${REQUESTS} requests per series, one at a time\n`,
    );
    for (const [label, slug] of [
      ["PRD (300 IDs x 100 docs)", "product/prd"],
      ["chain level 3 of 5", "chain/l3"],
    ] as const) {
      const docId = doc(slug);
      await get(`/docs/${docId}/trace`); // first read fills the cache
      const plain: number[] = [];
      const trace: number[] = [];
      for (let i = 0; i < REQUESTS; i++) {
        let t = performance.now();
        await get(`/docs/${docId}`);
        plain.push(performance.now() - t);
        t = performance.now();
        await get(`/docs/${docId}/trace`);
        trace.push(performance.now() - t);
      }
      plain.sort((a, b) => a - b);
      trace.sort((a, b) => a - b);
      console.log(`${label}`);
      console.log(`  GET /docs/{docId}        p50 ${ms(pct(plain, 50))}  p99 ${ms(pct(plain, 99))}`);
      console.log(`  GET /docs/{docId}/trace  p50 ${ms(pct(trace, 50))}  p99 ${ms(pct(trace, 99))}`);
      const ratio = pct(trace, 50) / pct(plain, 50);
      console.log(
        `  ratio p50 ${ratio.toFixed(1)}x, p99 ${(pct(trace, 99) / pct(plain, 99)).toFixed(1)}x (aim: within 10x) ${ratio <= 10 ? "OK" : "OVER"}\n`,
      );
    }
    const profiles = loadLayers(profileLayers(root), root).profiles;
    const t = performance.now();
    const report = traceFolder(root, profiles);
    const cli = performance.now() - t;
    console.log(
      `spec-review trace over the folder (in process): ${ms(cli)}; ${report.matrices.length} matrices, ${report.gaps.length} gaps`,
    );
  } finally {
    await services.close();
    if (!values.keep) rmSync(root, { recursive: true, force: true });
    else console.log(`folder kept: ${root}`);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
