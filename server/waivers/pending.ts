/**
 * Which docs may have a decision waiting for someone: a requested waiver, or an open thread
 * that someone answered and nobody decided. The bundle list asks the database for the
 * caller's waivers and threads (server/waivers/next-action.ts) only for a page that holds
 * such a doc; every other page keeps the cached JSON of the list.
 *
 * The set errs on the side of asking: a doc is added as soon as a change to its waivers or
 * threads is heard (here or, through the cluster, on another instance), and taken out only
 * when a read made after the latest change finds nothing waiting. A lost listening
 * connection reloads it in full (`reload`).
 */
import { and, eq, gt, isNotNull, isNull, sql } from "drizzle-orm";
import type { Db } from "../db/index.js";
import { threads, waivers } from "../db/schema.js";
import type { Logger } from "../deps.js";

export class PendingDecisions {
  private docs = new Set<string>();
  private ready: Promise<void> | undefined;
  /** Docs changed while a full load was reading: kept whatever the load found. */
  private duringLoad: Set<string> | undefined;
  /** The latest check of each doc; an older one that answers late is ignored. */
  private readonly checks = new Map<string, number>();
  private seq = 0;
  /** Told of each change made here (the cluster tells the other instances). */
  onTouch: ((docId: string) => void) | undefined;

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
  ) {}

  private loaded = false;

  /**
   * True when any doc of these bundles may have a decision waiting. Once the set is loaded
   * this answers at once (the bundle list asks it on every read).
   */
  async anyIn(bundles: ReadonlyArray<{ docs: ReadonlyArray<{ id: string }> }>): Promise<boolean> {
    if (!this.loaded)
      try {
        await (this.ready ??= this.load());
      } catch (err) {
        this.logger.warn("pending decisions: loading failed; the list asks the database", {
          error: String(err),
        });
        return true;
      }
    if (this.docs.size === 0) return false;
    for (const b of bundles) for (const doc of b.docs) if (this.docs.has(doc.id)) return true;
    return false;
  }

  /**
   * A doc's waivers or threads changed (call after the change is committed): it counts as
   * waiting until a read says otherwise. `remote`: heard from another instance.
   */
  touch(docId: string, remote = false): void {
    this.docs.add(docId);
    this.duringLoad?.add(docId);
    if (!remote) this.onTouch?.(docId);
    const n = ++this.seq;
    this.checks.set(docId, n);
    void this.waiting(docId)
      .then((waiting) => {
        if (this.checks.get(docId) !== n) return;
        this.checks.delete(docId);
        if (!waiting) this.docs.delete(docId);
      })
      .catch((err: unknown) => {
        // Left in the set: the list asks the database for this doc.
        this.logger.warn("pending decisions: checking a doc failed", { doc: docId, error: String(err) });
      });
  }

  /** Read the whole set again (after the cluster may have missed notices). */
  reload(): void {
    this.loaded = false;
    this.ready = this.load();
    this.ready.catch(() => undefined);
  }

  private async load(): Promise<void> {
    const changed = new Set<string>();
    this.duringLoad = changed;
    try {
      const [w, t] = await Promise.all([
        this.db.selectDistinct({ docId: waivers.docId }).from(waivers).where(eq(waivers.status, "requested")),
        this.db.selectDistinct({ docId: threads.docId }).from(threads).where(answeredOpen()),
      ]);
      const next = new Set<string>(changed);
      for (const r of w) next.add(r.docId);
      for (const r of t) if (r.docId) next.add(r.docId);
      this.docs = next;
      this.loaded = true;
    } catch (err) {
      // Nothing known: every page asks the database until a load succeeds.
      this.ready = undefined;
      throw err;
    } finally {
      if (this.duringLoad === changed) this.duringLoad = undefined;
    }
  }

  private async waiting(docId: string): Promise<boolean> {
    const [w] = await this.db
      .select({ one: sql<number>`1` })
      .from(waivers)
      .where(and(eq(waivers.docId, docId), eq(waivers.status, "requested")))
      .limit(1);
    if (w) return true;
    const [t] = await this.db
      .select({ one: sql<number>`1` })
      .from(threads)
      .where(and(eq(threads.docId, docId), answeredOpen()))
      .limit(1);
    return t !== undefined;
  }
}

/** An open thread on a doc with a reply and no decision (what next_action `decide` reads, for anyone). */
function answeredOpen() {
  return and(
    isNotNull(threads.docId),
    eq(threads.status, "open"),
    isNull(threads.decisionMessageId),
    gt(threads.messageCount, 1),
  );
}
