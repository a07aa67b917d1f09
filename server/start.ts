/** Starting the service: database, migrations, store, HTTP listener. */
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { openDatabase } from "./db/index.js";
import { createApp } from "./app.js";
import { LocalStore } from "./store/local.js";
import { jsonLogger, systemClock } from "./deps.js";
import { limitsFrom } from "./settings.js";
import { packageRoot, packageVersion } from "./paths.js";
import { ProfileRegistry } from "./profiles.js";
import { DbBudget } from "./models/budget.js";
import { loadSecretKey, SecretBox } from "./models/secrets.js";
import { ModelService } from "./models/service.js";
import { BundleIndex } from "./bundle-index.js";
import { RunService } from "./runs.js";
import { createReviewWorker } from "./review/worker.js";

export interface StartOptions {
  folder: string;
  port: number;
  host: string;
  dataDir: string;
  /** Folders of profiles added to the built-ins (the served folder's `.spec-review/profiles`, `--profiles`). */
  profileDirs?: string[];
  watch: boolean;
  databaseUrl?: string;
  debug?: boolean;
  prepareDataDir: (dir: string) => void;
}

export interface RunningServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function startServer(opts: StartOptions): Promise<RunningServer> {
  const logger = jsonLogger({ debug: opts.debug });
  let url = opts.databaseUrl;
  if (!url) {
    opts.prepareDataDir(opts.dataDir);
    url = join(opts.dataDir, "db");
  }
  const database = await openDatabase(url);
  const store = new LocalStore({
    root: opts.folder,
    db: database.db,
    clock: systemClock,
    logger,
    watch: opts.watch,
    limits: limitsFrom(database.db),
  });
  const profiles = new ProfileRegistry(
    database.db,
    systemClock,
    logger,
    join(packageRoot(), "profiles"),
    opts.profileDirs ?? [],
  );
  await profiles.start();
  const runs = new RunService(database.db, store, profiles, systemClock, logger);
  runs.listen();
  const index = new BundleIndex(store, runs);
  await store.start();
  // Docs whose current version has no lint run yet (first start, or a new release) get one.
  runs.catchUp().catch((err: unknown) => logger.error("lint catch-up failed", { error: String(err) }));
  // Backend secrets are sealed under SPEC_REVIEW_SECRET_KEY, or <data-dir>/secret.key (made on first start).
  const budget = new DbBudget(database.db);
  const models = new ModelService({
    db: database.db,
    box: new SecretBox(loadSecretKey({ dataDir: opts.dataDir, mode: "local" })),
    clock: systemClock,
    logger,
    budget,
  });
  const deps = {
    db: database.db,
    store,
    profiles,
    runs,
    index,
    models,
    budget,
    clock: systemClock,
    logger,
    mode: "local" as const,
    serverVersion: packageVersion(),
  };
  const app = createApp(deps);
  // Full reviews: this process is the only one on a local database, so a run left running is requeued at once.
  const worker = createReviewWorker(deps, { exclusive: !opts.databaseUrl });
  await worker.start();
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: opts.port, hostname: opts.host }, () => resolve(s));
    s.once("error", reject);
  });
  const port = (server.address() as AddressInfo).port;
  const host = opts.host.includes(":") ? `[${opts.host}]` : opts.host;
  logger.info("listening", { url: `http://${host}:${port}/api/v1`, database: database.kind });
  return {
    url: `http://${host}:${port}`,
    port,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await worker.stop();
      index.stop();
      runs.stop();
      await store.stop();
      await runs.idle();
      await database.close();
    },
  };
}
