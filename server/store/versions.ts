/**
 * The version repository: immutable versions of a bundle's file set and the
 * content-addressed blobs they point at (sha256, stored once). Any store whose
 * versions live in the database (local, `db`) records them here; a git-native store
 * may replace it with commits.
 */
import { isUtf8 as bufferIsUtf8 } from "node:buffer";
import { randomUUID } from "node:crypto";
import { and, asc, desc, eq, gte, inArray, isNull, lt, sql, type SQL } from "drizzle-orm";
import { rowsOf, type Db } from "../db/index.js";
import { blobChunks, blobs, bundles, versionFiles, versions } from "../db/schema.js";
import { ApiError, NotFoundError, VersionConflictError } from "../errors.js";
import type { FileEntry, ListedFile, VersionRecord } from "./types.js";

/** True when the bytes are valid UTF-8 (Node's native check: a 10 MB doc in about a millisecond, where decoding it took 40). */
export function isUtf8(bytes: Uint8Array): boolean {
  return bufferIsUtf8(bytes);
}

/** A file of a version to record: where it is and which blob holds it. */
export interface ManifestEntry {
  sha256: string;
  size: number;
}

export type Manifest = ReadonlyMap<string, ManifestEntry>;

/** Rows per insert statement, and bytes of blobs per insert statement. */
const ROWS = 500;
const BLOB_BYTES = 8 * 1024 * 1024;
/**
 * A blob larger than this is stored in slices of this size (`blob_chunks`), one statement
 * each with a turn of the event loop between: the embedded database runs on the request
 * loop, and one 10 MB statement held it for seconds.
 */
export const SLICE_BYTES = 256 * 1024;
/** Slices read per statement when a sliced blob is read back. */
const SLICES_PER_READ = 4;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A blob row as read: its bytes are in `content`, or in slices when `content` is shorter than `size`. */
interface StoredBlob {
  sha256: string;
  size: number;
  content: Uint8Array;
}

export function versionRecord(row: typeof versions.$inferSelect): VersionRecord {
  return {
    id: row.id,
    number: row.number,
    created_by: row.createdBy,
    message: row.message,
    created_at: row.createdAt.toISOString(),
  };
}

/** A transaction handle (the same query API as the database). */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

export interface NewVersion {
  /** Default: a new random id. */
  id?: string;
  bundleId: string;
  /** Number of the version the caller read as the head (0 before the first). */
  number: number;
  files: Manifest;
  author: string;
  message: string;
  createdAt: Date;
}

/**
 * What a commit also writes, as statements of its own (a doc row, the disk state): each
 * puts `moved` in its WHERE, which is true only once the head moved, so nothing is written
 * on a stale base. A step writes at most a few thousand values, and never the bundle's
 * row: the commit updates that row itself, and one statement cannot update a row twice.
 */
export type CommitSteps = (moved: SQL) => SQL[];

/**
 * What a commit also does: statements (`steps`), and `read`, a value read in the same
 * statement (or transaction) as it was before the steps, handed to `into` once the commit
 * holds (it must not read the rows the commit itself writes: the bundle's head, the
 * version, its files); or a function given the transaction.
 */
export type CommitAlso =
  | { steps: CommitSteps; read?: { value: SQL; into: (value: unknown) => void } }
  | ((tx: Tx, version: VersionRecord) => Promise<void>);

/**
 * A commit of at most this many files, whose new blobs are at most this many bytes (none
 * sliced), is one statement: on the embedded database each statement costs about 0.4 ms
 * however small, and a transaction of six cost four times one statement doing the same.
 */
const ONE_STATEMENT_FILES = 100;
const ONE_STATEMENT_BYTES = 1024 * 1024;

/** `(a, b, …), (…)`: rows of a VALUES list. */
const valuesList = (rows: SQL[][]) =>
  sql.join(
    rows.map((r) => sql`(${sql.join(r, sql`, `)})`),
    sql`, `,
  );

async function insertChunks<T>(rows: T[], insert: (chunk: T[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS) await insert(rows.slice(i, i + ROWS));
}

export class VersionRepository {
  constructor(private readonly db: Db) {}

  /**
   * Store blobs not stored yet, in statements of bounded size; a blob over SLICE_BYTES in
   * slices (see `putSliced`).
   */
  async putBlobs(tx: Db | Tx, list: ReadonlyMap<string, Uint8Array>): Promise<void> {
    let chunk: Array<{ sha256: string; size: number; content: Uint8Array; utf8: boolean }> = [];
    let bytes = 0;
    const flush = async () => {
      if (chunk.length === 0) return;
      await tx.insert(blobs).values(chunk).onConflictDoNothing();
      chunk = [];
      bytes = 0;
    };
    for (const [sha, content] of list) {
      if (content.length > SLICE_BYTES) continue;
      if (bytes + content.length > BLOB_BYTES || chunk.length >= ROWS) await flush();
      chunk.push({ sha256: sha, size: content.length, content, utf8: isUtf8(content) });
      bytes += content.length;
    }
    await flush();
    for (const [sha, content] of list)
      if (content.length > SLICE_BYTES) await this.putSliced(tx, sha, content);
  }

  /**
   * A large blob: its row (empty `content`, the real `size`), then its slices, each in
   * its own statement after a turn of the event loop. Nothing when the blob is stored
   * already (same sha256, same bytes).
   */
  private async putSliced(tx: Db | Tx, sha: string, content: Uint8Array): Promise<void> {
    const [fresh] = await tx
      .insert(blobs)
      .values({ sha256: sha, size: content.length, content: new Uint8Array(), utf8: isUtf8(content) })
      .onConflictDoNothing()
      .returning({ sha256: blobs.sha256 });
    if (!fresh) return;
    for (let seq = 0, at = 0; at < content.length; seq++, at += SLICE_BYTES) {
      await nextTurn();
      await tx
        .insert(blobChunks)
        .values({ sha256: sha, seq, content: content.subarray(at, at + SLICE_BYTES) });
    }
  }

  /** The bytes of a blob row: its `content`, or its slices put back together. */
  private async whole(row: StoredBlob): Promise<Uint8Array> {
    if (row.content.length === row.size) return row.content;
    const out = new Uint8Array(row.size);
    let at = 0;
    for (let seq = 0; at < row.size; seq += SLICES_PER_READ) {
      if (seq > 0) await nextTurn();
      const slices = await this.db
        .select({ content: blobChunks.content })
        .from(blobChunks)
        .where(
          and(
            eq(blobChunks.sha256, row.sha256),
            gte(blobChunks.seq, seq),
            lt(blobChunks.seq, seq + SLICES_PER_READ),
          ),
        )
        .orderBy(asc(blobChunks.seq));
      if (slices.length === 0) break;
      for (const s of slices) {
        if (at + s.content.length > row.size) break;
        out.set(s.content, at);
        at += s.content.length;
      }
    }
    if (at !== row.size)
      throw new Error(`blob ${row.sha256} is damaged: ${at} of its ${row.size} bytes are stored`);
    return out;
  }

  /** Insert version rows and their file lists (no head move; see `commit`). */
  async insertVersions(tx: Db | Tx, list: readonly NewVersion[]): Promise<VersionRecord[]> {
    const rows = list.map((v) => ({
      id: v.id ?? randomUUID(),
      bundleId: v.bundleId,
      number: v.number + 1,
      createdBy: v.author,
      message: v.message,
      createdAt: v.createdAt,
    }));
    await insertChunks(rows, (c) => tx.insert(versions).values(c));
    const fileRows = list.flatMap((v, i) =>
      [...v.files].map(([path, f]) => ({ versionId: rows[i]!.id, path, sha256: f.sha256, size: f.size })),
    );
    await insertChunks(fileRows, (c) => tx.insert(versionFiles).values(c));
    return rows.map(versionRecord);
  }

  /**
   * Record a new version of one bundle on top of `expected` (the head the caller saw):
   * lock the bundle row, compare, store the new blobs, the version and its file list,
   * move the head. `also` is written with them, all or nothing. A small commit whose
   * `also` is steps is one statement (`commitInOneStatement`), any other a transaction.
   */
  async commit(
    expected: { id: string | null; number: number },
    v: NewVersion,
    newBlobs: ReadonlyMap<string, Uint8Array>,
    also?: CommitAlso,
  ): Promise<VersionRecord> {
    const id = v.id ?? randomUUID();
    const newBytes = [...newBlobs.values()].reduce((n, b) => n + b.length, 0);
    if (
      typeof also !== "function" &&
      v.files.size <= ONE_STATEMENT_FILES &&
      newBytes <= ONE_STATEMENT_BYTES &&
      [...newBlobs.values()].every((b) => b.length <= SLICE_BYTES)
    )
      return this.commitInOneStatement(expected, { ...v, id }, newBlobs, also);
    let read: unknown;
    const version = await this.db.transaction(async (tx) => {
      // Compare and move the head in one statement: it locks the bundle row, and a second
      // writer on the same base finds the head moved once the first commits.
      const [moved] = await tx
        .update(bundles)
        .set({
          headVersionId: id,
          headNumber: sql`${bundles.headNumber} + 1`,
          updatedAt: v.createdAt,
          goneAt: null,
        })
        .where(
          and(
            eq(bundles.id, v.bundleId),
            expected.id === null ? isNull(bundles.headVersionId) : eq(bundles.headVersionId, expected.id),
          ),
        )
        .returning({ number: bundles.headNumber });
      if (!moved) return this.conflict(tx, expected, v.bundleId);
      await this.putBlobs(tx, newBlobs);
      const [made] = await this.insertVersions(tx, [{ ...v, id, number: moved.number - 1 }]);
      if (typeof also === "function") await also(tx, made!);
      else {
        if (also?.read)
          read = rowsOf<{ read: unknown }>(await tx.execute(sql`select ${also.read.value} as read`))[0]?.read;
        for (const step of also?.steps(sql`true`) ?? []) await tx.execute(step);
      }
      return made!;
    });
    if (typeof also !== "function") also?.read?.into(read);
    return version;
  }

  /**
   * The commit of a small change as one statement: moving the head (the compare, as in the
   * transaction), the new blobs, the version, its files and the caller's steps, each a
   * common table expression. Everything but the head move reads `moved`, so on a stale
   * base nothing is written; a statement is atomic on its own, without BEGIN and COMMIT.
   */
  private async commitInOneStatement(
    expected: { id: string | null; number: number },
    v: NewVersion & { id: string },
    newBlobs: ReadonlyMap<string, Uint8Array>,
    also: Exclude<CommitAlso, (...args: never[]) => unknown> | undefined,
  ): Promise<VersionRecord> {
    const moved = sql`exists (select 1 from moved)`;
    const at = sql.param(v.createdAt, versions.createdAt);
    const parts: SQL[] = [
      sql`moved as (update ${bundles} set head_version_id = ${v.id}, head_number = head_number + 1, updated_at = ${at}, gone_at = null
        where id = ${v.bundleId} and ${expected.id === null ? sql`head_version_id is null` : sql`head_version_id = ${expected.id}`}
        returning head_number)`,
    ];
    if (newBlobs.size > 0) {
      const rows = [...newBlobs].map(([sha, content]) => [
        sql`${sha}`,
        sql`${content.length}::bigint`,
        sql`${sql.param(content, blobs.content)}::bytea`,
        sql`${isUtf8(content)}::boolean`,
      ]);
      parts.push(
        sql`new_blobs as (insert into ${blobs} (sha256, size, content, utf8)
          select x.sha256, x.size, x.content, x.utf8 from (values ${valuesList(rows)}) as x(sha256, size, content, utf8)
          where ${moved} on conflict do nothing)`,
      );
    }
    parts.push(
      sql`version as (insert into ${versions} (id, bundle_id, number, created_by, message, created_at)
        select ${v.id}::uuid, ${v.bundleId}::uuid, head_number, ${v.author}, ${v.message}, ${at}::timestamptz from moved
        returning id)`,
    );
    if (v.files.size > 0) {
      const rows = [...v.files].map(([path, f]) => [sql`${path}`, sql`${f.sha256}`, sql`${f.size}::bigint`]);
      parts.push(
        sql`version_files as (insert into ${versionFiles} (version_id, path, sha256, size)
          select version.id, x.path, x.sha256, x.size from version, (values ${valuesList(rows)}) as x(path, sha256, size))`,
      );
    }
    (also?.steps(moved) ?? []).forEach((step, i) => parts.push(sql`${sql.raw(`step_${i}`)} as (${step})`));
    // The final select reads the snapshot the statement started from, as the steps do.
    const read = also?.read ? sql`, ${also.read.value} as read` : sql``;
    const [row] = rowsOf<{ number: string | number; read?: unknown }>(
      await this.db.execute(
        sql`with ${sql.join(parts, sql`, `)} select head_number as number${read} from moved`,
      ),
    );
    if (!row) return this.conflict(this.db, expected, v.bundleId);
    also?.read?.into(row.read);
    return {
      id: v.id,
      number: Number(row.number),
      created_by: v.author,
      message: v.message,
      created_at: v.createdAt.toISOString(),
    };
  }

  /** The head did not move: 409 with the head there is now (404 when the bundle is gone). */
  private async conflict(db: Db | Tx, expected: { id: string | null }, bundleId: string): Promise<never> {
    const [current] = await db
      .select({ headId: bundles.headVersionId, headNumber: bundles.headNumber })
      .from(bundles)
      .where(eq(bundles.id, bundleId));
    if (!current) throw new NotFoundError("bundle", bundleId);
    throw new VersionConflictError(expected.id ?? "(none)", {
      id: current.headId ?? "",
      number: current.headNumber,
    });
  }

  async head(bundleId: string): Promise<VersionRecord> {
    const [row] = await this.db
      .select({ v: versions })
      .from(bundles)
      .innerJoin(versions, eq(versions.id, bundles.headVersionId))
      .where(eq(bundles.id, bundleId));
    if (!row) throw new NotFoundError("bundle", bundleId);
    return versionRecord(row.v);
  }

  /** The version `ref` names (its id, or its number), or the head when `ref` is empty. */
  async resolve(bundleId: string, ref?: string): Promise<VersionRecord> {
    if (ref === undefined || ref === "") return this.head(bundleId);
    let row;
    if (/^\d+$/.test(ref)) {
      const n = Number(ref);
      // Beyond bigint (or a float's exact range) no version has that number.
      if (Number.isSafeInteger(n))
        [row] = await this.db
          .select()
          .from(versions)
          .where(and(eq(versions.bundleId, bundleId), eq(versions.number, n)));
    } else if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(ref)) {
      [row] = await this.db
        .select()
        .from(versions)
        .where(and(eq(versions.bundleId, bundleId), eq(versions.id, ref.toLowerCase())));
    }
    if (!row) throw new ApiError("bad_version", `version ${ref} is not a version of this bundle`);
    return versionRecord(row);
  }

  async list(bundleId: string, opts: { limit: number; before?: number }): Promise<VersionRecord[]> {
    const rows = await this.db
      .select()
      .from(versions)
      .where(
        opts.before === undefined
          ? eq(versions.bundleId, bundleId)
          : and(eq(versions.bundleId, bundleId), sql`${versions.number} < ${opts.before}`),
      )
      .orderBy(desc(versions.number))
      .limit(opts.limit);
    return rows.map(versionRecord);
  }

  async count(bundleId: string): Promise<number> {
    const [row] = await this.db
      .select({ n: sql<number>`count(*)::int` })
      .from(versions)
      .where(eq(versions.bundleId, bundleId));
    return row?.n ?? 0;
  }

  async manifest(versionId: string): Promise<FileEntry[]> {
    return this.db
      .select({ path: versionFiles.path, size: versionFiles.size, sha256: versionFiles.sha256 })
      .from(versionFiles)
      .where(eq(versionFiles.versionId, versionId))
      .orderBy(asc(versionFiles.path));
  }

  /** The files of a version with whether each is UTF-8 (worked out once for older blobs). */
  async files(versionId: string): Promise<ListedFile[]> {
    const rows = await this.db
      .select({
        path: versionFiles.path,
        size: versionFiles.size,
        sha256: versionFiles.sha256,
        utf8: blobs.utf8,
      })
      .from(versionFiles)
      .innerJoin(blobs, eq(blobs.sha256, versionFiles.sha256))
      .where(eq(versionFiles.versionId, versionId))
      .orderBy(asc(versionFiles.path));
    const unknown = rows.filter((r) => r.utf8 === null).map((r) => r.sha256);
    const known = new Map<string, boolean>();
    if (unknown.length > 0) {
      for (const [sha, bytes] of await this.blobs(unknown)) {
        const utf8 = isUtf8(bytes);
        known.set(sha, utf8);
        await this.db.update(blobs).set({ utf8 }).where(eq(blobs.sha256, sha));
      }
    }
    return rows.map((r) => ({
      path: r.path,
      size: r.size,
      sha256: r.sha256,
      utf8: r.utf8 ?? known.get(r.sha256) ?? false,
    }));
  }

  async fileBytes(versionId: string, path: string): Promise<{ entry: FileEntry; bytes: Uint8Array }> {
    const [row] = await this.db
      .select({
        path: versionFiles.path,
        size: versionFiles.size,
        sha256: versionFiles.sha256,
        content: blobs.content,
      })
      .from(versionFiles)
      .innerJoin(blobs, eq(blobs.sha256, versionFiles.sha256))
      .where(and(eq(versionFiles.versionId, versionId), eq(versionFiles.path, path)));
    if (!row) throw new ApiError("file_not_found", `${path} is not in this version`);
    return { entry: { path: row.path, size: row.size, sha256: row.sha256 }, bytes: await this.whole(row) };
  }

  /** Blob contents by sha256 (missing ones are left out). */
  async blobs(shas: readonly string[]): Promise<Map<string, Uint8Array>> {
    const out = new Map<string, Uint8Array>();
    const list = [...new Set(shas)];
    for (let i = 0; i < list.length; i += ROWS) {
      const rows = await this.db
        .select({ sha256: blobs.sha256, size: blobs.size, content: blobs.content })
        .from(blobs)
        .where(inArray(blobs.sha256, list.slice(i, i + ROWS)));
      for (const r of rows) out.set(r.sha256, await this.whole(r));
    }
    return out;
  }

  async blob(sha: string): Promise<Uint8Array> {
    const got = (await this.blobs([sha])).get(sha);
    if (!got) throw new ApiError("file_not_found", `no stored content with sha256 ${sha}`);
    return got;
  }

  /** All files of a version with their bytes. */
  async snapshot(versionId: string): Promise<Map<string, Uint8Array>> {
    const rows = await this.db
      .select({ path: versionFiles.path, sha256: blobs.sha256, size: blobs.size, content: blobs.content })
      .from(versionFiles)
      .innerJoin(blobs, eq(blobs.sha256, versionFiles.sha256))
      .where(eq(versionFiles.versionId, versionId))
      .orderBy(asc(versionFiles.path));
    const out = new Map<string, Uint8Array>();
    for (const r of rows) out.set(r.path, await this.whole(r));
    return out;
  }

  /** Delete blobs no version points at any more (their slices go with them). */
  async deleteOrphanBlobs(): Promise<void> {
    await this.db.execute(
      sql`delete from ${blobs} where not exists (select 1 from ${versionFiles} where ${versionFiles.sha256} = ${blobs.sha256})`,
    );
  }
}
