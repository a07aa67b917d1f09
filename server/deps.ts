/**
 * What the HTTP app is built from. Handed in by the caller (`serve`, tests,
 * the GitHub App), never read from module-level singletons.
 */
import type { Db } from "./db/index.js";
import type { BundleStore } from "./store/types.js";
import type { ProfileRegistry } from "./profiles.js";
import type { RunService } from "./runs.js";
import type { BundleIndex } from "./bundle-index.js";
import type { Budget, ModelRoles } from "./models/types.js";

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
  clock: Clock;
  logger: Logger;
  mode: "local" | "hosted";
  /** spec-review's own version (package.json). */
  serverVersion: string;
}

export const systemClock: Clock = { now: () => new Date() };

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** One JSON object per line on stderr, at `info` and above unless `debug` is set. */
export function jsonLogger(opts: { debug?: boolean; write?: (line: string) => void } = {}): Logger {
  const write = opts.write ?? ((line: string) => process.stderr.write(line + "\n"));
  const at =
    (level: string) =>
    (msg: string, fields: Record<string, unknown> = {}) =>
      write(JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields }));
  return {
    debug: opts.debug ? at("debug") : () => {},
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
  };
}
