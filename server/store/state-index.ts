/**
 * The local store's in-memory index of its bundles: by id, doc, slug and head version
 * (reads of a head need no query), with one lock per bundle.
 */
import { NotFoundError } from "../errors.js";
import type { BundleState } from "./disk-state.js";
import { Mutex } from "./mutex.js";
import type { VersionRecord } from "./types.js";

export class StateIndex {
  private readonly byId = new Map<string, BundleState>();
  private readonly byDoc = new Map<string, BundleState>();
  private readonly bySlug = new Map<string, BundleState>();
  /** Head version id -> its record and bundle. */
  private readonly heads = new Map<string, { state: BundleState; record: VersionRecord }>();
  private readonly locks = new Map<string, Mutex>();

  all(): IterableIterator<BundleState> {
    return this.byId.values();
  }

  get(bundleId: string): BundleState | undefined {
    return this.byId.get(bundleId);
  }

  bySlugOf(slug: string): BundleState | undefined {
    return this.bySlug.get(slug);
  }

  /** The bundle of a doc; 404 when no bundle holds it. */
  ofDoc(docId: string): BundleState {
    const s = this.byDoc.get(docId);
    if (!s) throw new NotFoundError("doc", docId);
    return s;
  }

  track(s: BundleState): void {
    this.byId.set(s.id, s);
    this.byDoc.set(s.docId, s);
    this.bySlug.set(s.slug, s);
  }

  untrack(s: BundleState): void {
    this.byId.delete(s.id);
    this.byDoc.delete(s.docId);
    if (this.bySlug.get(s.slug) === s) this.bySlug.delete(s.slug);
    if (s.headId) this.heads.delete(s.headId);
    this.locks.delete(s.id);
  }

  /** The bundle's head is now `record`. */
  setHead(s: BundleState, record: VersionRecord): void {
    if (s.headId) this.heads.delete(s.headId);
    s.headId = record.id;
    s.headNumber = record.number;
    this.heads.set(record.id, { state: s, record });
  }

  /** Remember the record of a head read from the database (after a start). */
  rememberHead(bundleId: string, record: VersionRecord): void {
    const s = this.byId.get(bundleId);
    if (s && s.headId === record.id) this.heads.set(record.id, { state: s, record });
  }

  /** A version that is some bundle's head, with that bundle. */
  head(versionId: string): { state: BundleState; record: VersionRecord } | undefined {
    return this.heads.get(versionId);
  }

  /** Run `fn` holding the bundle's lock. */
  withLock<T>(bundleId: string, fn: () => Promise<T>): Promise<T> {
    let m = this.locks.get(bundleId);
    if (!m) this.locks.set(bundleId, (m = new Mutex()));
    return m.run(fn);
  }
}
