/**
 * What the local store keeps in memory of each bundle (its head and the disk state at
 * head), and the `disk_files` table that keeps the disk state across restarts so a
 * rescan hashes only files that changed.
 */
import { and, eq, inArray, sql } from "drizzle-orm";
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
  const removed = [...before.keys()].filter((p) => !after.has(p));
  for (let i = 0; i < removed.length; i += 500)
    await db
      .delete(diskFiles)
      .where(and(eq(diskFiles.bundleId, bundleId), inArray(diskFiles.path, removed.slice(i, i + 500))));
  const changed: Row[] = [];
  for (const [path, f] of after) {
    const b = before.get(path);
    if (b && b.sha256 === f.sha256 && b.size === f.size && b.mtimeMs === f.mtimeMs) continue;
    changed.push({ bundleId, path, size: f.size, mtimeMs: f.mtimeMs, sha256: f.sha256 });
  }
  for (let i = 0; i < changed.length; i += 500)
    await db
      .insert(diskFiles)
      .values(changed.slice(i, i + 500))
      .onConflictDoUpdate({
        target: [diskFiles.bundleId, diskFiles.path],
        set: { size: sql`excluded.size`, mtimeMs: sql`excluded.mtime_ms`, sha256: sql`excluded.sha256` },
      });
}
