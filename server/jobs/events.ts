/**
 * A run's events, persisted (run_events) in order with a sequence number per run: the
 * SSE stream sends them with that number as the event id, so `Last-Event-ID` resumes.
 */
import { and, asc, eq, gt, sql } from "drizzle-orm";
import type { Db } from "../db/index.js";
import { runEvents } from "../db/schema.js";
import type { Clock } from "../deps.js";
import type { RunBus } from "./bus.js";
import { redactDeep } from "../redact.js";

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
  ) {}

  emit(name: string, data: unknown): void {
    this.chain = this.chain.then(async () => {
      try {
        if (this.seq === undefined) {
          const [row] = await this.db
            .select({ max: sql<number>`coalesce(max(${runEvents.seq}), 0)::int` })
            .from(runEvents)
            .where(eq(runEvents.runId, this.runId));
          this.seq = row?.max ?? 0;
        }
        const seq = ++this.seq;
        await this.db
          .insert(runEvents)
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

export async function eventsAfter(db: Db, runId: string, after: number, limit = 500): Promise<RunEvent[]> {
  const rows = await db
    .select({ seq: runEvents.seq, name: runEvents.name, data: runEvents.data })
    .from(runEvents)
    .where(and(eq(runEvents.runId, runId), gt(runEvents.seq, after)))
    .orderBy(asc(runEvents.seq))
    .limit(limit);
  return rows;
}
