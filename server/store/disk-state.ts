/**
 * What the local store keeps in memory of each bundle (its head and the disk state at
 * head), and the `disk_files` table that keeps the disk state across restarts so a
 * rescan hashes only files that changed.
 */
import { eq, sql, type SQL } from "drizzle-orm";
import type { Db } from "../db/index.js";
import { bundles, diskFiles, docs } from "../db/schema.js";
import type { FileState } from "./scan.js";
import type { FrontmatterError } from "../../core/markdown/frontmatter.js";
import type { DocProblem } from "./types.js";
import type { Tx } from "./versions.js";

export interface BundleState {
  id: string;
  slug: string;
  docId: string;
  docPath: string;
  headId: string | null;
  headNumber: number;
  /** path -> what is on disk (and in the head version). */
  files: Map<string, FileState>;
  /** What the docs row says (path, profile, problems), to skip writes that change nothing. */
  docKey: string;
  /** The folder was missing at the last scan. */
  gone: boolean;
}

/** What a doc row says is wrong with its text: its frontmatter error, if any. */
export function docProblems(err: FrontmatterError | undefined): DocProblem[] | null {
  return err
    ? [{ message: `invalid frontmatter: ${err.message}`, line: err.line, column: err.column }]
    : null;
}

export function docKeyOf(
  path: string,
  profileKey: string,
  problems: DocProblem[] | null | undefined,
): string {
  return JSON.stringify([path, profileKey, problems ?? null]);
}

/** Every local bundle as the database last recorded it. */
export async function loadStates(db: Db): Promise<BundleState[]> {
  const rows = await db
    .select({ b: bundles, d: docs })
    .from(bundles)
    .innerJoin(docs, eq(docs.bundleId, bundles.id))
    .where(eq(bundles.sourceKind, "local"));
  const files = await db.select().from(diskFiles);
  const byBundle = new Map<string, Map<string, FileState>>();
  for (const f of files) {
    let m = byBundle.get(f.bundleId);
    if (!m) byBundle.set(f.bundleId, (m = new Map<string, FileState>()));
    m.set(f.path, { sha256: f.sha256, size: f.size, mtimeMs: f.mtimeMs });
  }
  return rows.map(({ b, d }) => ({
    id: b.id,
    slug: b.slug,
    docId: d.id,
    docPath: d.path,
    headId: b.headVersionId,
    headNumber: b.headNumber,
    files: byBundle.get(b.id) ?? new Map<string, FileState>(),
    docKey: docKeyOf(d.path, d.profileKey, d.problems),
    gone: b.goneAt !== null,
  }));
}

type Row = typeof diskFiles.$inferInsert;

export async function insertDiskFiles(db: Db | Tx, rows: Row[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 500) await db.insert(diskFiles).values(rows.slice(i, i + 500));
}

/** Record the disk state of a bundle: only the rows that changed from `before`. */
export async function saveDiskFiles(
  db: Db | Tx,
  bundleId: string,
  before: ReadonlyMap<string, FileState>,
  after: ReadonlyMap<string, FileState>,
): Promise<void> {
  for (const step of diskFileSteps(bundleId, before, after, sql`true`)) await db.execute(step);
}

/**
 * The statements that record the disk state of a bundle (rows that changed from `before`,
 * 500 files a statement), each written only when `when` holds: a version commit's steps.
 */
export function diskFileSteps(
  bundleId: string,
  before: ReadonlyMap<string, FileState>,
  after: ReadonlyMap<string, FileState>,
  when: SQL,
): SQL[] {
  const steps: SQL[] = [];
  const removed = [...before.keys()].filter((p) => !after.has(p));
  for (let i = 0; i < removed.length; i += 500) {
    const paths = sql.join(
      removed.slice(i, i + 500).map((p) => sql`${p}`),
      sql`, `,
    );
    steps.push(
      sql`delete from ${diskFiles} where bundle_id = ${bundleId} and path in (${paths}) and ${when}`,
    );
  }
  const changed: SQL[] = [];
  for (const [path, f] of after) {
    const b = before.get(path);
    if (b && b.sha256 === f.sha256 && b.size === f.size && b.mtimeMs === f.mtimeMs) continue;
    changed.push(sql`(${path}, ${f.size}::bigint, ${f.mtimeMs}::bigint, ${f.sha256})`);
  }
  for (let i = 0; i < changed.length; i += 500)
    steps.push(
      sql`insert into ${diskFiles} (bundle_id, path, size, mtime_ms, sha256)
        select ${bundleId}::uuid, x.path, x.size, x.mtime_ms, x.sha256
        from (values ${sql.join(changed.slice(i, i + 500), sql`, `)}) as x(path, size, mtime_ms, sha256)
        where ${when}
        on conflict (bundle_id, path) do update set size = excluded.size, mtime_ms = excluded.mtime_ms, sha256 = excluded.sha256`,
    );
  return steps;
}
