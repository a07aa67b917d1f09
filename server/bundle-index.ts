/**
 * The bundle list, kept in memory so `GET /bundles` answers without a database query.
 *
 * It is built on first use and kept right by events: a new version or any other change
 * of a bundle (store), and a finished run (runs) mark the bundle dirty; the next read
 * reloads the dirty bundles only. Local mode has one process per folder, so the
 * process sees every change. Several instances on one Postgres (server/cluster.ts) mark
 * each other's changes through `invalidate`, and `beforeRead` makes sure every change
 * committed before a read was heard (else the list is read afresh).
 */
import type { RunService } from "./runs.js";
import type { Bundle } from "./schemas/common.js";
import type { BundleStore } from "./store/types.js";
import { bundleView } from "./views.js";
import type { BundleAudience } from "./auth/visibility.js";

export class BundleIndex {
  private readonly views = new Map<string, Bundle>();
  /** Who may see each bundle (its visibility and author), for lists filtered per caller. */
  private readonly audiences = new Map<string, BundleAudience>();
  /** Bundles held that are archived: lists leave them out unless asked. */
  private readonly archivedIds = new Set<string>();
  private sorted: Bundle[] | null = null;
  private loaded = false;
  /** Bumped by `reloadAll`: a load that started before it does not count as complete. */
  private epoch = 0;
  private dirty = new Set<string>();
  /** Pages already written as JSON, by key; emptied whenever a bundle view changes. */
  private readonly json = new Map<string, { extra: unknown; bytes: Uint8Array<ArrayBuffer> }>();
  private loading: Promise<void> | undefined;
  /** Upstream bundle -> bundles whose latest run read it (their verdict goes stale with it). */
  private readonly readers = new Map<string, Set<string>>();
  private readonly mark = ({ bundleId }: { bundleId: string }) => {
    this.dirty.add(bundleId);
  };
  private readonly markVersion = ({ bundleId }: { bundleId: string }) => {
    this.dirty.add(bundleId);
    for (const reader of this.readers.get(bundleId) ?? []) this.dirty.add(reader);
  };

  constructor(
    private readonly store: BundleStore,
    private readonly runs: RunService,
  ) {
    store.events.on("version", this.markVersion);
    store.events.on("changed", this.mark);
    runs.events.on("run", this.mark);
  }

  /**
   * Awaited before each read; false when changes may have been missed (the list is then
   * read afresh). Set by server/cluster-wire.ts on several instances.
   */
  beforeRead: (() => Promise<boolean>) | undefined;

  /** Another instance changed the bundle (`version`: a new version, so its readers go stale too). */
  invalidate(bundleId: string, version = false): void {
    if (version) this.markVersion({ bundleId });
    else this.mark({ bundleId });
  }

  /** Changes may have been missed: the next read loads the whole list again. */
  reloadAll(): void {
    this.loaded = false;
    this.epoch++;
    this.dirty.clear();
  }

  stop(): void {
    this.store.events.off("version", this.markVersion);
    this.store.events.off("changed", this.mark);
    this.runs.events.off("run", this.mark);
  }

  /**
   * Bundles after the slug `after`, by slug; `more` when a next page exists. `visible`: only
   * the bundles it accepts (what the caller may see; server/auth/visibility.ts). Archived
   * bundles are left out unless `archived` (the index holds them, for `?archived=true`).
   */
  async page(
    limit: number,
    after?: string,
    visible?: (bundle: BundleAudience) => boolean,
    archived = false,
  ): Promise<{ items: Bundle[]; more: boolean }> {
    await this.fresh();
    const list = this.ordered();
    const keep =
      archived || this.archivedIds.size === 0
        ? visible
        : (b: BundleAudience) => !this.archivedIds.has(b.id) && (!visible || visible(b));
    let lo = 0;
    if (after !== undefined) {
      let hi = list.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (list[mid]!.slug <= after) lo = mid + 1;
        else hi = mid;
      }
    }
    if (!keep) return { items: list.slice(lo, lo + limit), more: lo + limit < list.length };
    const items: Bundle[] = [];
    for (let i = lo; i < list.length; i++) {
      const view = list[i]!;
      if (!keep(this.audiences.get(view.id)!)) continue;
      if (items.length === limit) return { items, more: true };
      items.push(view);
    }
    return { items, more: false };
  }

  /**
   * A page as JSON text: `build` makes the body from the page (adding `extra`, whatever
   * else the body holds), and the text is reused until a bundle changes or `extra` is
   * another object. A busy listing then costs no serialisation per request.
   */
  async pageJson<E>(
    limit: number,
    after: string | undefined,
    extra: E,
    build: (page: { items: Bundle[]; more: boolean }, extra: E) => unknown,
    archived = false,
  ): Promise<Uint8Array<ArrayBuffer>> {
    await this.fresh();
    const key = `${limit}\u0000${after ?? ""}\u0000${archived ? 1 : 0}`;
    const hit = this.json.get(key);
    if (hit && hit.extra === extra) return hit.bytes;
    // Kept as UTF-8 bytes: a string would be encoded again for every answer.
    const bytes = new TextEncoder().encode(
      JSON.stringify(build(await this.page(limit, after, undefined, archived), extra)),
    );
    // Bounded: every cursor a client sends is a key.
    if (this.json.size >= 64) this.json.clear();
    this.json.set(key, { extra, bytes });
    return bytes;
  }

  private ordered(): Bundle[] {
    this.sorted ??= [...this.views.values()].sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
    return this.sorted;
  }

  /** Reload what changed since the last read (one load at a time). */
  private async fresh(): Promise<void> {
    if (this.beforeRead && !(await this.beforeRead())) this.reloadAll();
    while (this.loading) await this.loading;
    if (this.loaded && this.dirty.size === 0) return;
    this.loading = this.load().finally(() => (this.loading = undefined));
    await this.loading;
  }

  private async load(): Promise<void> {
    const ids = [...this.dirty];
    this.dirty.clear();
    const epoch = this.epoch;
    const full = !this.loaded;
    try {
      const rows = !full
        ? await this.store.bundlesByIds(ids)
        : await this.store.listBundles({ limit: Number.MAX_SAFE_INTEGER, archived: true });
      const latest = await this.runs.latestRuns(rows.map((r) => r.doc.id));
      if (full) {
        this.views.clear();
        this.audiences.clear();
        this.archivedIds.clear();
        this.readers.clear();
      } else
        for (const id of ids) {
          this.views.delete(id);
          this.audiences.delete(id);
          this.archivedIds.delete(id);
        }
      for (const r of rows) {
        const run = latest.get(r.doc.id);
        this.views.set(r.bundle.id, bundleView(r, run));
        const { id, visibility, createdBy } = r.bundle;
        this.audiences.set(id, { id, visibility, createdBy });
        if (r.bundle.archived) this.archivedIds.add(id);
        for (const up of run?.upstream?.bundleIds ?? []) {
          let set = this.readers.get(up);
          if (!set) this.readers.set(up, (set = new Set()));
          set.add(r.bundle.id);
        }
      }
      this.loaded = epoch === this.epoch;
      this.sorted = null;
      this.json.clear();
    } catch (err) {
      for (const id of ids) this.dirty.add(id);
      throw err;
    }
  }
}
