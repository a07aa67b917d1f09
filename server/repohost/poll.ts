/**
 * Keeping sources in step without webhooks, and resuming after a rate limit's wait
 * (docs/app.md, "Reading a repository"). Every `tickMs`, each instance looks for:
 *
 * - sources read with the workspace token (no App installation, so no push webhook)
 *   whose last read is older than `pollMs`: a sync, which costs one conditional request
 *   (the branch's ref, answered 304 and not counted by GitHub) when nothing changed;
 * - sources waiting for a rate limit whose `resume_at` has come: the sync resumes;
 * - sources left `syncing` by an instance that died (their lease ran out).
 *
 * One instance at a time per source: a source is claimed by a conditional update of its
 * `lease_until` (the instance that wins the row syncs it; the others skip it), so several
 * instances on one database neither poll twice nor resume early.
 */
import { and, eq, isNotNull, isNull, lt, lte, or } from "drizzle-orm";
import type { Db } from "../db/index.js";
import { repohostSources } from "../db/schema.js";
import type { Clock, Logger } from "../deps.js";
import type { RepohostStore } from "./store.js";
import { SYNC_LEASE_MS } from "./sync.js";

export interface PollOptions {
  /** How often an instance looks (default 30 s). */
  tickMs?: number;
  /** How often a token-read source is read (default 5 minutes). */
  pollMs?: number;
}

export const DEFAULT_POLL_MS = 5 * 60_000;
export const DEFAULT_TICK_MS = 30_000;

export class SourcePoller {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  readonly pollMs: number;
  readonly tickMs: number;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly store: RepohostStore,
    opts: PollOptions = {},
  ) {
    this.pollMs = opts.pollMs ?? DEFAULT_POLL_MS;
    this.tickMs = opts.tickMs ?? DEFAULT_TICK_MS;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), this.tickMs);
    this.timer.unref();
    // At start too: a wait that ended, or a poll that came due, while no instance ran.
    void this.tick();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One look (the timer's; tests call it). Resolves when the syncs it started are done. */
  tick(): Promise<void> {
    this.running ??= this.look().finally(() => (this.running = undefined));
    return this.running;
  }

  /** What makes a source due now: a wait over, a token-read source not read for `pollMs`, a dead lease. */
  private dueNow() {
    const now = this.clock.now();
    const stale = new Date(now.getTime() - this.pollMs);
    return and(
      isNull(repohostSources.deletedAt),
      or(isNull(repohostSources.leaseUntil), lt(repohostSources.leaseUntil, now)),
      or(
        and(eq(repohostSources.syncState, "waiting_rate_limit"), lte(repohostSources.resumeAt, now)),
        and(
          isNull(repohostSources.installationId),
          or(isNull(repohostSources.resumeAt), lte(repohostSources.resumeAt, now)),
          or(isNull(repohostSources.lastSyncedAt), lt(repohostSources.lastSyncedAt, stale)),
        ),
        and(eq(repohostSources.syncState, "syncing"), isNotNull(repohostSources.leaseUntil)),
      ),
    );
  }

  /** The sources due now. */
  async due(): Promise<string[]> {
    const rows = await this.db.select({ id: repohostSources.id }).from(repohostSources).where(this.dueNow());
    return rows.map((r) => r.id);
  }

  /**
   * Claim a source for this instance while it is still due: false when another instance
   * holds it, or has read it since this one looked.
   */
  async claim(sourceId: string): Promise<boolean> {
    const now = this.clock.now();
    const won = await this.db
      .update(repohostSources)
      .set({ leaseUntil: new Date(now.getTime() + SYNC_LEASE_MS) })
      .where(and(eq(repohostSources.id, sourceId), this.dueNow()))
      .returning({ id: repohostSources.id });
    return won.length > 0;
  }

  private async look(): Promise<void> {
    let ids: string[];
    try {
      ids = await this.due();
    } catch (err) {
      this.logger.warn("repohost poll: listing due sources failed", { error: String(err) });
      return;
    }
    for (const id of ids) {
      if (!(await this.claim(id))) continue;
      try {
        await this.store.sync(id);
      } catch (err) {
        // The source says why (sync_error); the next poll tries again.
        this.logger.debug("repohost poll: sync failed", { source: id, error: String(err) });
      }
    }
  }
}
