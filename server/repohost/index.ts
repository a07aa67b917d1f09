/**
 * The repohost part of the service graph (hosted mode): the token connection, the
 * repohost store beside the primary one (one CompositeStore for routes and runs), and the
 * sources service. The App (app/) plugs its installations in with `sources.app`.
 */
import type { Db } from "../db/index.js";
import type { Clock, Logger } from "../deps.js";
import type { SecretBox } from "../models/secrets.js";
import type { BundleStore, Limits } from "../store/types.js";
import { CompositeStore } from "./composite.js";
import { RepohostConnection } from "./connection.js";
import { apiUrlFromEnv } from "./github.js";
import { RepohostSources } from "./sources.js";
import { RepohostStore } from "./store.js";
import type { Registry } from "prom-client";
import { repohostMetrics } from "./metrics.js";
import { SourcePoller, type PollOptions } from "./poll.js";

export interface RepohostConfig {
  /** The API address when the admin sets none (default: GHE_HOST's, else the public one). */
  apiUrl?: string;
  /** The fetch calls go through (tests, the benchmark). */
  fetch?: typeof fetch;
  /**
   * Poll token-read sources and resume rate-limited ones (poll.ts); off unless given
   * (`serve --hosted` and `app` turn it on; tests call `sources.poller.tick()`).
   */
  poll?: PollOptions;
}

export function createRepohost(opts: {
  db: Db;
  box: SecretBox;
  clock: Clock;
  logger: Logger;
  limits: () => Promise<Limits>;
  primary: BundleStore;
  config?: RepohostConfig;
  /** The registry the repohost metrics go on (server/metrics.ts), when there is one. */
  registry?: Registry;
}): { sources: RepohostSources; store: CompositeStore; poller: SourcePoller } {
  const observer = opts.registry ? repohostMetrics(opts.registry, opts.db, opts.clock) : undefined;
  const connection = new RepohostConnection(
    opts.db,
    opts.box,
    opts.config?.apiUrl ?? apiUrlFromEnv(),
    () => opts.clock.now(),
    opts.config?.fetch,
    observer,
  );
  // The store reads repos through the sources service's choice of client (installation or token).
  const holder: { sources?: RepohostSources } = {};
  const repohost = new RepohostStore({
    db: opts.db,
    clock: opts.clock,
    logger: opts.logger,
    limits: opts.limits,
    clientFor: (source) => holder.sources!.clientForSource(source),
  });
  const sources = new RepohostSources(opts.db, opts.clock, connection, repohost);
  holder.sources = sources;
  sources.observer = observer;
  const poller = new SourcePoller(opts.db, opts.clock, opts.logger, repohost, opts.config?.poll);
  sources.poller = poller;
  if (opts.config?.poll) poller.start();
  return { sources, store: new CompositeStore(opts.db, opts.primary, repohost), poller };
}

export { RepohostSources, RepohostStore, CompositeStore, RepohostConnection, SourcePoller };
