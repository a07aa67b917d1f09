/** Subprocesses for the benchmarks: start, wait for an answer, stop; all bounded in time. */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { performance } from "node:perf_hooks";

const children = new Set<ChildProcess>();

/** Every subprocess still running; the caller kills them on the way out. */
export function liveChildren(): ChildProcess[] {
  return [...children].filter((c) => c.exitCode === null && c.signalCode === null);
}

/** Kill every subprocess still running (SIGKILL), e.g. on an error or Ctrl-C. */
export function killAll(): void {
  for (const c of liveChildren()) c.kill("SIGKILL");
}

export interface Child {
  proc: ChildProcess;
  /** stderr so far (the last 64 KB). */
  stderr(): string;
  /** Resolves with the exit code (or the signal name) when the process ends. */
  exited: Promise<number | string>;
}

export function start(cmd: string, args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv }): Child {
  const proc = spawn(cmd, args, {
    cwd: opts.cwd,
    env: opts.env ?? process.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(proc);
  let err = "";
  proc.stderr.setEncoding("utf8");
  proc.stderr.on("data", (chunk: string) => {
    err = (err + chunk).slice(-65536);
  });
  proc.stdout.resume();
  const exited = new Promise<number | string>((resolve) => {
    proc.once("exit", (code, signal) => {
      children.delete(proc);
      resolve(code ?? signal ?? -1);
    });
  });
  return { proc, stderr: () => err, exited };
}

/** Stop with SIGTERM; SIGKILL after `graceMs`. Resolves with the exit code. */
export async function stop(child: Child, graceMs = 10_000): Promise<number | string> {
  if (child.proc.exitCode !== null || child.proc.signalCode !== null) return child.exited;
  child.proc.kill("SIGTERM");
  const timer = setTimeout(() => child.proc.kill("SIGKILL"), graceMs);
  try {
    return await child.exited;
  } finally {
    clearTimeout(timer);
  }
}

/** A port on 127.0.0.1 that nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const addr = s.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/**
 * Poll `url` until it answers 200; returns the milliseconds since `since`.
 * Fails when the process exits first or after `timeoutMs`.
 */
export async function waitFor200(
  url: string,
  child: Child,
  since: number,
  timeoutMs = 180_000,
  everyMs = 10,
): Promise<number> {
  const deadline = since + timeoutMs;
  let last = "";
  while (performance.now() < deadline) {
    if (child.proc.exitCode !== null || child.proc.signalCode !== null)
      throw new Error(
        `the server exited (${child.proc.exitCode ?? child.proc.signalCode}) before answering:\n${child.stderr()}`,
      );
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(30_000) });
      await res.arrayBuffer();
      if (res.status === 200) return performance.now() - since;
      last = `HTTP ${res.status}`;
    } catch (err) {
      last =
        err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`no 200 from ${url} within ${timeoutMs} ms (last: ${last})\n${child.stderr()}`);
}
