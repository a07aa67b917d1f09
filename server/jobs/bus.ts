/**
 * The event bus of review runs: a worker says a run has a new event, a route says a run
 * was queued. Events themselves are rows (run_events), so a reader that misses a notice
 * (another instance, a reconnect) still finds them; the bus only wakes it early.
 *
 * One bus per service graph (server/services.ts): its routes, review service and worker
 * share it as `deps.bus`; two graphs in one process never hear each other. `InProcessBus`
 * serves one process; several instances on one Postgres need a bus over LISTEN/NOTIFY
 * with the same interface.
 */
import { EventEmitter } from "node:events";
import type { Cluster } from "../cluster.js";

export interface RunBus {
  /** The event stream's timing: a heartbeat after this long without events; the database is read again at least this often. */
  readonly sse: { heartbeatMs: number; pollMs: number };
  /** A run has events after `seq`. */
  published(runId: string, seq: number): void;
  /** Call `listener` on each new event of the run; returns the function that stops it. */
  onRun(runId: string, listener: (seq: number) => void): () => void;
  /** A run was queued: wake the workers. */
  queued(): void;
  onQueued(listener: () => void): () => void;
  /** Wake every follower and worker (after a reconnect, or to end streams on shutdown). */
  wakeAll?(): void;
}

export class InProcessBus implements RunBus {
  private readonly emitter = new EventEmitter();
  /** The event stream's timing: a heartbeat after this long without events; the database is read again at least this often. */
  readonly sse = { heartbeatMs: 15_000, pollMs: 1_000 };

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  /** A run has events after `seq`. */
  published(runId: string, seq: number): void {
    this.emitter.emit(`run:${runId}`, seq);
  }

  onRun(runId: string, listener: (seq: number) => void): () => void {
    this.emitter.on(`run:${runId}`, listener);
    return () => this.emitter.off(`run:${runId}`, listener);
  }

  /** A run was queued: wake the workers. */
  queued(): void {
    this.emitter.emit("queued");
  }

  /**
   * Every follower and worker of this process reads again: notices may have been missed
   * (a reconnect), or the server is stopping (followers end their streams).
   */
  wakeAll(): void {
    for (const name of this.emitter.eventNames()) {
      if (name === "queued") this.emitter.emit("queued");
      else if (typeof name === "string" && name.startsWith("run:")) this.emitter.emit(name, 0);
    }
  }

  onQueued(listener: () => void): () => void {
    this.emitter.on("queued", listener);
    return () => this.emitter.off("queued", listener);
  }
}

/**
 * Several instances on one Postgres (server/cluster.ts): what this instance publishes is
 * heard here at once and by the others through NOTIFY, within milliseconds. The event
 * stream still reads the rows, so a notice lost while the listening connection was down
 * costs nothing: on reconnect every follower and worker is woken to read again, and the
 * slow poll below is only a last safety net.
 */
export class ClusterBus extends InProcessBus {
  override readonly sse = { heartbeatMs: 15_000, pollMs: 10_000 };
  private readonly offs: Array<() => void>;

  constructor(private readonly cluster: Cluster) {
    super();
    this.offs = [
      cluster.on((n) => {
        if (n.t === "run") super.published(n.id, n.seq);
        else if (n.t === "queued") super.queued();
      }),
      cluster.onResync(() => this.wakeAll()),
    ];
  }

  override published(runId: string, seq: number): void {
    super.published(runId, seq);
    this.cluster.publish({ t: "run", id: runId, seq });
  }

  override queued(): void {
    super.queued();
    this.cluster.publish({ t: "queued" });
  }

  stop(): void {
    for (const off of this.offs) off();
  }
}
