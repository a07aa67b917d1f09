/**
 * What the HTTP app and the workers are built from: the service graph that
 * `createServices` (server/services.ts) builds once per process (or per test app),
 * never read from module-level singletons.
 */
import type { Db } from "./db/index.js";
import type { BundleStore } from "./store/types.js";
import type { ProfileRegistry } from "./profiles.js";
import type { RunService } from "./runs.js";
import type { BundleIndex } from "./bundle-index.js";
import type { Budget, ModelRoles } from "./models/types.js";
import type { RunBus } from "./jobs/bus.js";
import type { HeavyPool } from "./heavy/pool.js";
import type { ReviewService } from "./review/service.js";
import type { Authenticator } from "./auth/actor.js";
import type { Accounts } from "./auth/accounts.js";
import type { GitHubLink } from "./auth/github-link.js";
import type { McpConnections } from "./mcp/connections.js";
import type { VerificationService } from "./verify/service.js";
import type { ThreadService } from "./threads/service.js";
import type { SettingsCache } from "./settings.js";
import type { WaiverArea } from "./waivers/index.js";
import type { Cluster } from "./cluster.js";
import type { Metrics } from "./metrics.js";
import type { Lifecycle } from "./ops.js";
import { pinoLogger } from "./log.js";
import type { RepohostSources } from "./repohost/sources.js";

export interface Clock {
  now(): Date;
}

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export interface Deps {
  db: Db;
  store: BundleStore;
  profiles: ProfileRegistry;
  runs: RunService;
  /** The bundle list in memory. */
  index: BundleIndex;
  /** Models per review role (admin backends and roles). */
  models: ModelRoles;
  /** The monthly token budget. */
  budget: Budget;
  /** Run events and queue notices of this graph. */
  bus: RunBus;
  /** Worker threads for heavy work on large docs (lint, render, export, diff). */
  heavy: HeavyPool;
  /** Full reviews: starting, running (the worker), reading what they produced. */
  review: ReviewService;
  /** MCP connections: admin operations, and the tools runs read external targets and search with. */
  mcp: McpConnections;
  /** Verification runs and the ports handoff and verification use (server/verify). */
  verify: VerificationService;
  /** Threads on docs and profiles: anchors that follow the text, AI answers, blocking (server/threads). */
  threads: ThreadService;
  /** Who a request comes from (the actor middleware asks it). */
  auth: Authenticator;
  /** People, invites, sign-in, sessions and API tokens (hosted mode; server/auth/accounts.ts). */
  accounts: Accounts;
  /** People's GitHub logins: the App's user authorization and the admin's setting (server/auth/github-link.ts). */
  githubLink?: GitHubLink;
  /** Waivers, acknowledgements, the sidecar, review status, the inbox, next actions (server/waivers). */
  waivers: WaiverArea;
  /** The workspace settings, cached until written (server/settings.ts). */
  settings: SettingsCache;
  clock: Clock;
  logger: Logger;
  mode: "local" | "hosted";
  /** Repohost sources, the token and the App's installations (hosted mode; server/repohost). */
  repohost?: RepohostSources;
  /**
   * The served folder (local mode): its real path, and a whole scan of it (what a change
   * under `.spec-review/`, which the watcher passes over, needs to be seen).
   */
  served?: { readonly root: string; rescan(): Promise<void> };
  /**
   * The address people reach the service at (`--public-url`, PUBLIC_URL), without a
   * trailing slash: links the service prints or sends (invites, reset and share links) are
   * built from it. Unset when only loopback addresses reach it.
   */
  publicUrl?: string;
  /**
   * Where links the service makes start: the public URL, else the address it listens on
   * (set once listening), else DEFAULT_PUBLIC_URL.
   */
  linkBase(): string;
  /** spec-review's own version (package.json). */
  serverVersion: string;
  /** The other instances on the same Postgres (server/cluster.ts); none on PGlite. */
  cluster?: Cluster;
  /** Prometheus metrics of this graph (server/metrics.ts): the App counts webhook deliveries here. */
  metrics?: Metrics;
  /** Set `draining` when shutting down: /readyz fails first (server/ops.ts, server/start.ts). */
  lifecycle?: Lifecycle;
}

export const systemClock: Clock = { now: () => new Date() };

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * One JSON object per line on stderr (pino: server/log.ts), at `info` and above unless
 * `debug` is set, with the request id of the request it happens in; secrets redacted
 * (server/redact.ts).
 */
export function jsonLogger(opts: { debug?: boolean; write?: (line: string) => void } = {}): Logger {
  return pinoLogger(opts);
}
