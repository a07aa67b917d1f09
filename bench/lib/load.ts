/** Load from autocannon, in process, with the figures the benchmark reports. */
import autocannon from "autocannon";

export interface LoadFigures {
  p50: number;
  p99: number;
  requests: number;
  rps: number;
  /** Answers by status code. */
  statuses: Record<string, number>;
  /** Connection errors and timeouts. */
  errors: number;
}

export interface LoadOptions {
  url: string;
  connections: number;
  seconds: number;
  method?: "GET" | "PUT";
  requests?: autocannon.Request[];
}

/** The q-quantile (0..1) of sorted values, nearest rank. */
export function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/**
 * Runs autocannon and computes p50/p99 from every response's own time (autocannon's
 * histogram keeps whole milliseconds, too coarse for a bare route answering in 0.2 ms).
 */
export async function load(opts: LoadOptions): Promise<LoadFigures> {
  const times: number[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: opts.url,
        connections: opts.connections,
        duration: opts.seconds,
        method: opts.method ?? "GET",
        requests: opts.requests,
        timeout: 30,
      },
      (err: unknown, res: autocannon.Result) =>
        err ? reject(err instanceof Error ? err : new Error(JSON.stringify(err))) : resolve(res),
    );
    instance.on("response", (_client, _status, _bytes, responseTime) => {
      times.push(responseTime);
    });
  });
  times.sort((a, b) => a - b);
  const statuses: Record<string, number> = {};
  for (const [code, s] of Object.entries(result.statusCodeStats ?? {})) statuses[code] = s.count ?? 0;
  return {
    p50: quantile(times, 0.5),
    p99: quantile(times, 0.99),
    requests: result.requests.total,
    rps: result.requests.average,
    statuses,
    errors: result.errors,
  };
}

/** A short run to warm up the JIT and the connections before measuring. */
export async function warmUp(opts: LoadOptions): Promise<void> {
  await load({ ...opts, seconds: Math.min(2, opts.seconds) });
}

export function statusText(f: LoadFigures): string {
  return Object.entries(f.statuses)
    .map(([code, n]) => `${n} x ${code}`)
    .join(", ");
}
