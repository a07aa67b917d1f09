/**
 * Reads of bundles with their doc and head version, as plain records. Shared by the
 * stores whose bundles are rows of `bundles` (local, `db`), filtered by source kind.
 */
import { and, asc, eq, gt, inArray, isNull, sql } from "drizzle-orm";
import type { Db } from "../db/index.js";
import { bundles, docs, versions } from "../db/schema.js";
import { NotFoundError } from "../errors.js";
import { versionRecord } from "./versions.js";
import type { DocRecord, SourceKind } from "./types.js";

type Row = { b: typeof bundles.$inferSelect; d: typeof docs.$inferSelect; v: typeof versions.$inferSelect };

export function docRecord({ b, d, v }: Row): DocRecord {
  return {
    bundle: {
      id: b.id,
      sourceKind: b.sourceKind,
      slug: b.slug,
      title: b.title,
      visibility: b.visibility,
      createdBy: b.createdBy,
      updatedAt: b.updatedAt,
      ...(b.archivedAt ? { archived: true } : {}),
    },
    doc: {
      id: d.id,
      bundleId: d.bundleId,
      path: d.path,
      profileKey: d.profileKey,
      status: d.status,
      problems: d.problems,
      updatedAt: d.updatedAt,
    },
    head: versionRecord(v),
  };
}

export class BundleQueries {
  constructor(
    private readonly db: Db,
    private readonly kind: SourceKind,
  ) {}

  private joined() {
    return this.db
      .select({ b: bundles, d: docs, v: versions })
      .from(bundles)
      .innerJoin(docs, eq(docs.bundleId, bundles.id))
      .innerJoin(versions, eq(versions.id, bundles.headVersionId));
  }

  /** Visible bundles after the slug `after`, by slug; archived ones only with `archived`. */
  async list(opts: { limit: number; after?: string; archived?: boolean }): Promise<DocRecord[]> {
    // Pick the page from bundles alone, then join only its rows: joining first made every
    // page read the docs and head versions of all bundles before sorting and cutting.
    const page = this.db
      .select({ id: bundles.id })
      .from(bundles)
      .where(
        and(
          eq(bundles.sourceKind, this.kind),
          isNull(bundles.goneAt),
          opts.archived ? undefined : isNull(bundles.archivedAt),
          sql`${bundles.headVersionId} is not null`,
          opts.after === undefined ? undefined : gt(bundles.slug, opts.after),
        ),
      )
      .orderBy(asc(bundles.slug))
      .limit(opts.limit);
    const rows = await this.joined().where(inArray(bundles.id, page)).orderBy(asc(bundles.slug));
    return rows.map(docRecord);
  }

  async byIds(ids: readonly string[]): Promise<DocRecord[]> {
    if (ids.length === 0) return [];
    const rows = await this.joined().where(and(inArray(bundles.id, [...ids]), isNull(bundles.goneAt)));
    return rows.map(docRecord);
  }

  async bundle(bundleId: string): Promise<DocRecord> {
    const [row] = await this.joined().where(and(eq(bundles.id, bundleId), isNull(bundles.goneAt)));
    if (!row) throw new NotFoundError("bundle", bundleId);
    return docRecord(row);
  }

  async doc(docId: string): Promise<DocRecord> {
    const [row] = await this.joined().where(and(eq(docs.id, docId), isNull(bundles.goneAt)));
    if (!row) throw new NotFoundError("doc", docId);
    return docRecord(row);
  }
}
