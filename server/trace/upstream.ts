/**
 * Upstream staleness (docs/trace.md): each run records the version of every bundle its
 * doc links to and reads (implements, refines, references); when one of them has a newer
 * version now, the verdict built on the run is `stale` with `stale_reason:
 * upstream_changed`. Downstream docs are not re-linted: the stale verdict asks a person
 * to look again, and the next run clears it.
 */
import { and, eq, inArray, isNull, or, sql } from "drizzle-orm";
import { decodeText } from "../../core/lint/engine.js";
import { docLinks } from "../../core/trace/doc.js";
import { TraceGraph, type DocRef, type TraceDoc } from "../../core/trace/graph.js";
import type { BrokenLink } from "../../core/trace/link-findings.js";
import type { LinkKind } from "../../core/trace/links.js";
import type { Db } from "../db/index.js";
import { bundles, docs, heldLinks, runUpstream, threads } from "../db/schema.js";
import { heldOf, withHeld } from "./held.js";
import type { ProfileRegistry } from "../profiles.js";

/** Link kinds whose target a doc builds on: its runs record their versions. */
const READ_KINDS: ReadonlySet<LinkKind> = new Set(["implements", "refines", "references"]);

export interface UpstreamRead {
  bundleId: string;
  versionNumber: number;
}

/** A frontmatter link to a bundle that does not resolve: a slug that names no bundle, or the doc itself. */
export type { BrokenLink };

export interface UpstreamCheck {
  reads: UpstreamRead[];
  broken: BrokenLink[];
  /** Open blocking threads of the doc (read in the same statement: a lint needs both). */
  blockingThreads: number;
  /** The doc's type as the read found it (which bundles it builds on depends on it). */
  profileKey?: string;
}

/**
 * The bundles the doc (with this main doc text) links to and builds on, at their current
 * versions, and its links to bundles that do not resolve.
 */
export async function upstreamReads(
  db: Db,
  profiles: ProfileRegistry,
  docId: string,
  main: Uint8Array | string,
): Promise<UpstreamCheck> {
  // The doc, its bundle's held links and its open blocking threads, in one statement (a
  // save waits for its lint, and each statement on the embedded database counts).
  const [self] = await db
    .select({
      id: docs.id,
      bundleId: bundles.id,
      slug: bundles.slug,
      title: bundles.title,
      profileKey: docs.profileKey,
      held: sql<Array<{ kind: string; target: string }>>`coalesce((
        select json_agg(json_build_object('kind', h.kind, 'target', h.target)
                        order by h.created_at, h.kind, h.target)
        from ${heldLinks} h where h.bundle_id = ${bundles.id}), '[]'::json)`,
      blocking: sql<number>`(select count(*)::int from ${threads} t
        where t.doc_id = ${docs.id} and t.blocking and t.status = 'open')`,
    })
    .from(docs)
    .innerJoin(bundles, eq(bundles.id, docs.bundleId))
    .where(eq(docs.id, docId));
  if (!self) return { reads: [], broken: [], blockingThreads: 0 };
  const blockingThreads = Number(self.blocking);
  const own = docLinks(decodeText(main).text);
  const { problems } = own;
  const links = withHeld(own.links, heldOf(self.held));
  const slugs = [...new Set(links.filter((l) => !l.external).map((l) => l.target))];
  const upstreamType = profiles.get(self.profileKey)?.upstream;
  const { profileKey } = self;
  if (slugs.length === 0 && !upstreamType) return { reads: [], broken: [], blockingThreads, profileKey };
  const which = [
    ...(slugs.length > 0 ? [inArray(bundles.slug, slugs)] : []),
    ...(upstreamType ? [eq(docs.profileKey, upstreamType)] : []),
  ];
  const rows = (
    await db
      .select({
        id: docs.id,
        bundleId: bundles.id,
        slug: bundles.slug,
        title: bundles.title,
        profileKey: docs.profileKey,
        head: bundles.headNumber,
      })
      .from(bundles)
      .innerJoin(docs, eq(docs.bundleId, bundles.id))
      .where(
        and(
          isNull(bundles.goneAt),
          isNull(bundles.archivedAt),
          sql`${bundles.headVersionId} is not null`,
          or(...which),
        ),
      )
  ).filter((r) => r.bundleId !== self.bundleId);
  const ref = (r: Omit<typeof self, "held" | "blocking">): DocRef => ({
    id: r.id,
    bundle_id: r.bundleId,
    slug: r.slug,
    title: r.title,
    profile_key: r.profileKey,
  });
  const nodes: TraceDoc[] = [
    { ref: ref(self), links, problems },
    ...rows.map((r) => ({ ref: ref(r), links: [], problems: [] })),
  ];
  const graph = new TraceGraph(nodes, (key) => profiles.get(key)?.upstream);
  const reads = new Map<string, UpstreamRead>();
  const broken: BrokenLink[] = [];
  for (const l of graph.outgoing(0)) {
    if (l.target_kind === "bundle" && (l.to === undefined || l.to === 0))
      broken.push({ kind: l.kind, target: l.target_ref, self: l.target_ref === self.slug });
    if (l.to === undefined || l.to === 0 || !READ_KINDS.has(l.kind)) continue;
    const r = rows[l.to - 1]!;
    reads.set(r.bundleId, { bundleId: r.bundleId, versionNumber: r.head });
  }
  return { reads: [...reads.values()], broken, blockingThreads, profileKey };
}

/** Record what a run read (inside the transaction that stores the run). */
export async function recordUpstream(db: Db, runId: string, reads: readonly UpstreamRead[]): Promise<void> {
  await upstreamInsert(db, runId, reads);
}

/** The insert that records what a run read; undefined when it read no linked bundle. */
export function upstreamInsert(db: Db, runId: string, reads: readonly UpstreamRead[]) {
  if (reads.length === 0) return undefined;
  return db
    .insert(runUpstream)
    .values(reads.map((r) => ({ runId, bundleId: r.bundleId, versionNumber: r.versionNumber })))
    .onConflictDoNothing();
}

export interface RunUpstream {
  /** Every bundle the run read. */
  bundleIds: string[];
  /** The docs of those bundles that have a newer version than the run read. */
  stale: DocRef[];
}

/** What each run read, and which of those bundles moved on since. */
export async function runUpstreams(db: Db, runIds: readonly string[]): Promise<Map<string, RunUpstream>> {
  const out = new Map<string, RunUpstream>();
  if (runIds.length === 0) return out;
  const rows = await db
    .select({
      runId: runUpstream.runId,
      read: runUpstream.versionNumber,
      head: bundles.headNumber,
      id: docs.id,
      bundleId: bundles.id,
      slug: bundles.slug,
      title: bundles.title,
      profileKey: docs.profileKey,
    })
    .from(runUpstream)
    .innerJoin(bundles, eq(bundles.id, runUpstream.bundleId))
    .innerJoin(docs, eq(docs.bundleId, bundles.id))
    .where(inArray(runUpstream.runId, [...runIds]))
    .orderBy(bundles.slug);
  for (const r of rows) {
    let u = out.get(r.runId);
    if (!u) out.set(r.runId, (u = { bundleIds: [], stale: [] }));
    u.bundleIds.push(r.bundleId);
    if (r.head > r.read)
      u.stale.push({
        id: r.id,
        bundle_id: r.bundleId,
        slug: r.slug,
        title: r.title,
        profile_key: r.profileKey,
      });
  }
  return out;
}
