// Temporary probe (not committed): spawn -> first 200 GET /bundles on a new data dir, 1,000 bundles.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateCorpus } from "./bench/lib/corpus.js";
import { freePort, start, stop, waitFor200 } from "./bench/lib/proc.js";
const [root, prof] = process.argv.slice(2);
const work = mkdtempSync(join(tmpdir(), "sr-first-"));
const folder = join(work, "bundles");
generateCorpus(folder, 1000, 4);
const port = await freePort();
const env = { ...process.env };
delete env.DATABASE_URL;
const t0 = performance.now();
const child = start(process.execPath, [...(prof ? ["--cpu-prof", `--cpu-prof-dir=${prof}`] : []), join(root!, "dist", "cli", "main.js"), "serve", folder, "--port", String(port)], { cwd: root!, env });
const ms = await waitFor200(`http://127.0.0.1:${port}/api/v1/bundles`, child, t0);
console.log(`${root}: spawn -> first 200 ${ms.toFixed(0)} ms`);
await stop(child, 120_000);
rmSync(work, { recursive: true, force: true });
