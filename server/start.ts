/** Starting the service: database, migrations, store, HTTP listener. */
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { openDatabase } from "./db/index.js";
import { createApp } from "./app.js";
import { LocalStore } from "./store/local.js";
import { jsonLogger, systemClock } from "./deps.js";
import { limitsFrom } from "./settings.js";
import { packageVersion } from "./paths.js";

export interface StartOptions {
  folder: string;
  port: number;
  host: string;
  dataDir: string;
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
  await store.start();
  const app = createApp({
    db: database.db,
    store,
    clock: systemClock,
    logger,
    mode: "local",
    serverVersion: packageVersion(),
  });
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
      await store.stop();
      await database.close();
    },
  };
}
