/**
 * Opening the database: embedded PGlite (a data directory, or in memory for tests)
 * or a Postgres server from a URL. Migrations run on open.
 */
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { PGlite as PGliteClass } from "@electric-sql/pglite";
import { sql } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import * as schema from "./schema.js";
import { packageRoot } from "../paths.js";
import { cacheDir, findTemplate, saveTemplate, templateKey } from "./pglite-template.js";
import { DRIZZLE_TEXT_TYPES, byteaCodec, clientWideParsers, givingTurns } from "./pglite-loop.js";

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

/** The rows of `db.execute(…)`: postgres-js answers an array, PGlite `{ rows }`. */
/** True when a database error is a unique-key violation (Postgres 23505), however the driver wraps it. */
export function isUniqueViolation(err: unknown): boolean {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e)
    if (e.code === "23505") return true;
  return false;
}

export function rowsOf<T>(result: unknown): T[] {
  return Array.isArray(result) ? (result as T[]) : (result as { rows: T[] }).rows;
}

export interface Database {
  db: Db;
  kind: "pglite" | "postgres";
  /** The server's URL (Postgres): instances open their listening connection from it (server/cluster.ts). */
  url?: string;
  close(): Promise<void>;
}

/** The advisory lock key migrations run under (any fixed number; "spec-review" in ASCII, truncated). */
const MIGRATION_LOCK = 0x73706563;

/**
 * Run `fn` while holding the lock migrations run under (Postgres): the start-up writes
 * several instances starting together would race on (the built-in profiles, the first
 * admin invite) are made one instance at a time, each finding what the one before wrote.
 * The lock is a transaction's (`pg_advisory_xact_lock`), so it goes with the transaction
 * however `fn` ends or the connection drops; `fn` writes through the pool as usual. PGlite
 * has one process: `fn` just runs.
 */
export async function withStartLock<T>(database: Database, fn: () => Promise<T>): Promise<T> {
  if (database.kind !== "postgres") return fn();
  return database.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${MIGRATION_LOCK})`);
    return fn();
  });
}

export function migrationsFolder(): string {
  return join(packageRoot(), "server", "db", "migrations");
}

/**
 * @param url `postgres://…` for a server; a folder path for PGlite on disk; `memory://` for PGlite in memory.
 */
export async function openDatabase(url: string): Promise<Database> {
  if (/^postgres(ql)?:\/\//.test(url)) {
    const { default: postgres } = await import("postgres");
    const { drizzle } = await import("drizzle-orm/postgres-js");
    const { migrate } = await import("drizzle-orm/postgres-js/migrator");
    // Connections per instance (DATABASE_POOL_MAX, default 10): instances x pool (+1 listening) must fit max_connections.
    const client = postgres(url, { max: Number(process.env.DATABASE_POOL_MAX) || 10, onnotice: () => {} });
    const db = drizzle(client, { schema });
    // Instances starting together migrate one at a time: the others wait, then find it done.
    const lock = await client.reserve();
    try {
      await lock`select pg_advisory_lock(${MIGRATION_LOCK})`;
      await migrate(db, { migrationsFolder: migrationsFolder() });
    } finally {
      await lock`select pg_advisory_unlock(${MIGRATION_LOCK})`.catch(() => {});
      lock.release();
    }
    return { db: db as unknown as Db, kind: "postgres", url, close: () => client.end({ timeout: 5 }) };
  }
  const { PGlite } = await import("@electric-sql/pglite");
  const { drizzle } = await import("drizzle-orm/pglite");
  const { migrate } = await import("drizzle-orm/pglite/migrator");
  // Memory (docs/performance.md): Postgres's shared buffers live in PGlite's WASM memory,
  // which never shrinks; 16 MB is plenty for what the service keeps. Durability is untouched.
  const options = {
    postgresqlconf: "shared_buffers = 16MB\nwork_mem = 2MB\nmaintenance_work_mem = 16MB\ntemp_buffers = 2MB",
  };
  const memory = url === "memory://";
  const fresh = memory || !existsSync(join(url, "PG_VERSION"));
  const key = fresh ? templateKey(migrationsFolder(), options) : undefined;
  const template = key ? findTemplate(key) : undefined;
  // What the instance serving requests is opened with: the above, and a fast bytea codec.
  const serving = { ...options, ...byteaCodec };
  const loaded = template && (await fromTemplate(PGlite, memory ? undefined : url, serving, template.blob));
  // A template that does not load is dropped (and made again below).
  if (template && !loaded) dropTemplate(template.path);
  let client = loaded;
  if (!client) {
    if (!memory && fresh) {
      // A new data dir is made by initdb, whose memory (about 0.4 GB) stays with that
      // instance: close it and open the dir again, so the server does not keep it at idle.
      const first = new PGlite(url, options);
      await first.waitReady;
      await first.close();
    }
    client = memory ? new PGlite(serving) : new PGlite(url, serving);
    await client.waitReady;
  }
  givingTurns(client);
  clientWideParsers(client, DRIZZLE_TEXT_TYPES);
  const db = drizzle(client, { schema });
  await migrate(db, { migrationsFolder: migrationsFolder() });
  // Made the slow way: keep a template of the empty, migrated database for next time.
  if (key && !loaded) await keepTemplate(client, key);
  return { db: db as unknown as Db, kind: "pglite", close: () => client.close() };
}

/** Opens a new database from a template; undefined (and nothing left behind) when it does not load. */
async function fromTemplate(
  PGlite: typeof PGliteClass,
  dir: string | undefined,
  options: object,
  template: Blob,
): Promise<PGliteClass | undefined> {
  try {
    const client = dir
      ? new PGlite(dir, { ...options, loadDataDir: template })
      : new PGlite({ ...options, loadDataDir: template });
    await client.waitReady;
    return client;
  } catch {
    if (dir) for (const name of readdirSync(dir)) rmSync(join(dir, name), { recursive: true, force: true });
    return undefined;
  }
}

function dropTemplate(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // a read-only package: the template is only skipped
  }
}

async function keepTemplate(client: PGliteClass, key: string): Promise<void> {
  try {
    const tarball = await client.dumpDataDir("gzip");
    saveTemplate(cacheDir(), key, new Uint8Array(await tarball.arrayBuffer()));
  } catch {
    // only a start-up speed-up: the database itself is fine
  }
}
