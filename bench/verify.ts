/**
 * npm run bench:verify
 *
 * A generated tree of 20,000 source files (about 200 MB: TypeScript, Go and Python, 1 to
 * 30 KB each, in nested folders) citing 300 trace IDs (REQ-001 to REQ-300) in comments
 * and test names, scanned the way a verification run scans a folder
 * (server/verify/scan/: worker threads kept warm; with and without the content digest a
 * folder run records), beside `rg` (ripgrep) searching
 * the same 300 IDs as fixed strings over the same tree, in the same run, after one warm-up
 * of each (page cache warm for both). Prints both wall times and their ratio.
 * Aim: the scan within 2x of ripgrep.
 *
 * Options: --files N (20000), --runs N (3, the best of each), --keep (keep the tree).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { folderSource } from "../server/verify/scan/folder.js";
import { ScanPool } from "../server/verify/scan/pool.js";

const { values } = parseArgs({
  options: {
    files: { type: "string", default: "20000" },
    runs: { type: "string", default: "3" },
    keep: { type: "boolean", default: false },
  },
});
const FILES = Number(values.files);
const RUNS = Number(values.runs);
const IDS = Array.from({ length: 300 }, (_, i) => `REQ-${String(i + 1).padStart(3, "0")}`);

/** A small deterministic generator, so every run scans the same tree. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const TS_LINES = [
  "export async function handle(req: Request, ctx: Context): Promise<Response> {",
  "  const body = await req.json().catch(() => ({}));",
  "  if (!body || typeof body !== 'object') return problem(400, 'invalid_json');",
  "  const items = list.filter((x) => x.status === 'open').map((x) => x.id);",
  "  for (const [key, value] of Object.entries(headers)) out.set(key.toLowerCase(), value);",
  "  return new Response(JSON.stringify({ items, next_cursor: cursor ?? null }), { status: 200 });",
  "}",
  "const RETRY_DELAYS_MS = [100, 250, 500, 1000, 2000];",
  "  // keep the order stable: callers page by created_at, then id",
  "  throw new ApiError('version_conflict', `base ${base} is not the head`);",
];
const GO_LINES = [
  "func (s *Store) Get(ctx context.Context, id string) (*Card, error) {",
  "\trow := s.db.QueryRowContext(ctx, `select id, balance, locked_until from cards where id = $1`, id)",
  "\tif err := row.Scan(&c.ID, &c.Balance, &c.LockedUntil); err != nil {",
  '\t\treturn nil, fmt.Errorf("card %s: %w", id, err)',
  "\t}",
  "\treturn &c, nil",
  "}",
  "// balance is kept in minor units to avoid float rounding",
];
const PY_LINES = [
  "def redeem(card_number: str, pin: str, amount: Decimal) -> Receipt:",
  "    if len(card_number) != 16 or not card_number.isdigit():",
  "        raise ValueError('card number must be 16 digits')",
  "    card = repository.get(card_number)",
  "    # the PIN is compared in constant time",
  "    return Receipt(card=card, amount=min(amount, card.balance))",
  "",
];

function generate(root: string): number {
  const rand = rng(42);
  let bytes = 0;
  for (let i = 0; i < FILES; i++) {
    const dir = join(root, `pkg${i % 40}`, `mod${Math.floor(i / 40) % 25}`);
    if (i < 1000) mkdirSync(dir, { recursive: true });
    const kind = i % 3;
    const lines = kind === 0 ? TS_LINES : kind === 1 ? GO_LINES : PY_LINES;
    const comment = kind === 2 ? "#" : "//";
    const target = 1024 + Math.floor(rand() * 19 * 1024);
    const out: string[] = [];
    let size = 0;
    while (size < target) {
      const r = rand();
      let line: string;
      if (r < 0.004)
        line = `${comment} ${IDS[Math.floor(rand() * IDS.length)]}: implements the requirement here`;
      else if (r < 0.006)
        line = `  it('${IDS[Math.floor(rand() * IDS.length)]} locks the card after five wrong PINs', () => {});`;
      else if (r < 0.01)
        line = `const code = "REQ-${Math.floor(rand() * 9000) + 1000}"; // not an ID of the bundle`;
      else line = lines[Math.floor(rand() * lines.length)]!;
      out.push(line);
      size += line.length + 1;
    }
    const text = out.join("\n") + "\n";
    bytes += Buffer.byteLength(text);
    const ext = kind === 0 ? (i % 7 === 0 ? "test.ts" : "ts") : kind === 1 ? "go" : "py";
    writeFileSync(join(dir, `file${i}.${ext}`), text);
  }
  return bytes;
}

// One pool for every scan, as a running service keeps one (its workers start once).
const pool = new ScanPool();

async function timeScan(
  root: string,
  digest: boolean,
): Promise<{ ms: number; hits: number; files: number; bytes: number }> {
  const t0 = performance.now();
  const r = await pool.scan(folderSource(root), { ids: IDS, digest });
  return { ms: performance.now() - t0, hits: r.hits.length, files: r.files, bytes: r.bytes };
}

function timeRg(root: string, patterns: string): { ms: number; lines: number } {
  const t0 = performance.now();
  const r = spawnSync("rg", ["--no-ignore", "--hidden", "-n", "-F", "-w", "-f", patterns, root], {
    maxBuffer: 1024 * 1024 * 1024,
    encoding: "utf8",
  });
  const ms = performance.now() - t0;
  if (r.status !== 0 && r.status !== 1) throw new Error(`rg failed: ${r.stderr}`);
  return { ms, lines: r.stdout.split("\n").filter(Boolean).length };
}

async function main() {
  try {
    execFileSync("rg", ["--version"]);
  } catch {
    throw new Error("ripgrep (rg) is not installed: apt-get install ripgrep");
  }
  const root = join(tmpdir(), `spec-review-bench-verify-${FILES}`);
  const marker = join(root, ".complete");
  let genMs = 0;
  if (!existsSync(marker)) {
    rmSync(root, { recursive: true, force: true });
    mkdirSync(root, { recursive: true });
    const t0 = performance.now();
    const bytes = generate(root);
    genMs = performance.now() - t0;
    writeFileSync(marker, String(bytes));
  }
  const patterns = join(tmpdir(), "spec-review-bench-verify-ids.txt");
  writeFileSync(patterns, IDS.join("\n") + "\n");

  // Warm-up: both read the tree once, so both run from the page cache.
  await timeScan(root, true);
  timeRg(root, patterns);
  let scan = { ms: Infinity, hits: 0, files: 0, bytes: 0 };
  let folderRun = { ms: Infinity, hits: 0, files: 0, bytes: 0 };
  let rg = { ms: Infinity, lines: 0 };
  for (let i = 0; i < RUNS; i++) {
    const s = await timeScan(root, false);
    if (s.ms < scan.ms) scan = s;
    const f = await timeScan(root, true);
    if (f.ms < folderRun.ms) folderRun = f;
    const g = timeRg(root, patterns);
    if (g.ms < rg.ms) rg = g;
  }
  await pool.close();
  const mb = scan.bytes / 1024 / 1024;
  console.log(
    `tree: ${scan.files} files, ${mb.toFixed(0)} MB, 300 trace IDs${genMs ? ` (generated in ${(genMs / 1000).toFixed(1)} s)` : ""}`,
  );
  console.log(
    `spec-review scan:                   ${scan.ms.toFixed(0)} ms, ${scan.hits} targets (comments and test names)`,
  );
  console.log(`spec-review scan + content digest:  ${folderRun.ms.toFixed(0)} ms (what a folder run does)`);
  console.log(
    `ripgrep -F -w -f ids:               ${rg.ms.toFixed(0)} ms, ${rg.lines} matching lines (any mention)`,
  );
  console.log(
    `ratio scan / rg: ${(scan.ms / rg.ms).toFixed(2)}x; with the digest: ${(folderRun.ms / rg.ms).toFixed(2)}x (aim: within 2x), best of ${RUNS}`,
  );
  if (!values.keep) rmSync(root, { recursive: true, force: true });
}

await main();
