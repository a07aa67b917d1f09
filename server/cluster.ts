/**
 * Instances on one Postgres hear each other through `LISTEN/NOTIFY` on one channel: a
 * notice says what changed (a bundle, a run's events, a queued run, a session, the
 * profiles), never the data itself, which every instance reads from the database.
 *
 * - Sending: `pg_notify` on the main pool, after the write committed. `flush()` resolves
 *   once every notice sent so far is in Postgres: a request that wrote awaits it before it
 *   answers (server/cluster-wire.ts), so the notice is out before the client can ask
 *   another instance.
 * - Listening: one dedicated connection. `sync()` is a round trip on that connection:
 *   Postgres hands a listener the notices committed before a query ahead of that query's
 *   answer, so after `sync()` every notice sent before it has been heard. A read of a
 *   cache awaits it; that is how a write through one instance is read at once through
 *   the others, at the price of one tiny query per cached read.
 * - A lost listening connection loses notices: while it is down the caches are not
 *   trusted, and once it is back every listener of `onResync` reloads in full.
 *
 * PGlite (local mode) has one process: `LocalCluster` has no peers and costs nothing.
 */
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Sql } from "postgres";
import type { Db } from "./db/index.js";
import type { Logger } from "./deps.js";

/** What changed; each instance reads the data itself. */
export type Notice =
  /** A bundle's view changed; `version`: a new version (readers of it go stale too). */
  | { t: "bundle"; id: string; version?: boolean; docId?: string; run?: boolean }
  /** A run has events after `seq`. */
  | { t: "run"; id: string; seq: number }
  /** A full run was queued. */
  | { t: "queued" }
  /** Sessions or tokens ended: of a person, or one by its hash. */
  | { t: "session"; userId?: string; hash?: string }
  /** A profile was created, saved, rolled back or deleted. */
  | { t: "profiles" }
  /** A doc's waivers or threads changed (a decision may wait: server/waivers/pending.ts). */
  | { t: "pending"; docId: string }
  /** The workspace settings were written. */
  | { t: "settings" };

export interface Cluster {
  /** This instance's id (notices it sent come back to it and are skipped). */
  readonly id: string;
  /** `postgres` when other instances may exist; `local` has no peers. */
  readonly kind: "postgres" | "local";
  /** Tell the other instances. */
  publish(notice: Notice): void;
  /** Notices from the other instances. */
  on(listener: (notice: Notice) => void): () => void;
  /** After a lost listening connection came back: caches reload in full. */
  onResync(listener: () => void): () => void;
  /**
   * Every notice sent by others before this call has been heard: true; false when that
   * cannot be known (the listening connection is down), and a cache must read afresh.
   */
  sync(): Promise<boolean>;
  /** Every notice this instance published so far is in Postgres. */
  flush(): Promise<void>;
  /** True while notices are heard (a cache that is not may not be trusted). */
  readonly listening: boolean;
  close(): Promise<void>;
}

export const CHANNEL = "spec_review_cluster";
/** The listening connection's application_name. */
export const LISTENER_NAME = "spec-review cluster listener";
/** A sync round trip slower than this is given up: the caller reads from the database. */
const SYNC_TIMEOUT_MS = 2000;

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let t: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    t = setTimeout(() => reject(new Error("timed out")), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(t));
}

/** One process, no peers: everything is in-process already. */
export class LocalCluster implements Cluster {
  readonly id = `local-${randomUUID()}`;
  readonly kind = "local";
  readonly listening = true;
  publish(): void {}
  on(): () => void {
    return () => {};
  }
  onResync(): () => void {
    return () => {};
  }
  sync(): Promise<boolean> {
    return Promise.resolve(true);
  }
  async flush(): Promise<void> {}
  async close(): Promise<void> {}
}

export interface PgClusterOptions {
  /** The Postgres URL (the listening connection is opened from it). */
  url: string;
  /** The main pool: notices are sent on it. */
  db: Db;
  logger: Logger;
  /** First wait before listening again after a lost connection (doubles up to 5 s). */
  retryMs?: number;
}

export class PgCluster implements Cluster {
  readonly id = randomUUID();
  readonly kind = "postgres";
  private listener: Sql | undefined;
  private readonly listeners = new Set<(n: Notice) => void>();
  private readonly resyncs = new Set<() => void>();
  private readonly sending = new Set<Promise<unknown>>();
  private up = false;
  private closed = false;
  private reconnecting: Promise<void> | undefined;
  /** The round trip in flight, and the one that starts after it (reads join the latter). */
  private current: Promise<boolean> | undefined;
  private next: Promise<boolean> | undefined;

  private constructor(private readonly opts: PgClusterOptions) {}

  static async connect(opts: PgClusterOptions): Promise<PgCluster> {
    const c = new PgCluster(opts);
    await c.listen();
    return c;
  }

  get listening(): boolean {
    return this.up;
  }

  private async listen(): Promise<void> {
    const { default: postgres } = await import("postgres");
    // `onnotify` is the driver's own hook for notifications on a connection (what its
    // `listen` helper is built on; not in its types): with it, this one connection both
    // listens and answers `sync()`'s round trips, in order.
    const options = {
      max: 1,
      idle_timeout: null,
      max_lifetime: null,
      fetch_types: false,
      // Named, so operators (and the tests) can tell it in pg_stat_activity.
      connection: { application_name: LISTENER_NAME },
      onnotice: () => {},
      onnotify: (channel: string, payload: string) => {
        if (channel === CHANNEL) this.heard(payload);
      },
      onclose: () => this.lost(),
    };
    this.listener ??= postgres(this.opts.url, options as unknown as Parameters<typeof postgres>[1]);
    await this.listener.unsafe(`LISTEN ${CHANNEL}`);
    this.up = true;
  }

  private heard(payload: string): void {
    let msg: { from?: string; n?: Notice };
    try {
      msg = JSON.parse(payload) as typeof msg;
    } catch {
      return;
    }
    if (!msg.n || msg.from === this.id) return;
    for (const l of this.listeners) {
      try {
        l(msg.n);
      } catch (err) {
        this.opts.logger.error("a cluster notice failed", { error: String(err) });
      }
    }
  }

  /** The listening connection closed: listen again (with back-off), then every cache reloads. */
  private lost(): void {
    if (this.closed || !this.up) return;
    this.up = false;
    this.opts.logger.warn("cluster: lost the listening connection; listening again");
    this.reconnecting ??= (async () => {
      let wait = this.opts.retryMs ?? 100;
      while (!this.closed) {
        try {
          await this.listen();
          break;
        } catch (err) {
          this.opts.logger.warn("cluster: listening failed", { error: String(err), retry_ms: wait });
          await new Promise((r) => setTimeout(r, wait));
          wait = Math.min(wait * 2, 5000);
        }
      }
      this.reconnecting = undefined;
      if (this.closed) return;
      this.opts.logger.info("cluster: listening again; reloading caches");
      for (const r of this.resyncs) {
        try {
          r();
        } catch (err) {
          this.opts.logger.error("a cluster resync failed", { error: String(err) });
        }
      }
    })();
  }

  publish(notice: Notice): void {
    if (this.closed) return;
    const payload = JSON.stringify({ from: this.id, n: notice });
    const p = this.opts.db
      .execute(sql`select pg_notify(${CHANNEL}, ${payload})`)
      .catch((err: unknown) =>
        this.opts.logger.warn("cluster: a notice was not sent", { error: String(err) }),
      )
      .finally(() => this.sending.delete(p));
    this.sending.add(p);
  }

  async flush(): Promise<void> {
    while (this.sending.size > 0) await Promise.all([...this.sending]);
  }

  on(listener: (notice: Notice) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onResync(listener: () => void): () => void {
    this.resyncs.add(listener);
    return () => this.resyncs.delete(listener);
  }

  sync(): Promise<boolean> {
    if (this.closed || !this.listener) return Promise.resolve(false);
    // A round trip already in flight may have started before the caller's write
    // committed: join the one after it (many concurrent reads share one).
    if (this.next) return this.next;
    const after = this.current ?? Promise.resolve(true);
    const run: Promise<boolean> = after.then(async () => {
      if (this.next === run) this.next = undefined;
      this.current = run;
      try {
        if (!this.up) return false;
        await withTimeout(this.listener!.unsafe("select 1"), SYNC_TIMEOUT_MS);
        return this.up;
      } catch {
        // The connection dropped (`lost` reloads everything once it is back) or is stuck.
        return false;
      } finally {
        if (this.current === run) this.current = undefined;
      }
    });
    this.next = run;
    return run;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.flush();
    this.closed = true;
    this.up = false;
    await this.listener?.end({ timeout: 2 });
  }
}
