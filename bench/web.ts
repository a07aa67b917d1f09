/**
 * npm run bench:web
 *
 * The dashboard in headless Chromium on 1,000 bundles (a generated folder served in local
 * mode by the real app in this process, the web app built with vite first), plus one bundle
 * whose main doc is about 100 KB with about 200 lint findings. For each page, N navigations:
 *   - the bundle list: from navigation start to the first page of bundles rendered;
 *   - the doc: from navigation start to the doc rendered with every finding beside its text;
 * and, in the same page right after each, the API calls that page makes, in the same
 * order (sequential where the page waits, parallel where it does not), timed alone with
 * fetch. Prints the medians and what the page adds. Aim: under 300 ms added.
 *
 * Options: --bundles N (1000), --runs N (7), --requirements N (115: requirement lines with no
 * binding keyword; with the other checks they give the doc about 200 findings), --keep.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { createServices } from "../server/services.js";
import { createApp } from "../server/app.js";
import { silentLogger } from "../server/deps.js";
import { generateCorpus } from "./lib/corpus.js";
import { buildWeb, launchBrowser, listen, type BrowserGlobals } from "../test/helpers/web.js";

const { values } = parseArgs({
  options: {
    bundles: { type: "string", default: "1000" },
    runs: { type: "string", default: "7" },
    requirements: { type: "string", default: "115" },
    keep: { type: "boolean", default: false },
  },
});
const BUNDLES = Number(values.bundles);
const RUNS = Number(values.runs);
const REQUIREMENTS = Number(values.requirements);

/** A PRD of about 100 KB: sections of prose, and requirement lines with no MUST/SHOULD (one lint finding each). */
function bigDoc(requirements: number): string {
  const out = [
    "---",
    "type: prd",
    "size: standard",
    "title: Payments platform",
    "---",
    "",
    "# Payments platform",
    "",
    "## Requirements",
    "",
  ];
  const prose =
    "The payment service accepts card, wallet and bank transfer payments for every storefront, " +
    "keeps an audit trail of each attempt, and reports settlement figures to finance every night. ";
  let req = 1;
  for (let section = 1; out.join("\n").length < 100_000 || req <= requirements; section++) {
    out.push(`### Area ${section}`, "", prose.repeat(4), "");
    for (let i = 0; i < 6 && req <= requirements; i++, req++)
      out.push(
        `- REQ-${String(req).padStart(3, "0")} The system records payment attempt ${req} with its outcome.`,
      );
    out.push("");
  }
  return out.join("\n");
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const root = mkdtempSync(join(tmpdir(), "sr-bench-web-"));
generateCorpus(root, BUNDLES - 1);
mkdirSync(join(root, "payments", "platform"), { recursive: true });
const big = bigDoc(REQUIREMENTS);
writeFileSync(join(root, "payments", "platform", "spec.md"), big);

await buildWeb();
const services = await createServices({
  mode: "local",
  folder: root,
  database: "memory://",
  secretKey: randomBytes(32),
  logger: silentLogger,
  profilesDir: resolve(import.meta.dirname, "../profiles"),
  catchUp: true,
});
const server = await listen(createApp(services));
const api = (path: string) => fetch(`${server.url}/api/v1${path}`);

// Every bundle listed, and the big doc linted (its verdict's findings are what the page shows).
const t0 = performance.now();
let bigId = "";
let findingCount = 0;
for (;;) {
  let cursor: string | undefined;
  let total = 0;
  do {
    const page = (await (await api(`/bundles?limit=200${cursor ? `&cursor=${cursor}` : ""}`)).json()) as {
      items: Array<{ slug: string; docs: Array<{ id: string; verdict?: { run_id: string } }> }>;
      next_cursor?: string;
    };
    total += page.items.length;
    const b = page.items.find((x) => x.slug === "payments/platform");
    if (b?.docs[0]) {
      bigId = b.docs[0].id;
      const runId = b.docs[0].verdict?.run_id;
      if (runId)
        findingCount = ((await (await api(`/runs/${runId}/findings`)).json()) as { items: unknown[] }).items
          .length;
    }
    cursor = page.next_cursor;
  } while (cursor);
  if (total >= BUNDLES && findingCount > 0) break;
  if (performance.now() - t0 > 300_000)
    throw new Error(`not ready after 5 minutes: ${total} bundles, ${findingCount} findings`);
  await new Promise((r) => setTimeout(r, 500));
}

const browser = await launchBrowser();
const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });

interface Figures {
  page: number[];
  api: number[];
}

/**
 * Navigation start to every `[selector, at least]` pair holding, in the page's own clock
 * (performance.now counts from the navigation). A function, not a string: the page's CSP
 * allows no eval.
 */
async function timePage(path: string, ready: Array<[string, number]>): Promise<number> {
  // From a blank page: the time counts this page's load, not the teardown of the one before.
  await page.goto("about:blank");
  await page.goto(`${server.url}${path}`, { waitUntil: "commit" });
  await page.waitForFunction(
    (pairs) => {
      const g = globalThis as unknown as BrowserGlobals & { readyAt?: number };
      const ready = pairs.every(([sel, n]) => g.document.querySelectorAll(sel).length >= n);
      // Stamped in the page when it first holds: the reply's trip back to this process
      // (whose event loop the server shares) is not the page's time.
      if (ready) g.readyAt ??= g.performance.now();
      return ready;
    },
    ready,
    { timeout: 60_000, polling: "raf" },
  );
  const at = await page.evaluate(() => (globalThis as unknown as { readyAt: number }).readyAt);
  if (process.env.BENCH_WEB_DEBUG)
    console.log(
      path,
      at.toFixed(0),
      await page.evaluate(() => {
        const { performance, location } = globalThis as unknown as BrowserGlobals;
        return [
          ...performance.getEntriesByType("navigation"),
          ...performance.getEntriesByType("resource"),
        ].map(
          (e) =>
            `${e.name.replace(location.origin, "").slice(0, 60)} ${e.startTime.toFixed(0)}-${(e.responseEnd ?? 0).toFixed(0)}`,
        );
      }),
    );
  return at;
}

const list: Figures = { page: [], api: [] };
const doc: Figures = { page: [], api: [] };
// One navigation of each first, not counted: Chromium's first start and the first compile.
const LIST_READY: Array<[string, number]> = [
  ["li.bundle", Math.min(100, BUNDLES)],
  ["#bundle-count", 1],
];
const docReady = (): Array<[string, number]> => [
  ["[data-finding-id]", findingCount],
  [".doc-text .row", 1],
];
await timePage("/", LIST_READY);
await timePage(`/docs/${bigId}`, docReady());

for (let i = 0; i < RUNS; i++) {
  list.page.push(await timePage("/", LIST_READY));
  // The list's calls: who is looking, and the first page of bundles, at once.
  list.api.push(
    await page.evaluate(async () => {
      const t = performance.now();
      await Promise.all([
        fetch("/api/v1/me").then((r) => r.json()),
        fetch("/api/v1/bundles?limit=100").then((r) => r.json()),
      ]);
      return performance.now() - t;
    }),
  );

  doc.page.push(await timePage(`/docs/${bigId}`, docReady()));
  // The doc's calls: me and the doc at once, then in parallel its text (then rendered), its findings and its threads.
  doc.api.push(
    await page.evaluate(async (docId) => {
      const t = performance.now();
      await (await fetch("/api/v1/me")).json();
      const d = (await (await fetch(`/api/v1/docs/${docId}`)).json()) as {
        path: string;
        verdict: { run_id: string };
      };
      await Promise.all([
        (async () => {
          const markdown = await (
            await fetch(`/api/v1/docs/${docId}/files/content?path=${encodeURIComponent(d.path)}`)
          ).text();
          await (
            await fetch("/api/v1/render", {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ markdown }),
            })
          ).json();
        })(),
        fetch(`/api/v1/runs/${d.verdict.run_id}/findings`).then((r) => r.json()),
        fetch(`/api/v1/docs/${docId}/threads`).then((r) => r.text()),
      ]);
      return performance.now() - t;
    }, bigId),
  );
}

const jsBytes = await page.evaluate(() =>
  (globalThis as unknown as BrowserGlobals).performance
    .getEntriesByType("resource")
    .filter((e) => e.name.endsWith(".js") || e.name.endsWith(".css"))
    .reduce((n, e) => n + (e.encodedBodySize ?? 0), 0),
);

await browser.close();
await server.close();
await services.close();
if (!values.keep) rmSync(root, { recursive: true, force: true });

const row = (name: string, f: Figures) => {
  const p = median(f.page);
  const a = median(f.api);
  return `${name.padEnd(34)} ${p.toFixed(0).padStart(7)} ms ${a.toFixed(0).padStart(9)} ms ${(p - a).toFixed(0).padStart(9)} ms  ${p - a < 300 ? "ok" : "over the 300 ms aim"}`;
};
console.log(
  `bench:web  ${BUNDLES} bundles; doc of ${(big.length / 1024).toFixed(0)} KB with ${findingCount} findings; median of ${RUNS} navigations; Chromium headless; app JS+CSS ${(jsBytes / 1024).toFixed(1)} KB over the wire`,
);
console.log(
  `${"".padEnd(34)} ${"page".padStart(10)} ${"API alone".padStart(12)} ${"page adds".padStart(12)}`,
);
console.log(row("bundle list (first 100 rendered)", list));
console.log(row("doc rendered with its findings", doc));
process.exit(0);
