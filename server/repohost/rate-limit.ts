/**
 * GitHub's rate limits, as GitHub documents them
 * (https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api):
 *
 * - primary: `x-ratelimit-remaining: 0` on a 403 or 429: no call before `x-ratelimit-reset`
 *   (epoch seconds);
 * - secondary: a 403 or 429 that is not the primary limit: wait `retry-after` seconds when
 *   the answer says, else at least a minute, doubling on each secondary limit in a row.
 *
 * What to wait is decided here (`rateLimitOf`); the client (github.ts) refuses to send
 * before it (`RateLimitedError`, no request); the sync (sync.ts) stores the wait on the
 * source (`resume_at`, `sync_state: waiting_rate_limit`) so that every instance, and this
 * one after a restart, waits too, and the poller (poll.ts) resumes it when it is over.
 */

/** The least wait on a secondary limit that names none. */
export const SECONDARY_MIN_WAIT_MS = 60_000;
/** The longest a doubled secondary wait grows to. */
export const SECONDARY_MAX_WAIT_MS = 60 * 60_000;

export type RateLimitKind = "primary" | "secondary";

/** The repo host said to wait: nothing is sent to it before `resumeAt`. */
export class RateLimitedError extends Error {
  constructor(
    readonly kind: RateLimitKind,
    readonly resumeAt: Date,
    /** True when the answer named the time (`retry-after` or `x-ratelimit-reset`). */
    readonly told: boolean,
    message: string,
    /** The wait in ms, as of when it was met (by the client's clock). */
    readonly waitMs = 0,
  ) {
    super(message);
    this.name = "RateLimitedError";
  }
}

/** The wait of a secondary limit without `retry-after`, after `strikes` in a row before it. */
export function secondaryWaitMs(strikes: number): number {
  return Math.min(SECONDARY_MIN_WAIT_MS * 2 ** Math.max(0, strikes), SECONDARY_MAX_WAIT_MS);
}

/**
 * The rate limit an answer reports, or undefined when it is not one. `strikes`: secondary
 * limits in a row without `retry-after` before this one (the exponential backoff).
 */
export function rateLimitOf(
  status: number,
  headers: Headers,
  message: string,
  now: Date,
  strikes = 0,
): { kind: RateLimitKind; resumeAt: Date; told: boolean } | undefined {
  if (status !== 403 && status !== 429) return undefined;
  const retryAfter = headers.get("retry-after");
  const remaining = headers.get("x-ratelimit-remaining");
  const reset = Number(headers.get("x-ratelimit-reset"));
  if (retryAfter !== null && /^\d+$/.test(retryAfter.trim()))
    return {
      kind: remaining === "0" ? "primary" : "secondary",
      resumeAt: new Date(now.getTime() + Number(retryAfter.trim()) * 1000),
      told: true,
    };
  if (remaining === "0" && Number.isFinite(reset) && reset > 0)
    // The reset is in whole seconds: a second more so the first call after it is not early.
    return { kind: "primary", resumeAt: new Date(Math.max(now.getTime(), reset * 1000 + 1000)), told: true };
  // A 403 that is neither: only a secondary limit when GitHub's message says so (else: permissions).
  if (status === 403 && !/rate limit/i.test(message)) return undefined;
  return { kind: "secondary", resumeAt: new Date(now.getTime() + secondaryWaitMs(strikes)), told: false };
}

/** What the last answers said of the budget: for the metrics. */
export interface RateBudget {
  limit: number;
  remaining: number;
  /** Epoch seconds. */
  reset: number;
  resource: string;
}

export function budgetOf(headers: Headers): RateBudget | undefined {
  const remaining = headers.get("x-ratelimit-remaining");
  const limit = headers.get("x-ratelimit-limit");
  if (remaining === null || limit === null) return undefined;
  return {
    limit: Number(limit),
    remaining: Number(remaining),
    reset: Number(headers.get("x-ratelimit-reset") ?? 0),
    resource: headers.get("x-ratelimit-resource") ?? "core",
  };
}

/** Observers of rate-limit events (the metrics; server/metrics.ts). */
export interface RateLimitObserver {
  budget?(who: string, budget: RateBudget): void;
  waited?(who: string, kind: RateLimitKind, ms: number): void;
}
