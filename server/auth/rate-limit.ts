/**
 * Failed sign-in attempts, counted per account and per address over a sliding window.
 * Kept in memory: a process restart forgets them, and each process of a multi-process
 * deployment counts its own (docs/accounts.md says so).
 */

export interface Limit {
  /** Failures allowed inside the window. */
  max: number;
  windowMs: number;
}

/** Per account: 5 failures in 15 minutes. Per address: 20 failures in 15 minutes. */
export const SIGN_IN_LIMITS = {
  account: { max: 5, windowMs: 15 * 60 * 1000 },
  address: { max: 20, windowMs: 15 * 60 * 1000 },
} as const satisfies Record<string, Limit>;

/** Above this many keys, keys whose failures all left the window are dropped. */
const SWEEP_AT = 10_000;

export class FailureCounter {
  private readonly failures = new Map<string, number[]>();

  constructor(private readonly limit: Limit) {}

  private recent(key: string, now: number): number[] {
    const all = this.failures.get(key);
    if (!all) return [];
    const kept = all.filter((t) => now - t < this.limit.windowMs);
    if (kept.length === 0) this.failures.delete(key);
    else if (kept.length !== all.length) this.failures.set(key, kept);
    return kept;
  }

  /** Seconds until another attempt is allowed, or 0 when one is allowed now. */
  retryAfter(key: string, now: number): number {
    const recent = this.recent(key, now);
    if (recent.length < this.limit.max) return 0;
    const oldest = recent[recent.length - this.limit.max]!;
    return Math.max(1, Math.ceil((oldest + this.limit.windowMs - now) / 1000));
  }

  fail(key: string, now: number): void {
    if (this.failures.size >= SWEEP_AT) for (const k of [...this.failures.keys()]) this.recent(k, now);
    const list = this.recent(key, now);
    list.push(now);
    this.failures.set(key, list);
  }

  clear(key: string): void {
    this.failures.delete(key);
  }
}

/** Sign-in's two counters. */
export class SignInLimiter {
  private readonly accounts = new FailureCounter(SIGN_IN_LIMITS.account);
  private readonly addresses = new FailureCounter(SIGN_IN_LIMITS.address);

  /** Seconds to wait before this account may be tried from this address, 0 when allowed. */
  retryAfter(email: string, address: string, now: number): number {
    return Math.max(this.accounts.retryAfter(email, now), this.addresses.retryAfter(address, now));
  }

  failed(email: string, address: string, now: number): void {
    this.accounts.fail(email, now);
    this.addresses.fail(address, now);
  }

  /** A good password clears the account's count (the address keeps its own). */
  succeeded(email: string): void {
    this.accounts.clear(email);
  }
}
