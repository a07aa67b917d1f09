/**
 * The service graph: everything a running spec-review is made of, built once by
 * `createServices(config)` and closed with `close()`. `spec-review serve`
 * (server/start.ts) and the tests (test/helpers/app.ts) build it the same way; the HTTP
 * app (`createApp(services)`) and the review worker only use what it holds. Nothing here
 * is a module-level singleton: two graphs in one process share nothing but the code.
 *
 *   database ─┬─ store (local: the served folder; hosted: the database) ─ runs (lint) ─ bundle index
 *             ├─ profiles
 *             ├─ budget ─ models (backends and roles)
 *             ├─ bus (run events) ─ review service ─ worker (full reviews)
 *             └─ auth (who calls: the local admin in local mode)
 */
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { runs as runsTable } from "./db/schema.js";
import { openDatabase, withStartLock, type Database } from "./db/index.js";
import { LocalStore } from "./store/local.js";
import { DbStore } from "./store/db/store.js";
import type { BundleStore } from "./store/types.js";
import { silentLogger, systemClock, type Clock, type Deps, type Logger } from "./deps.js";
import { SettingsCache, limitsFrom } from "./settings.js";
import { packageRoot, packageVersion } from "./paths.js";
import { ProfileRegistry } from "./profiles.js";
import { HeavyPool } from "./heavy/pool.js";
import { DbBudget } from "./models/budget.js";
import { loadSecretKey, SecretBox } from "./models/secrets.js";
import { ModelService, modelCallTimeoutMs, type ClientFactory } from "./models/service.js";
import { McpConnections } from "./mcp/connections.js";
import { BundleIndex } from "./bundle-index.js";
import { RunService } from "./runs.js";
import { ClusterBus, InProcessBus } from "./jobs/bus.js";
import { LocalCluster, PgCluster, type Cluster } from "./cluster.js";
import { wireCluster } from "./cluster-wire.js";
import { Metrics } from "./metrics.js";
import type { Lifecycle } from "./ops.js";
import type { ReviewWorker, WorkerOptions } from "./jobs/worker.js";
import { ReviewService } from "./review/service.js";
import { createReviewWorker } from "./review/worker.js";
import { localAuthenticator, type Actor, type Authenticator } from "./auth/actor.js";
import { Accounts } from "./auth/accounts.js";
import { GitHubLink, githubOAuthFromEnv } from "./auth/github-link.js";
import { hostedAuthenticator } from "./auth/hosted.js";
import { guestAuthenticator } from "./auth/guests.js";
import { DEFAULT_PUBLIC_URL } from "./public-url.js";
import { VerificationService } from "./verify/service.js";
import type { VerifyPorts } from "./verify/ports.js";
import { verifyRoots } from "./verify/roots.js";
import { ThreadService } from "./threads/service.js";
import { Reanchorer } from "./threads/reanchor.js";
import { wireFeatures } from "./wiring.js";
import { WaiverArea } from "./waivers/index.js";
import { createRepohost, type RepohostConfig } from "./repohost/index.js";

export interface ServicesConfig {
  /**
   * `local`: one person's folder, no sign-in. `hosted`: many people sign in, and bundles
   * live in the database (source kind `db`, server/store/db/).
   */
  mode: "local" | "hosted";
  /** The served folder: required in local mode; hosted mode has none. */
  folder?: string;
  /**
   * The address people reach the service at (`https://specs.example.com`), behind whatever
   * proxy: links the service prints or sends are built from it.
   */
  publicUrl?: string;
  /**
   * The database: a URL (`postgres://…`, a PGlite folder, `memory://`), opened and closed
   * by the graph; or an open database the caller keeps (and closes) itself.
   */
  database: string | Database;
  /** Where `secret.key` lives when SPEC_REVIEW_SECRET_KEY is not set (local mode). */
  dataDir?: string;
  /** The 32-byte key backend secrets are sealed with; default: from the environment or `dataDir`. */
  secretKey?: Uint8Array;
  clock?: Clock;
  logger?: Logger;
  /** The built-in profiles; default: the package's `profiles/`. */
  profilesDir?: string;
  /** Folders of profiles added to the built-ins (the served folder's `.spec-review/profiles`, `--profiles`). */
  profileDirs?: string[];
  /** spec-review's own version; default: package.json's. */
  serverVersion?: string;
  /** Watch the folder for changes made outside the API (default: no). */
  watch?: boolean;
  /** Start a review worker that runs queued full reviews (default: none). */
  worker?: WorkerOptions;
  /** Lint, in the background, every doc whose current version has no lint run yet (default: no). */
  catchUp?: boolean;
  /** Model calls: the client of a backend (default: the real ones) and time limits in ms. */
  models?: { clientFor?: ClientFactory; callTimeoutMs?: number; testTimeoutMs?: number };
  /** The caller in local mode (default: the local admin). */
  actor?: Actor;
  /** Who calls: overrides the default (the local admin in local mode; bearer token, session cookie, then a guest's cookie in hosted mode). */
  auth?: Authenticator;
  /** Hosted mode: the guest cookie's authenticator (share links), asked after the token and the session. */
  guestAuth?: Authenticator;
  /** scrypt's cost for new password hashes, log2 of N (default 15). Lower only in tests. */
  passwordCost?: number;
  /** Handoff and verification: the threads, repo-host reader and waiver ports (server/verify/ports.ts). */
  verify?: Partial<VerifyPorts>;
  /**
   * Hear other instances on the same Postgres (LISTEN/NOTIFY, server/cluster.ts); default:
   * on for Postgres. PGlite has one process and needs none.
   */
  cluster?: boolean;
  /** Process metrics (memory, event loop) beside the service's own (default: no; `serve` turns them on). */
  processMetrics?: boolean;
  /** Hosted mode's repohost sources: the default API address and the fetch they call through. */
  repohost?: RepohostConfig;
}

export interface Services extends Deps {
  database: Database;
  store: BundleStore;
  /** The local store, in local mode (what scans and watches the served folder). */
  local: LocalStore | undefined;
  models: ModelService;
  budget: DbBudget;
  /** The review worker, when `worker` was asked for. */
  worker: ReviewWorker | undefined;
  /** The address the server listens on, once it does (links use it when no public URL is set). */
  listeningAt(url: string): void;
  cluster: Cluster;
  metrics: Metrics;
  lifecycle: Lifecycle;
  /** Stop the worker, the watcher and the lint runs, then close the database if the graph opened it. */
  close(): Promise<void>;
}

/** Local mode serves a folder; hosted mode none (its bundles live in the database). */
function checkFolder(config: ServicesConfig): void {
  if (config.mode === "hosted" && config.folder !== undefined)
    throw new Error("hosted mode serves no folder: its bundles live in the database");
  if (config.mode === "local" && config.folder === undefined)
    throw new Error("local mode needs the folder to serve");
}

/** Local mode's store over the served folder; none in hosted mode. */
function localStoreOf(
  config: ServicesConfig,
  db: Database["db"],
  clock: Clock,
  logger: Logger,
  settings: SettingsCache,
) {
  if (config.folder === undefined) return undefined;
  return new LocalStore({
    root: config.folder,
    db,
    clock,
    logger,
    watch: config.watch ?? false,
    limits: limitsFrom(settings),
  });
}

/** The served folder as routes see it: its real path (once started) and a whole scan. */
function servedFolder(local: LocalStore): NonNullable<Deps["served"]> {
  return {
    get root() {
      return local.folder;
    },
    rescan: () => local.scanAll(),
  };
}

export async function createServices(config: ServicesConfig): Promise<Services> {
  checkFolder(config);
  // Read before anything is opened: a bad SPEC_REVIEW_MODEL_TIMEOUT_S stops the start cleanly.
  const callTimeoutMs = config.models?.callTimeoutMs ?? modelCallTimeoutMs();
  const clock = config.clock ?? systemClock;
  const logger = config.logger ?? silentLogger;
  // What to undo, newest first, when a later step fails or the graph closes.
  const undo: Array<() => Promise<void> | void> = [];
  const unwind = async () => {
    for (const step of undo.splice(0).reverse()) {
      try {
        await step();
      } catch (err) {
        logger.error("closing a service failed", { error: String(err) });
      }
    }
  };

  try {
    const database =
      typeof config.database === "string" ? await openDatabase(config.database) : config.database;
    if (typeof config.database === "string") undo.push(() => database.close());
    const { db } = database;
    // Other instances on the same Postgres: their changes reach this graph's caches, and ours theirs.
    const cluster: Cluster =
      config.cluster !== false && database.kind === "postgres" && database.url
        ? await PgCluster.connect({ url: database.url, db, logger })
        : new LocalCluster();
    undo.push(() => cluster.close());
    const metrics = new Metrics(db, { defaults: config.processMetrics ?? false });
    const lifecycle: Lifecycle = { draining: false };

    const key = config.secretKey ?? loadSecretKey({ dataDir: config.dataDir, mode: config.mode });
    const budget = new DbBudget(db);
    const box = new SecretBox(key);
    const models = new ModelService({
      db,
      box,
      clock,
      logger,
      budget,
      clientFor: config.models?.clientFor,
      callTimeoutMs,
      testTimeoutMs: config.models?.testTimeoutMs,
    });

    const profiles = new ProfileRegistry(
      db,
      clock,
      logger,
      config.profilesDir ?? join(packageRoot(), "profiles"),
      config.profileDirs ?? [],
    );
    // Instances starting together on one database seed one at a time, under the migrations' lock.
    await withStartLock(database, () => profiles.seed());
    await profiles.reload();
    const settings = new SettingsCache(db);
    const local = localStoreOf(config, db, clock, logger, settings);
    const primary: BundleStore = local ?? new DbStore({ db, clock, logger, limits: limitsFrom(settings) });
    // Hosted mode also reads bundles from repos (server/repohost): one store over both.
    const repohost =
      config.mode === "hosted"
        ? createRepohost({
            ...{ db, box, clock, logger, primary, config: config.repohost },
            limits: limitsFrom(settings),
            registry: metrics.registry,
          })
        : undefined;
    if (repohost) undo.push(() => repohost.poller.stop());
    const store: BundleStore = repohost?.store ?? primary;
    // Large docs are linted, rendered, diffed and exported on worker threads, off the request loop.
    const heavy = new HeavyPool();
    undo.push(() => heavy.close());
    const runs = new RunService(db, store, profiles, clock, logger, heavy);
    runs.listen();
    const index = new BundleIndex(store, runs);
    // Closing: stop listening and watching, then wait for lint runs still in flight.
    undo.push(() => runs.idle());
    undo.push(() => store.stop());
    undo.push(() => runs.stop());
    undo.push(() => index.stop());
    // Threads follow every new version, the first scan's too (files edited while stopped).
    const reanchor = new Reanchorer(db, store, logger, cluster.kind === "local");
    await reanchor.load();
    reanchor.listen();
    undo.push(async () => {
      reanchor.stop();
      await reanchor.idle();
    });
    await store.start();

    const bus = cluster.kind === "local" ? new InProcessBus() : new ClusterBus(cluster);
    if (bus instanceof ClusterBus) undo.push(() => bus.stop());
    const verify = new VerificationService({
      ...{ db, store, profiles, models, budget, bus, clock, logger },
      mode: config.mode,
      roots: verifyRoots(config.mode, config.folder),
      ports: config.verify,
    });
    undo.push(() => verify.stop());
    let listening: string | undefined;
    const linkBase = () => config.publicUrl ?? listening ?? DEFAULT_PUBLIC_URL;
    const accounts = new Accounts(db, () => clock.now(), linkBase, config.passwordCost);
    // Model calls are counted (tokens, cost) as they answer.
    const forRole = models.forRole.bind(models);
    models.forRole = async (role) => {
      const m = await forRole(role);
      return m && metrics.instrumentRole(m);
    };
    const waiverArea = new WaiverArea({
      db,
      store,
      profiles,
      runs,
      accounts,
      clock,
      logger,
      mode: config.mode,
      secretKey: key,
      sole: cluster.kind === "local",
    });
    waiverArea.start();
    undo.push(() => waiverArea.stop());
    undo.push(
      wireCluster(cluster, {
        ...{ index, store, runs, sessions: accounts.sessions, profiles, logger, settings },
        pending: waiverArea.pending,
      }),
    );
    const graph: Omit<Deps, "review" | "threads"> = {
      db,
      store,
      profiles,
      runs,
      index,
      models,
      budget,
      bus,
      heavy,
      mcp: new McpConnections({ db, box, clock, logger }),
      verify,
      auth:
        config.auth ??
        (config.mode === "local"
          ? localAuthenticator(config.actor)
          : hostedAuthenticator(accounts.sessions, config.guestAuth ?? guestAuthenticator({ db, clock }))),
      accounts,
      githubLink: new GitHubLink(db, () => clock.now(), githubOAuthFromEnv()),
      waivers: waiverArea,
      settings,
      linkBase,
      clock,
      logger,
      mode: config.mode,
      ...(repohost ? { repohost: repohost.sources } : {}),
      ...(local ? { served: servedFolder(local) } : {}),
      ...(config.publicUrl !== undefined ? { publicUrl: config.publicUrl } : {}),
      serverVersion: config.serverVersion ?? packageVersion(),
      cluster,
      metrics,
      lifecycle,
    };
    // The review service reads the graph it belongs to; it reaches `review` through it only lazily.
    const deps = graph as Deps;
    deps.review = new ReviewService(deps);
    // AI answers run in the background: wait for them on close.
    deps.threads = new ThreadService(deps, reanchor);
    await deps.threads.start();
    undo.push(() => deps.threads.idle());
    wireFeatures(deps, {
      verifyThreads: config.verify?.threads !== undefined,
      verifyRepos: config.verify?.repos !== undefined,
    });

    let worker: ReviewWorker | undefined;
    if (config.worker) {
      const w = createReviewWorker(deps, {
        // With peers, queued runs are announced over NOTIFY: the poll is only a safety net.
        ...(cluster.kind === "local" ? {} : { pollMs: 5000 }),
        ...config.worker,
        afterRun: async (runId) => {
          const [row] = await db
            .select({ stages: runsTable.stages })
            .from(runsTable)
            .where(eq(runsTable.id, runId));
          if (row) metrics.observeStages(row.stages);
          await config.worker?.afterRun?.(runId);
        },
      });
      undo.push(() => w.stop());
      await w.start();
      worker = w;
    }

    if (config.catchUp) {
      // Docs whose current version has no lint run yet (first start, or a new release) get one.
      const caughtUp = runs
        .catchUp()
        .catch((err: unknown) => logger.error("lint catch-up failed", { error: String(err) }));
      undo.push(() => caughtUp);
    }

    let closing: Promise<void> | undefined;
    return Object.assign(deps, {
      database,
      store,
      local,
      models,
      budget,
      worker,
      cluster,
      metrics,
      lifecycle,
      listeningAt: (url: string) => {
        listening = url;
      },
      close: () => (closing ??= unwind()),
    });
  } catch (err) {
    await unwind();
    throw err;
  }
}
