/**
 * npm run bench:threads
 *
 * Two copies of one PRD (500 requirements, about 60 KB, CRLF line ends and emoji) in a
 * served folder, in one process (the real service graph on embedded PGlite): one doc with
 * 500 open text-anchored threads (one on each requirement), one with none. Then, 20 times,
 * one edit in the middle of each doc (a requirement inserted; the next round removes it and
 * inserts another), one at a time, lint settled between edits:
 *   - the save of the doc without threads (`store.write`, to the commit);
 *   - the re-anchoring of the 500 threads after the same save of the other doc (from the new
 *     version's event until every thread is moved and stored), and that save itself;
 * and prints the p50 and p99 of each, with re-anchoring / save. Every round checks that
 * each thread still reads its quote at its new bytes (or the run fails).
 * Aim: re-anchoring the 500 threads within 2x of the save without threads.
 *
 * Options: --edits N (20), --threads N (500), --keep (keep the folder).
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { eq } from "drizzle-orm";
import { silentLogger } from "../server/deps.js";
import { createServices } from "../server/services.js";
import { builtinProfilesDir } from "../node/package.js";
import { threads } from "../server/db/schema.js";
import type { Anchor } from "../core/anchor/index.js";

const { values } = parseArgs({
  options: {
    edits: { type: "string", default: "20" },
    threads: { type: "string", default: "500" },
    keep: { type: "boolean", default: false },
  },
});
const EDITS = Number(values.edits);
const THREADS = Number(values.threads);
const enc = new TextEncoder();

const id = (n: number) => `REQ-${String(n).padStart(3, "0")}`;
const WORDS = [
  "ledger",
  "payout",
  "refund",
  "seller",
  "invoice",
  "dispute",
  "balance",
  "webhook",
  "audit",
  "retry",
];

function requirement(n: number): string {
  const w = (k: number) => WORDS[(n * 7 + k * 3) % WORDS.length]!;
  return `- ${id(n)}: The ${w(0)} service MUST record each ${w(1)} 🧾 within ${100 + n} ms and keep the ${w(2)} trail for ${(n % 9) + 1} years.`;
}

function prd(title: string, inserted?: string): string {
  const reqs = Array.from({ length: THREADS }, (_, i) => requirement(i + 1));
  if (inserted) reqs.splice(THREADS / 2, 0, inserted);
  return [
    "---",
    "type: prd",
    `title: ${title}`,
    "owner: payments",
    "---",
    "",
    `# ${title} 💸`,
    "",
    "## Problem",
    "",
    "Sellers wait 7 days for their money. 🙃",
    "",
    "## Requirements",
    "",
    ...reqs,
    "",
    "## Non-goals",
    "",
    "Currencies other than EUR.",
    "",
  ].join("\r\n");
}

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}
const ms = (x: number) => `${x.toFixed(2)} ms`;

async function main() {
  const root = mkdtempSync(join(tmpdir(), "sr-bench-threads-"));
  for (const slug of ["with-threads", "without-threads"]) {
    mkdirSync(join(root, slug));
    writeFileSync(join(root, slug, "prd.md"), prd(slug));
  }
  const services = await createServices({
    mode: "local",
    folder: root,
    database: "memory://",
    secretKey: randomBytes(32),
    logger: silentLogger,
    profilesDir: builtinProfilesDir(),
    serverVersion: "bench",
    watch: false,
  });
  try {
    const { store, runs } = services;
    const list = await store.listBundles({ limit: 10 });
    const docOf = (slug: string) => list.find((r) => r.bundle.slug === slug)!.doc.id;
    const busy = docOf("with-threads");
    const quiet = docOf("without-threads");
    await runs.idle();

    process.stderr.write(`opening ${THREADS} threads...\n`);
    let text = prd("with-threads");
    for (let n = 1; n <= THREADS; n++) {
      const quote = `record each ${WORDS[(n * 7 + 3) % WORDS.length]!} 🧾 within ${100 + n} ms`;
      const at = text.indexOf(quote);
      const start = enc.encode(text.slice(0, at)).length;
      await services.threads.open({ id: "bench", name: "Bench", kind: "user" }, busy, {
        anchor_kind: "text",
        anchor: {
          file: "prd.md",
          heading_path: [],
          quote,
          prefix: "",
          suffix: "",
          start,
          end: start + enc.encode(quote).length,
        },
        addressed_to: "humans",
        title: id(n),
        body: `Is ${id(n)} right?`,
      });
    }
    await services.threads.idle();

    // Re-anchoring starts at the new version's event; it ends when idle() resolves.
    let eventAt = 0;
    store.events.on("version", (ev) => {
      if (ev.docId === busy) eventAt = performance.now();
    });

    const save = async (docId: string, next: string) => {
      const rec = await store.doc(docId);
      const t0 = performance.now();
      await store.write(docId, rec.head.id, [{ path: "prd.md", bytes: enc.encode(next) }], "bench", "edit");
      return performance.now() - t0;
    };

    const quietSaves: number[] = [];
    const busySaves: number[] = [];
    const reanchors: number[] = [];
    for (let i = 0; i < EDITS; i++) {
      const inserted = `- REQ-9${String(i).padStart(2, "0")}: An inserted requirement ${i} MUST hold. ✅`;
      quietSaves.push(await save(quiet, prd("without-threads", inserted)));
      await runs.idle();

      text = prd("with-threads", inserted);
      busySaves.push(await save(busy, text));
      await services.threads.idle();
      reanchors.push(performance.now() - eventAt);
      await runs.idle();

      // Every thread reads its quote at its new bytes.
      const rows = await services.db
        .select({ anchor: threads.anchor })
        .from(threads)
        .where(eq(threads.docId, busy));
      const bytes = enc.encode(text);
      for (const r of rows) {
        const a = r.anchor as unknown as Anchor;
        const got = new TextDecoder().decode(bytes.subarray(a.start, a.end));
        if (a.detached || got !== a.quote)
          throw new Error(`thread on ${a.quote} lost its text in round ${i + 1}`);
      }
    }

    const row = (name: string, xs: number[]) =>
      `${name.padEnd(44)} p50 ${ms(percentile(xs, 50)).padStart(10)}   p99 ${ms(percentile(xs, 99)).padStart(10)}`;
    const ratio = percentile(reanchors, 50) / percentile(quietSaves, 50);
    process.stdout.write(
      [
        `bench:threads: ${THREADS} open text-anchored threads, ${EDITS} edits in the middle of a ${(enc.encode(text).length / 1024).toFixed(0)} KB doc`,
        row("save, doc without threads", quietSaves),
        row("save, doc with threads", busySaves),
        row(`re-anchor ${THREADS} threads after the save`, reanchors),
        `re-anchoring / save without threads (p50): ${ratio.toFixed(2)}x (aim: under 2x)`,
        "",
      ].join("\n"),
    );
  } finally {
    await services.close();
    if (!values.keep) rmSync(root, { recursive: true, force: true });
  }
}

await main();
