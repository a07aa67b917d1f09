/**
 * A run's events, persisted (run_events) in order with a sequence number per run: the
 * SSE stream sends them with that number as the event id, so `Last-Event-ID` resumes.
 */
import { and, asc, eq, gt, sql } from "drizzle-orm";
import type { Db } from "../db/index.js";
import { runEvents, type verificationEvents } from "../db/schema.js";
import type { Clock } from "../deps.js";
import type { RunBus } from "./bus.js";
import { redactDeep } from "../redact.js";

/**
 * Where a kind of run keeps its events: review runs in run_events, verification runs in
 * verification_events (same columns, each referencing its own run table).
 */
export type EventTable = typeof runEvents | typeof verificationEvents;

export interface RunEvent {
  seq: number;
  name: string;
  data: unknown;
}

/** Writes one run's events one at a time, in the order they are emitted. */
export class EventWriter {
  private chain: Promise<void> = Promise.resolve();
  private seq: number | undefined;
  private failed: Error | undefined;

  constructor(
    private readonly db: Db,
    private readonly bus: RunBus,
    private readonly clock: Clock,
    readonly runId: string,
    table: EventTable = runEvents,
  ) {
    // Both tables have the same columns; only their foreign key differs.
    this.table = table as typeof runEvents;
  }

  private readonly table: typeof runEvents;

  emit(name: string, data: unknown): void {
    this.chain = this.chain.then(async () => {
      try {
        if (this.seq === undefined) {
          const [row] = await this.db
            .select({ max: sql<number>`coalesce(max(${this.table.seq}), 0)::int` })
            .from(this.table)
            .where(eq(this.table.runId, this.runId));
          this.seq = row?.max ?? 0;
        }
        const seq = ++this.seq;
        await this.db
          .insert(this.table)
          .values({ runId: this.runId, seq, name, data: redactDeep(data), createdAt: this.clock.now() });
        this.bus.published(this.runId, seq);
      } catch (err) {
        this.failed ??= err instanceof Error ? err : new Error(String(err));
      }
    });
  }

  /** Resolves when every event emitted so far is written. */
  async flush(): Promise<void> {
    await this.chain;
    if (this.failed) throw this.failed;
  }
}

export async function eventsAfter(
  db: Db,
  runId: string,
  after: number,
  limit = 500,
  table: EventTable = runEvents,
): Promise<RunEvent[]> {
  const t = table as typeof runEvents;
  const rows = await db
    .select({ seq: t.seq, name: t.name, data: t.data })
    .from(t)
    .where(and(eq(t.runId, runId), gt(t.seq, after)))
    .orderBy(asc(t.seq))
    .limit(limit);
  return rows;
}
