/**
 * The real server for the benchmarks: `node dist/cli/main.js serve <folder>` as users run
 * it, in a subprocess on a free port, built first when dist/ is missing or older than the
 * sources. Used by bench:heavy (and meant for bench:store, which has its own copy still).
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { packageRoot } from "../../server/paths.js";
import { freePort, start, waitFor200, type Child } from "./proc.js";

const log = (line: string) => process.stderr.write(`${line}\n`);

function newestSource(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestSource(p));
    else if (e.name.endsWith(".ts")) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

/** Runs `npm run build` when dist/cli/main.js is missing or older than cli/, core/, node/ or server/. */
export function ensureBuilt(): void {
  const root = packageRoot();
  const main = join(root, "dist", "cli", "main.js");
  const sources = Math.max(...["cli", "core", "node", "server"].map((d) => newestSource(join(root, d))));
  if (existsSync(main) && statSync(main).mtimeMs >= sources) return;
  log("building dist/ (npm run build) ...");
  const r = spawnSync("npm", ["run", "build"], { cwd: root, encoding: "utf8" });
  if (r.status === 0) return;
  if (!existsSync(main)) throw new Error(`npm run build failed:\n${r.stdout}${r.stderr}`);
  log(
    `npm run build reported errors (tsc still emitted); benchmarking dist/ as built:\n${r.stdout.slice(-2000)}`,
  );
}

export interface ServeOptions {
  /** The server's DATABASE_URL; default none (the embedded PGlite in the folder's data dir). */
  databaseUrl?: string;
  /** Profile the server (`node --cpu-prof`), writing the profile here when it stops. */
  cpuProfDir?: string;
  /** Path under /api/v1 polled until it answers 200 (default `/meta`). */
  readyPath?: string;
  /** How long to wait for that first 200 (default 300 s). */
  timeoutMs?: number;
}

export interface Served {
  child: Child;
  /** `http://127.0.0.1:<port>/api/v1` */
  base: string;
  /** performance.now() at the spawn. */
  spawned: number;
  /** Milliseconds from the spawn to the first 200 of `readyPath`. */
  spawnToFirst200: number;
}

/** Serves `folder` with the built server; resolves once `readyPath` answers 200. */
export async function serveFolder(folder: string, opts: ServeOptions = {}): Promise<Served> {
  const root = packageRoot();
  const port = await freePort();
  const env = { ...process.env };
  delete env.DATABASE_URL;
  if (opts.databaseUrl) env.DATABASE_URL = opts.databaseUrl;
  const args = [
    ...(opts.cpuProfDir ? ["--cpu-prof", `--cpu-prof-dir=${opts.cpuProfDir}`] : []),
    join(root, "dist", "cli", "main.js"),
    "serve",
    folder,
    "--port",
    String(port),
  ];
  const spawned = performance.now();
  const child = start(process.execPath, args, { cwd: root, env });
  const base = `http://127.0.0.1:${port}/api/v1`;
  const spawnToFirst200 = await waitFor200(
    `${base}${opts.readyPath ?? "/meta"}`,
    child,
    spawned,
    opts.timeoutMs ?? 300_000,
  );
  return { child, base, spawned, spawnToFirst200 };
}
