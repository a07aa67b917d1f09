/**
 * Text anchors follow the text (contract 2.10): on every new version of a bundle, each open
 * text-anchored thread of its doc is found again (core/anchor/reanchor-many.ts) and moved to
 * the new offsets, or marked `detached: true`. Work is queued per doc, so two quick saves
 * re-anchor in order; `idle()` waits for all of it (tests, shutdown).
 */
import { and, eq, inArray, lt, sql } from "drizzle-orm";
import { reanchorMany, type Anchor } from "../../core/anchor/index.js";
import { decodeText } from "../../core/lint/engine.js";
import { parseMarkdown } from "../../core/markdown/document.js";
import type { Db } from "../db/index.js";
import { threads } from "../db/schema.js";
import type { Logger } from "../deps.js";
import type { BundleStore, VersionEvent } from "../store/types.js";

interface Target {
  docId: string;
  versionId: string;
  versionNumber: number;
  /** The spec doc's path and bytes in that version, when the writer had them at hand. */
  mainPath?: string;
  mainBytes?: Uint8Array;
}

export class Reanchorer {
  private readonly lanes = new Map<string, Promise<void>>();
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly db: Db,
    private readonly store: BundleStore,
    private readonly logger: Logger,
    /** This is the only instance (no cluster): every thread is opened here, so the set below is whole. */
    private readonly sole = false,
  ) {}

  /**
   * Docs with open text threads, read at start and added to as threads open here: a first
   * scan records a version of every bundle at once (`bulk`), and most have no thread, so
   * those skip the query; so does every version when this is the only instance. With
   * other instances, other versions always query (another may have opened a thread since).
   */
  private withThreads = new Set<string>();

  /** Read which docs have open text threads (before the store's first scan). */
  async load(): Promise<void> {
    const rows = await this.db
      .selectDistinct({ docId: threads.docId })
      .from(threads)
      .where(and(eq(threads.anchorKind, "text"), eq(threads.status, "open")));
    this.withThreads = new Set(rows.flatMap((r) => (r.docId ? [r.docId] : [])));
  }

  /** Bring the doc's threads along even on bulk versions from now on (a text thread opened or reopened). */
  watch(docId: string): void {
    this.withThreads.add(docId);
  }

  private readonly onVersion = (ev: VersionEvent) => {
    if ((ev.bulk || this.sole) && !this.withThreads.has(ev.docId)) return;
    // enqueue never rejects (failures are logged) and idle() waits for it.
    void this.enqueue({
      docId: ev.docId,
      versionId: ev.version.id,
      versionNumber: ev.version.number,
      mainPath: ev.mainPath,
      ...(ev.mainBytes ? { mainBytes: ev.mainBytes } : {}),
    });
  };

  listen(): void {
    this.store.events.on("version", this.onVersion);
  }

  stop(): void {
    this.store.events.off("version", this.onVersion);
  }

  /** Resolves when no re-anchoring is queued or running. */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  /** Bring the doc's open text threads to its current version (after a thread opens or reopens). */
  async catchUp(docId: string): Promise<void> {
    const rec = await this.store.doc(docId);
    await this.enqueue({
      docId,
      versionId: rec.head.id,
      versionNumber: rec.head.number,
      mainPath: rec.doc.path,
    });
  }

  private enqueue(target: Target): Promise<void> {
    const before = this.lanes.get(target.docId) ?? Promise.resolve();
    const run = before
      .then(() => this.reanchor(target))
      .catch((err: unknown) =>
        this.logger.error("re-anchoring threads failed", { doc: target.docId, error: String(err) }),
      );
    this.lanes.set(target.docId, run);
    this.pending.add(run);
    void run.finally(() => {
      this.pending.delete(run);
      if (this.lanes.get(target.docId) === run) this.lanes.delete(target.docId);
    });
    return run;
  }

  /** Bytes of a file of a version; undefined when the version has no such file. */
  private async bytesOf(versionId: string, path: string): Promise<Uint8Array | undefined> {
    try {
      return (await this.store.fileBytes(versionId, path)).bytes;
    } catch {
      return undefined;
    }
  }

  private async reanchor(t: Target): Promise<void> {
    const rows = await this.db
      .select({
        id: threads.id,
        anchor: threads.anchor,
        fromVersion: threads.anchoredVersionId,
      })
      .from(threads)
      .where(
        and(
          eq(threads.docId, t.docId),
          eq(threads.anchorKind, "text"),
          eq(threads.status, "open"),
          lt(threads.anchoredVersionNumber, t.versionNumber),
        ),
      );
    if (rows.length === 0) return;
    // One group per (version the offsets belong to, file): one diff and one parse each.
    const groups = new Map<string, typeof rows>();
    for (const r of rows) {
      const key = `${r.fromVersion ?? ""}\u0000${String(r.anchor.file)}`;
      const list = groups.get(key);
      if (list) list.push(r);
      else groups.set(key, [r]);
    }
    const updates: Array<{ id: string; anchor: Anchor }> = [];
    const unchanged: string[] = [];
    for (const list of groups.values()) {
      const file = String(list[0]!.anchor.file);
      const anchors = list.map((r) => r.anchor as unknown as Anchor);
      const after = t.mainBytes && t.mainPath === file ? t.mainBytes : await this.bytesOf(t.versionId, file);
      if (!after) {
        // The file is gone from this version: nothing to point at.
        list.forEach((r, i) => updates.push({ id: r.id, anchor: { ...anchors[i]!, detached: true } }));
        continue;
      }
      const from = list[0]!.fromVersion;
      const before = from ? await this.bytesOf(from, file) : undefined;
      const doc = parseMarkdown(decodeText(after).text);
      const moved = reanchorMany({ ...(before ? { before } : {}), after, doc, anchors });
      list.forEach((r, i) => {
        if (sameAnchor(anchors[i]!, moved[i]!)) unchanged.push(r.id);
        else updates.push({ id: r.id, anchor: moved[i]! });
      });
    }
    await this.save(updates, unchanged, t);
  }

  /**
   * Two statements for all the threads of the doc (500 threads: two round trips, not 500):
   * the moved anchors in one, and the version of those that did not move in the other.
   */
  private async save(
    updates: Array<{ id: string; anchor: Anchor }>,
    unchanged: string[],
    t: Target,
  ): Promise<void> {
    await this.db.transaction(async (tx) => {
      if (updates.length > 0) {
        const values = sql.join(
          updates.map((u) => sql`(${u.id}::uuid, ${JSON.stringify(u.anchor)}::jsonb)`),
          sql`, `,
        );
        await tx.execute(sql`
          update ${threads} set
            anchor = v.anchor,
            anchored_version_id = ${t.versionId}::uuid,
            anchored_version_number = ${t.versionNumber}
          from (values ${values}) as v(id, anchor)
          where ${threads.id} = v.id and ${threads.anchoredVersionNumber} < ${t.versionNumber}`);
      }
      if (unchanged.length > 0)
        await tx
          .update(threads)
          .set({ anchoredVersionId: t.versionId, anchoredVersionNumber: t.versionNumber })
          .where(and(inArray(threads.id, unchanged), lt(threads.anchoredVersionNumber, t.versionNumber)));
    });
  }
}

/** Same quote, place, context and heading path (then only the version it belongs to changes). */
function sameAnchor(a: Anchor, b: Anchor): boolean {
  return (
    a.start === b.start &&
    a.end === b.end &&
    a.quote === b.quote &&
    a.prefix === b.prefix &&
    a.suffix === b.suffix &&
    a.file === b.file &&
    (a.detached ?? false) === (b.detached ?? false) &&
    a.heading_path.length === b.heading_path.length &&
    a.heading_path.every((h, i) => h === b.heading_path[i])
  );
}
