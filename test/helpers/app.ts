/**
 * A fresh app for a test: its own database (in-memory PGlite, or a new database on
 * the Postgres server of TEST_DATABASE_URL) and, in local mode, its own served folder
 * (hosted mode serves none: its bundles live in the database).
 */
import { afterAll } from "vitest";
import { sql } from "drizzle-orm";
import { mkdtempSync, rmSync, cpSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { randomBytes } from "node:crypto";
import { openDatabase, type Database } from "../../server/db/index.js";
import { createApp, type HttpOptions } from "../../server/app.js";
import type { LocalStore } from "../../server/store/local.js";
import type { BundleStore } from "../../server/store/types.js";
import { silentLogger, type Clock, type Logger } from "../../server/deps.js";
import type { ProfileRegistry } from "../../server/profiles.js";
import type { DbBudget } from "../../server/models/budget.js";
import type { ModelService, ClientFactory } from "../../server/models/service.js";
import type { RepohostConfig } from "../../server/repohost/index.js";
import type { BundleIndex } from "../../server/bundle-index.js";
import type { RunService } from "../../server/runs.js";
import type { ReviewWorker, WorkerOptions } from "../../server/jobs/worker.js";
import type { RunBus } from "../../server/jobs/bus.js";
import type { ReviewService } from "../../server/review/service.js";
import { localAuthenticator, type Actor, type Authenticator } from "../../server/auth/actor.js";
import { createServices, type Services } from "../../server/services.js";

const BUILTIN_PROFILES = resolve(import.meta.dirname, "../../profiles");

export const DB_KINDS: Array<"pglite" | "postgres"> = process.env.TEST_DATABASE_URL
  ? ["pglite", "postgres"]
  : ["pglite"];

/** A new database on the Postgres server of TEST_DATABASE_URL, and how to drop it. */
export async function freshPostgres(): Promise<{ url: string; drop: () => Promise<void> }> {
  const base = process.env.TEST_DATABASE_URL!;
  const name = `sr_test_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;
  const { default: postgres } = await import("postgres");
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = "/" + name;
  return {
    url: url.toString(),
    drop: async () => {
      const a = postgres(base, { max: 1, onnotice: () => {} });
      await a.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}

export async function openTestDatabase(kind: "pglite" | "postgres"): Promise<Database> {
  if (kind === "pglite") return openDatabase("memory://");
  const pg = await freshPostgres();
  const db = await openDatabase(pg.url);
  return {
    ...db,
    close: async () => {
      await db.close();
      await pg.drop();
    },
  };
}

// Opening PGlite and migrating takes seconds, so each test file opens one database
// of each kind and every test starts from empty tables.
const shared = new Map<string, Promise<Database>>();
afterAll(async () => {
  for (const db of shared.values()) await (await db).close();
  shared.clear();
});

/** The test file's database of this kind, every table emptied. */
export async function emptyDatabase(kind: "pglite" | "postgres"): Promise<Database> {
  let db = shared.get(kind);
  if (!db) shared.set(kind, (db = openTestDatabase(kind)));
  const database = await db;
  const tables = await database.db.execute<{ tablename: string }>(
    sql`select tablename from pg_tables where schemaname = 'public'`,
  );
  const names = (Array.isArray(tables) ? tables : (tables as { rows: { tablename: string }[] }).rows).map(
    (r) => `"${r.tablename}"`,
  );
  if (names.length > 0) await database.db.execute(sql.raw(`truncate ${names.join(", ")} cascade`));
  return database;
}

export interface TestApp {
  app: ReturnType<typeof createApp>;
  /** The served folder (local mode); in hosted mode an empty folder nothing reads. */
  root: string;
  /** The bundle store: the local store over `root`, or the database store in hosted mode. */
  store: BundleStore;
  /** The local store (scans of the served folder); throws in hosted mode. */
  local: LocalStore;
  runs: RunService;
  index: BundleIndex;
  profiles: ProfileRegistry;
  database: Database;
  /** Model backends and roles (the app's `models`), and the token budget. */
  models: ModelService;
  budget: DbBudget;
  /** The review worker, when `worker` was asked for. */
  worker?: ReviewWorker;
  /** This app's run event bus and review service. */
  bus: RunBus;
  review: ReviewService;
  /** The whole service graph the app is built from. */
  services: Services;
  /** Fetch through the app: `req("GET", "/bundles")` (the /api/v1 prefix is added). */
  req(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  kind?: "pglite" | "postgres";
  /** A folder copied as the served folder; default: an empty one. */
  fixture?: string;
  clock?: Clock;
  watch?: boolean;
  /** The 32-byte key backend secrets are sealed with; default: a random one. */
  secretKey?: Uint8Array;
  /** Per model call (pipeline) and per backend test call, in ms. */
  modelTimeoutMs?: number;
  /** Makes the client of a backend; default: the real ones (modelClientFor). */
  clientFor?: ClientFactory;
  /** Start a review worker that runs queued full reviews (default: none). */
  worker?: WorkerOptions;
  /** The caller every request comes from (default: the local admin; in hosted mode, nobody). */
  actor?: Actor;
  /** `hosted` runs the app in hosted mode, bundles in the database (default: local). */
  mode?: "local" | "hosted";
  /** Who calls: overrides `actor` (any Authenticator, e.g. one that reads a test header). */
  auth?: Authenticator;
  /** The app's logger (default: silent). */
  logger?: Logger;
  /** Who may reach the app (allowed hosts, port, CORS origins); default: loopback names only. */
  http?: HttpOptions;
  /** scrypt's cost for password hashes, log2 of N (default: the service's, 15). */
  passwordCost?: number;
  /** Hosted mode's repohost sources: the API address (a fake GitHub) and fetch. */
  repohost?: RepohostConfig;
}

export async function makeTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const mode = opts.mode ?? "local";
  if (mode === "hosted" && opts.fixture)
    throw new Error("a hosted test app serves no folder: create its bundles through the API");
  const root = mkdtempSync(join(tmpdir(), "sr-test-"));
  if (opts.fixture) cpSync(opts.fixture, root, { recursive: true });
  const database = await emptyDatabase(opts.kind ?? "pglite");
  const services = await createServices({
    mode,
    ...(mode === "local" ? { folder: root } : {}),
    // The test file's shared database: the graph leaves it open (afterAll closes it).
    database,
    secretKey: opts.secretKey ?? randomBytes(32),
    clock: opts.clock,
    logger: opts.logger ?? silentLogger,
    profilesDir: BUILTIN_PROFILES,
    serverVersion: "0.0.0-test",
    watch: opts.watch ?? false,
    worker: opts.worker,
    models: {
      clientFor: opts.clientFor,
      callTimeoutMs: opts.modelTimeoutMs,
      testTimeoutMs: opts.modelTimeoutMs,
    },
    actor: opts.actor,
    auth: opts.auth ?? (mode === "hosted" && opts.actor ? localAuthenticator(opts.actor) : undefined),
    passwordCost: opts.passwordCost,
    ...(opts.repohost ? { repohost: opts.repohost } : {}),
  });
  const app = createApp(services, opts.http);
  const { store, local, runs, index, profiles, models, budget, worker, bus, review } = services;
  const req = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const init: RequestInit = { method, headers: { ...headers } };
    if (body !== undefined) {
      if (typeof body === "string" || body instanceof Uint8Array || body instanceof FormData)
        init.body = body as RequestInit["body"];
      else {
        init.body = JSON.stringify(body);
        (init.headers as Record<string, string>)["content-type"] ??= "application/json";
      }
    }
    return Promise.resolve(app.request("/api/v1" + path, init));
  };
  return {
    app,
    root,
    store,
    get local(): LocalStore {
      if (!local) throw new Error("a hosted test app has no local store");
      return local;
    },
    runs,
    index,
    profiles,
    database,
    models,
    budget,
    ...(worker ? { worker } : {}),
    bus,
    review,
    services,
    req,
    close: async () => {
      await services.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Assert a problem+json answer and return its body. */
export async function problem(res: Response, status: number, code: string): Promise<Record<string, unknown>> {
  const text = await res.text();
  if (res.status !== status) throw new Error(`expected ${status} ${code}, got ${res.status}: ${text}`);
  if (!res.headers.get("content-type")?.startsWith("application/problem+json"))
    throw new Error(`expected application/problem+json, got ${res.headers.get("content-type")}: ${text}`);
  const body = JSON.parse(text) as Record<string, unknown>;
  if (body.code !== code) throw new Error(`expected code ${code}, got ${String(body.code)}: ${text}`);
  for (const k of ["type", "title", "status"])
    if (!(k in body)) throw new Error(`problem lacks ${k}: ${text}`);
  return body;
}

/** The JSON body of a response, typed by the caller (types come from the API schemas). */
export async function json<T>(res: Response | Promise<Response>): Promise<T> {
  return (await (await res).json()) as T;
}
