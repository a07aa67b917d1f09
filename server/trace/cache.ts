/**
 * What the trace view reads of each bundle, kept by version id (versions never change):
 * the links of its main doc, and its IDs once a matrix needed them. One cache per store.
 */
import { decodeText } from "../../core/lint/engine.js";
import { docDetail, docLinks, type DocDetail, type DocLinks } from "../../core/trace/doc.js";
import type { Profile } from "../../core/profile/schema.js";
import type { BundleStore, DocRecord } from "../store/types.js";

interface Entry {
  text: string;
  links: DocLinks;
  detail?: DocDetail;
  /** The profile the detail was read with (a changed profile reads it again). */
  detailProfile?: Profile | undefined;
}

/** Versions kept, and their text in all (characters); the least recently read goes first past either. */
const MAX_ENTRIES = 20_000;
const MAX_CHARS = 32 * 1024 * 1024;

export class TraceCache {
  private readonly entries = new Map<string, Entry>();
  private chars = 0;

  constructor(private readonly store: BundleStore) {}

  private async entry(r: DocRecord): Promise<Entry> {
    const key = `${r.head.id}\0${r.doc.path}`;
    let e = this.entries.get(key);
    if (e) {
      // Most recently used last.
      this.entries.delete(key);
      this.entries.set(key, e);
      return e;
    }
    const { bytes } = await this.store.fileBytes(r.head.id, r.doc.path);
    const text = decodeText(bytes).text;
    e = { text, links: docLinks(text) };
    this.entries.set(key, e);
    this.chars += text.length;
    // The entry just read stays, however large: it is what the caller needs now.
    while ((this.entries.size > MAX_ENTRIES || this.chars > MAX_CHARS) && this.entries.size > 1) {
      const [oldest, old] = this.entries.entries().next().value!;
      this.entries.delete(oldest);
      this.chars -= old.text.length;
    }
    return e;
  }

  async text(r: DocRecord): Promise<string> {
    return (await this.entry(r)).text;
  }

  async links(r: DocRecord): Promise<DocLinks> {
    return (await this.entry(r)).links;
  }

  async detail(r: DocRecord, profile: Profile | undefined): Promise<DocDetail> {
    const e = await this.entry(r);
    if (!e.detail || e.detailProfile !== profile) {
      e.detail = docDetail(e.text, r.doc.path, profile);
      e.detailProfile = profile;
    }
    return e.detail;
  }
}

const caches = new WeakMap<BundleStore, TraceCache>();

/** The trace cache of a store (one per service graph). */
export function traceCache(store: BundleStore): TraceCache {
  let c = caches.get(store);
  if (!c) caches.set(store, (c = new TraceCache(store)));
  return c;
}
