/** Summaries of a V8 `.cpuprofile` (from `node --cpu-prof`): where the samples fall. */
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  startTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface HotSpot {
  name: string;
  /** Share of all samples, 0..1. */
  share: number;
}

function where(n: ProfileNode): string {
  const { functionName, url, lineNumber } = n.callFrame;
  const file = url.replace(/^file:\/\//, "").replace(/^.*\/node_modules\//, "~/");
  const short = file.startsWith("~/") ? file : file.replace(/^.*\/(dist|bench)\//, "$1/");
  return `${functionName || "(anonymous)"} ${short}:${lineNumber + 1}`;
}

/** Now on the clock of a profile's timestamps (CLOCK_MONOTONIC in microseconds, as V8's). */
export function profileClock(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/**
 * Self time by function and total (inclusive) time by function, the top `n` of each,
 * leaving out the idle and GC pseudo-frames from the inclusive list. With `window`
 * (from `profileClock()`), only the samples taken inside it.
 */
export function summarize(
  path: string,
  n = 15,
  window?: { from: number; to: number },
): { self: HotSpot[]; total: HotSpot[]; samples: number } {
  const prof = JSON.parse(readFileSync(path, "utf8")) as CpuProfile;
  const byId = new Map(prof.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of prof.nodes) for (const c of node.children ?? []) parent.set(c, node.id);
  const selfCount = new Map<string, number>();
  const totalCount = new Map<string, number>();
  let busy = 0;
  let taken = 0;
  let at = prof.startTime;
  for (let i = 0; i < prof.samples.length; i++) {
    at += prof.timeDeltas[i] ?? 0;
    if (window && (at < window.from || at > window.to)) continue;
    taken++;
    const node = byId.get(prof.samples[i]!);
    if (!node) continue;
    const name = where(node);
    selfCount.set(name, (selfCount.get(name) ?? 0) + 1);
    if (node.callFrame.functionName === "(idle)") continue;
    busy++;
    const seen = new Set<string>();
    for (let cur: number | undefined = node.id; cur !== undefined; cur = parent.get(cur)) {
      const frame = byId.get(cur)!;
      if (frame.callFrame.functionName === "(root)") continue;
      const fname = where(frame);
      if (seen.has(fname)) continue;
      seen.add(fname);
      totalCount.set(fname, (totalCount.get(fname) ?? 0) + 1);
    }
  }
  const top = (m: Map<string, number>, of: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, count]) => ({ name, share: count / Math.max(1, of) }));
  return { self: top(selfCount, taken), total: top(totalCount, busy), samples: taken };
}

/** Which part of the server a frame belongs to, by its script. */
function categoryOf(fn: string, url: string): string | undefined {
  if (fn === "(idle)") return "idle";
  if (fn === "(garbage collector)") return "garbage collector";
  if (/\/(dist\/)?core\//.test(url) && !url.includes("node_modules")) return "core (lint, markdown)";
  if (url.includes("@electric-sql/pglite") || url.startsWith("wasm")) return "PGlite";
  if (url.includes("drizzle-orm")) return "drizzle";
  if (url.includes("chokidar")) return "chokidar (watcher)";
  if (url.includes("/store/fsutil")) return "store/fsutil (walk, atomic writes)";
  if (/\/(dist\/)?server\//.test(url) && !url.includes("node_modules")) return "server (routes, store, runs)";
  if (url.includes("/hono/") || url.includes("@hono/")) return "hono";
  return undefined;
}

/**
 * Share of the samples in `window` by part of the program: each sample goes to the
 * innermost frame that names one (so time in PGlite called from the store counts as PGlite).
 */
export function categories(
  path: string,
  window: { from: number; to: number },
): { share: number; name: string }[] {
  const prof = JSON.parse(readFileSync(path, "utf8")) as CpuProfile;
  const byId = new Map(prof.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of prof.nodes) for (const c of node.children ?? []) parent.set(c, node.id);
  const counts = new Map<string, number>();
  let taken = 0;
  let at = prof.startTime;
  for (let i = 0; i < prof.samples.length; i++) {
    at += prof.timeDeltas[i] ?? 0;
    if (at < window.from || at > window.to) continue;
    taken++;
    let name = "other (node: fs, http, streams)";
    for (let cur: number | undefined = prof.samples[i]; cur !== undefined; cur = parent.get(cur)) {
      const f = byId.get(cur)?.callFrame;
      const c = f && categoryOf(f.functionName, f.url);
      if (c) {
        name = c;
        break;
      }
    }
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([name, count]) => ({ name, share: count / Math.max(1, taken) }));
}
