/**
 * The review worker: claims queued full runs and runs them, a few at a time. It keeps a
 * heartbeat on the runs it holds, finds runs a dead process left `running` (at start and
 * every half lease), and on stop hands the runs it holds back to the queue.
 */
import { randomUUID } from "node:crypto";
import type { Db } from "../db/index.js";
import type { Clock, Logger } from "../deps.js";
import type { RunRow } from "../runs.js";
import type { RunBus } from "./bus.js";
import { EventWriter } from "./events.js";
import { claimNext, heartbeat, recoverRuns } from "./queue.js";

export interface WorkerOptions {
  /** Runs worked on at once (each makes at most `parallel_calls` model calls at once). */
  concurrency?: number;
  /** How often to look for queued runs when nobody says one was queued. */
  pollMs?: number;
  heartbeatMs?: number;
  /** A `running` run whose heartbeat is older than this is taken as abandoned. */
  leaseMs?: number;
  /** The only process on this database (local mode): every `running` run at start is abandoned. */
  exclusive?: boolean;
  /** Claims of one run before an abandoned run is failed rather than requeued. */
  maxAttempts?: number;
  /** Housekeeping run at start and with each recovery sweep (purging expired ad-hoc reviews). */
  sweep?: () => Promise<void>;
  /** Called after a run this worker held ended (metrics: its stage durations). */
  afterRun?: (runId: string) => Promise<void>;
}

export type ExecuteRun = (run: RunRow, signal: AbortSignal, events: EventWriter) => Promise<void>;

export class ReviewWorker {
  readonly id = `worker-${randomUUID()}`;
  private readonly opts: Required<Omit<WorkerOptions, "sweep" | "afterRun">>;
  private readonly sweep: (() => Promise<void>) | undefined;
  private readonly afterRun: ((runId: string) => Promise<void>) | undefined;
  private readonly active = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private stopped = true;
  private loopDone: Promise<void> = Promise.resolve();
  private wake: (() => void) | undefined;
  private timers: NodeJS.Timeout[] = [];
  private offQueued: (() => void) | undefined;

  constructor(
    private readonly db: Db,
    private readonly bus: RunBus,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly execute: ExecuteRun,
    opts: WorkerOptions = {},
  ) {
    this.opts = {
      concurrency: opts.concurrency ?? 2,
      pollMs: opts.pollMs ?? 1000,
      heartbeatMs: opts.heartbeatMs ?? 5000,
      leaseMs: opts.leaseMs ?? 30_000,
      exclusive: opts.exclusive ?? false,
      maxAttempts: opts.maxAttempts ?? 2,
    };
    this.sweep = opts.sweep;
    this.afterRun = opts.afterRun;
  }

  async start(): Promise<void> {
    if (!this.stopped) return;
    this.stopped = false;
    await this.recover(this.opts.exclusive);
    this.offQueued = this.bus.onQueued(() => this.wake?.());
    this.timers.push(
      setInterval(() => {
        heartbeat(this.db, [...this.active.keys()], this.clock.now(), this.id).then(
          (lost) => {
            // Paused past the lease (docs/scale.md): another worker holds these now.
            if (lost.length > 0) this.logger.warn("runs taken over by another worker", { runs: lost });
          },
          (err: unknown) => this.logger.warn("heartbeat failed", { error: String(err) }),
        );
      }, this.opts.heartbeatMs),
      setInterval(() => {
        this.recover(false).catch((err: unknown) =>
          this.logger.warn("recovery failed", { error: String(err) }),
        );
      }, this.opts.leaseMs / 2),
    );
    for (const t of this.timers) t.unref();
    this.loopDone = this.loop();
  }

  /**
   * Stop claiming; runs in progress may finish for `graceMs` (a graceful shutdown), then
   * are stopped and go back to the queue, where another instance claims them at once.
   */
  async stop(graceMs = 0): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.offQueued?.();
    this.wake?.();
    await this.loopDone;
    if (graceMs > 0 && this.active.size > 0) {
      let t: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all([...this.active.values()].map((a) => a.done)),
        new Promise((r) => (t = setTimeout(r, graceMs))),
      ]);
      clearTimeout(t);
    }
    // The heartbeat keeps going while runs finish: stopping it first would let others take them.
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    for (const a of this.active.values()) a.controller.abort();
    await Promise.all([...this.active.values()].map((a) => a.done));
  }

  /** Resolves when no run is being worked on and none is queued (tests). */
  async idle(): Promise<void> {
    while (this.active.size > 0) await Promise.all([...this.active.values()].map((a) => a.done));
  }

  private async recover(all: boolean): Promise<void> {
    await this.sweep?.().catch((err: unknown) => this.logger.warn("sweep failed", { error: String(err) }));
    const r = await recoverRuns(this.db, this.clock.now(), {
      all,
      leaseMs: this.opts.leaseMs,
      maxAttempts: this.opts.maxAttempts,
    });
    for (const id of r.requeued) {
      const ev = new EventWriter(this.db, this.bus, this.clock, id);
      ev.emit("requeued", { reason: "the server stopped while the run was running" });
      await ev.flush();
    }
    for (const id of r.failed) {
      const ev = new EventWriter(this.db, this.bus, this.clock, id);
      ev.emit("failed", { code: "interrupted", error: "the server stopped while the run was running" });
      await ev.flush();
    }
    if (r.requeued.length || r.failed.length)
      this.logger.info("recovered abandoned runs", { requeued: r.requeued, failed: r.failed });
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      try {
        while (!this.stopped && this.active.size < this.opts.concurrency) {
          const run = await claimNext(this.db, this.id, this.clock.now());
          if (!run) break;
          this.spawn(run);
        }
      } catch (err) {
        this.logger.error("claiming a run failed", { error: String(err) });
      }
      if (this.stopped) break;
      await new Promise<void>((resolve) => {
        const t = setTimeout(done, this.opts.pollMs);
        function done() {
          clearTimeout(t);
          resolve();
        }
        this.wake = done;
      });
      this.wake = undefined;
    }
  }

  private spawn(run: RunRow): void {
    const controller = new AbortController();
    const events = new EventWriter(this.db, this.bus, this.clock, run.id);
    const done = this.execute(run, controller.signal, events)
      .catch((err: unknown) => this.logger.error("review run failed", { run: run.id, error: String(err) }))
      .then(() => this.afterRun?.(run.id))
      .catch((err: unknown) => this.logger.warn("after a run", { run: run.id, error: String(err) }))
      .finally(() => {
        this.active.delete(run.id);
        this.wake?.();
      });
    this.active.set(run.id, { controller, done });
  }
}
