/** The link graph of every visible bundle, read through the trace cache. */
import { TraceGraph, type DocRef, type TraceDoc } from "../../core/trace/graph.js";
import type { DocDetail } from "../../core/trace/doc.js";
import type { ProfileRegistry } from "../profiles.js";
import type { BundleStore, DocRecord } from "../store/types.js";
import { NotFoundError } from "../errors.js";
import type { Db } from "../db/index.js";
import { traceCache } from "./cache.js";
import { readHeldLinks, withHeld } from "./held.js";

export function docRef(r: DocRecord): DocRef {
  return {
    id: r.doc.id,
    bundle_id: r.bundle.id,
    slug: r.bundle.slug,
    title: r.bundle.title,
    profile_key: r.doc.profileKey,
  };
}

export interface LoadedGraph {
  graph: TraceGraph;
  records: DocRecord[];
  /** Index of a doc in `records` and the graph. */
  indexOf(docId: string): number;
  /** IDs and their use of the docs at these indexes (read once per version). */
  details(indexes: readonly number[]): Promise<Map<number, DocDetail>>;
  /** Current text of the doc at an index. */
  text(i: number): Promise<string>;
}

/**
 * The graph of the listed bundles. `also`: a doc the list leaves out (an archived one, whose
 * own trace is still read), added to the graph; the others' views never count it.
 */
export async function loadGraph(
  store: BundleStore,
  profiles: ProfileRegistry,
  db: Db,
  also?: DocRecord,
): Promise<LoadedGraph> {
  const [listed, held] = await Promise.all([
    store.listBundles({ limit: Number.MAX_SAFE_INTEGER }),
    readHeldLinks(db),
  ]);
  const records = also && !listed.some((r) => r.doc.id === also.doc.id) ? [...listed, also] : listed;
  const cache = traceCache(store);
  const docs: TraceDoc[] = await Promise.all(
    records.map(async (r) => {
      const { links, problems } = await cache.links(r);
      return { ref: docRef(r), links: withHeld(links, held.get(r.bundle.id)), problems };
    }),
  );
  const graph = new TraceGraph(docs, (key) => profiles.get(key)?.upstream);
  const byDoc = new Map(records.map((r, i) => [r.doc.id, i]));
  return {
    graph,
    records,
    indexOf(docId) {
      const i = byDoc.get(docId);
      if (i === undefined) throw new NotFoundError("doc", docId);
      return i;
    },
    async details(indexes) {
      const out = new Map<number, DocDetail>();
      await Promise.all(
        indexes.map(async (i) => {
          const r = records[i]!;
          const d = await cache.detail(r, profiles.get(r.doc.profileKey));
          out.set(i, d);
          docs[i]!.detail ??= { ids: d.ids, use: d.use };
        }),
      );
      return out;
    },
    text: (i) => cache.text(records[i]!),
  };
}
