/**
 * GitHub's rate limits on the App's Octokit clients (docs/app.md, "Rate limits"), with
 * @octokit/plugin-throttling and @octokit/plugin-retry (both in Probot's Octokit), whose
 * callbacks do what GitHub documents rather than Probot's defaults:
 *
 * - the repo's own client reads an installation's repositories one request at a time
 *   (server/repohost/github.ts); the handlers' writes go one at a time through the
 *   throttling plugin (its `write` group, keyed by installation);
 * - a primary limit waits until `x-ratelimit-reset`, a secondary one `retry-after`, or at
 *   least a minute without it (the plugin's fallback), each once, and only when the wait
 *   is short enough for a webhook's handler (`INLINE_WAIT_MAX_S`); a longer one fails the
 *   handler, the delivery stays unfinished, and the reconciliation redelivers it later;
 * - the requests of the repo's own client (server/repohost/github.ts, through
 *   `octokitFetch`) never wait inside Octokit: that client stores the wait on the source
 *   (`resume_at`) and the sync resumes by itself (server/repohost/sync.ts), so they carry
 *   `request.specReviewOwnWait` and the callbacks give them back at once; the retry plugin
 *   leaves them alone too (`retries: 0`).
 */
import type { Probot } from "probot";
import type { RateLimitObserver } from "../server/repohost/rate-limit.js";

/** The longest rate-limit wait a webhook's handler sits through before it gives up. */
export const INLINE_WAIT_MAX_S = 90;

/** Marks a request whose rate limits the caller handles itself (`request.specReviewOwnWait`). */
export const OWN_WAIT = "specReviewOwnWait";

interface LimitedOptions {
  method?: string;
  url?: string;
  request?: Record<string, unknown>;
}

/** The `throttle` options of the App's Octokit (Probot's `Octokit.defaults`). */
export function throttleOptions(
  log: { warn(msg: string): void },
  observer?: RateLimitObserver,
): Record<string, unknown> {
  const decide =
    (kind: "primary" | "secondary") =>
    (retryAfter: number, options: LimitedOptions, _octokit: unknown, retryCount: number): boolean => {
      observer?.waited?.("app", kind, retryAfter * 1000);
      if (options.request?.[OWN_WAIT]) return false;
      const retry = retryCount === 0 && retryAfter <= INLINE_WAIT_MAX_S;
      log.warn(
        `GitHub ${kind} rate limit on ${options.method ?? "GET"} ${options.url ?? ""}: ${
          retry
            ? `retrying in ${retryAfter} s`
            : `giving up (wait ${retryAfter} s; the delivery is redelivered later)`
        }`,
      );
      return retry;
    };
  return {
    enabled: true,
    fallbackSecondaryRateRetryAfter: 60,
    onRateLimit: decide("primary"),
    onSecondaryRateLimit: decide("secondary"),
  };
}

/** Probot's Octokit with these throttle options. */
export function throttledOctokit<T>(
  Octokit: T,
  log: { warn(msg: string): void },
  observer?: RateLimitObserver,
): T {
  const base = Octokit as unknown as { defaults(o: Record<string, unknown>): unknown };
  return base.defaults({ throttle: throttleOptions(log, observer) }) as T;
}

/** The installation's token (renewed by Probot's auth), for the streamed archive. */
export async function installationToken(app: Probot, installationId: number): Promise<string> {
  const gh = (await app.auth(installationId)) as unknown as {
    auth(options: { type: string }): Promise<{ token: string }>;
  };
  return (await gh.auth({ type: "installation" })).token;
}
