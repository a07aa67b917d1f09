/**
 * `spec-review serve [folder]`: the HTTP API over one folder, on embedded PGlite or Postgres.
 * `spec-review serve --hosted`: hosted mode, bundles held in the database, no folder.
 */
import { parseOrUsage, strictArgs, UsageError } from "./args.js";
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { CONFIG_FOLDER, repositoryProfilesDir } from "../node/profiles.js";
import { isLoopback, parsePublicUrl } from "../server/public-url.js";

export const SERVE_USAGE = `Usage: spec-review serve [folder] [options]
       spec-review serve --hosted [options]

Serves the spec bundles in a folder (default: the current folder) over HTTP at
http://<host>:<port>/api/v1, with the API reference at /api/v1/docs. With --hosted,
serves hosted mode instead: people sign in, and bundles live in the database (no folder).

Options:
  --hosted            hosted mode (see docs/hosted.md); needs SPEC_REVIEW_SECRET_KEY
  --port <n>          port to listen on (default 8787; 0 picks a free one)
  --host <addr>       address to listen on (default 127.0.0.1, this machine only)
  --public-url <url>  the address people reach the service at (e.g. behind a proxy);
                      links are built from it and requests naming it are answered.
                      Required with --hosted on an address other than loopback
  --data-dir <dir>    where the embedded database lives (default <folder>/.spec-review/data/;
                      hosted: $XDG_DATA_HOME/spec-review/hosted, or ~/.local/share/…)
  --profiles <dir>    add a folder of profiles (<key>/profile.yaml); repeatable
  --no-watch          do not watch the folder; edits on disk are picked up on reads
  --allow-remote      local mode on an address other machines reach (there is no sign-in:
                      every request then needs the API token printed at start, as a bearer token)
  -h, --help          show this help

Environment:
  DATABASE_URL            postgres://… to use a Postgres server instead of the embedded database
  PUBLIC_URL              the same as --public-url (the flag wins)
  SPEC_REVIEW_SECRET_KEY  base64 of 32 random bytes (openssl rand -base64 32): seals model
                          backend secrets; required in hosted mode
  LOG_LEVEL               debug for more log lines
  LOG_FORMAT              json (every line on stderr one JSON record) or pretty (the start
                          lines as plain text); default: pretty on a terminal, else json

Profiles: the built-ins, plus the folder's own in .spec-review/profiles/<key>/ (commit
them), plus each --profiles folder; a profile with the key of an earlier one replaces it.

Migrations run at start. Edits made on disk by other programs become versions by "local".
`;

export interface ServeOptions {
  mode: "local" | "hosted";
  /** The served folder (local mode). */
  folder?: string;
  /** --public-url or PUBLIC_URL, checked. */
  publicUrl?: string;
  port: number;
  host: string;
  dataDir: string;
  /** True when the data folder is the default one, inside the served folder. */
  defaultDataDir: boolean;
  /** Profile folders: the served folder's own, then each --profiles. */
  profileDirs: string[];
  watch: boolean;
  allowRemote: boolean;
}

export function parseServeArgs(
  argv: string[],
  env: Record<string, string | undefined> = process.env,
): ServeOptions | "help" {
  const { values, positionals } = strictArgs(argv, {
    hosted: { type: "boolean" },
    "public-url": { type: "string" },
    port: { type: "string" },
    host: { type: "string" },
    "data-dir": { type: "string" },
    profiles: { type: "string", multiple: true },
    "no-watch": { type: "boolean" },
    "allow-remote": { type: "boolean" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) return "help";
  const hosted = values.hosted === true;
  if (hosted && positionals.length > 0)
    throw new UsageError("hosted mode serves no folder: its bundles live in the database; drop the folder");
  if (hosted && values["no-watch"])
    throw new UsageError("--no-watch is for a served folder; hosted mode has none");
  if (positionals.length > 1) throw new UsageError(`serve takes one folder, got ${positionals.length}`);
  const folder = hosted ? undefined : readableFolder(resolve(positionals[0] ?? "."));
  const portText = values.port ?? "8787";
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535)
    throw new UsageError(`--port must be a number from 0 to 65535, got ${portText}`);
  const host = values.host ?? "127.0.0.1";
  if (host.trim() === "") throw new UsageError("--host must not be empty");
  const publicUrl = publicUrlOf(values["public-url"] ?? (env.PUBLIC_URL || undefined));
  if (hosted && publicUrl === undefined && !isLoopback(host))
    throw new UsageError(
      `--host ${host} is not a loopback address: give --public-url (or PUBLIC_URL), the address people reach the service at, so that requests naming it are answered and links point at it`,
    );
  const profileDirs = folder === undefined ? [] : [repositoryProfilesDir(folder)];
  for (const p of values.profiles ?? []) {
    const dir = resolve(p);
    if (!existsSync(dir) || !statSync(dir).isDirectory())
      throw new UsageError(`no such profiles folder: ${p}`);
    profileDirs.push(dir);
  }
  return {
    mode: hosted ? "hosted" : "local",
    ...(folder !== undefined ? { folder } : {}),
    ...(publicUrl !== undefined ? { publicUrl } : {}),
    port,
    host,
    dataDir: resolve(
      values["data-dir"] ?? (folder === undefined ? hostedDataDir(env) : defaultDataDir(folder)),
    ),
    defaultDataDir: values["data-dir"] === undefined,
    profileDirs,
    watch: !values["no-watch"],
    allowRemote: values["allow-remote"] ?? false,
  };
}

export async function serveCommand(argv: string[]): Promise<number> {
  const parsed = parseOrUsage("serve", () => parseServeArgs(argv), SERVE_USAGE);
  if ("exit" in parsed) return parsed.exit;
  const opts = parsed.options;
  const { logFormatOf, pinoLogger } = await import("../server/log.js");
  const logFormat = logFormatOf("serve");
  if (logFormat === undefined) return 2;
  const json = logFormat === "json";
  if (opts.mode === "hosted") {
    const problem = await secretKeyProblem();
    if (problem) {
      process.stderr.write(`spec-review serve --hosted: ${problem}\n`);
      return 2;
    }
  }
  const { modelCallTimeoutMs } = await import("../server/models/service.js");
  try {
    modelCallTimeoutMs();
  } catch (err) {
    process.stderr.write(`spec-review serve: ${err instanceof Error ? err.message : String(err)}\n`);
    return 2;
  }
  if (opts.defaultDataDir && opts.folder !== undefined) {
    let moved: string[];
    try {
      moved = moveLegacyData(opts.folder);
    } catch (err) {
      if (!json) throw err;
      return startFailed(err);
    }
    const line = `spec-review: moved the data of an earlier version from ${join(opts.folder, CONFIG_FOLDER)} to ${opts.dataDir}`;
    if (moved.length > 0 && json) pinoLogger().info(line, { moved });
    else if (moved.length > 0) process.stderr.write(`${line}\n`);
  }
  const { startServer, shutdownGraceMs } = await import("../server/start.js");
  const { RemoteRefused } = await import("../server/auth/remote.js");
  // Signals are handled from here on: one that comes while the server is still starting (its
  // first admin invite is made after it listens) closes it gracefully once it has started;
  // a start that takes longer than the grace period is ended with 1.
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  let signalled = false;
  const close = (running: NonNullable<typeof server>) =>
    running.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  const stop = () => {
    if (signalled) return;
    signalled = true;
    if (server) void close(server);
    else setTimeout(() => process.exit(1), shutdownGraceMs()).unref();
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    server = await startServer({
      ...opts,
      databaseUrl: process.env.DATABASE_URL,
      debug: process.env.LOG_LEVEL === "debug",
      logFormat,
      prepareDataDir,
    });
  } catch (err) {
    if (err instanceof RemoteRefused) {
      process.stderr.write(`spec-review serve: ${err.message}\n`);
      return 2;
    }
    if (!json) throw err;
    return startFailed(err);
  }
  // In JSON, the start-up record said it (server/start.ts).
  if (!json) process.stderr.write(`${server.startLine}\n`);
  if (signalled) void close(server);
  return -1; // keep running
}

/** In JSON, a start that fails (the database unreachable, the port taken) is a record too: exit 1. */
async function startFailed(err: unknown): Promise<number> {
  const { pinoLogger } = await import("../server/log.js");
  pinoLogger().error("spec-review serve: the start failed", {
    error: err instanceof Error ? err.message : String(err),
  });
  return 1;
}

function readableFolder(folder: string): string {
  try {
    if (!statSync(folder).isDirectory()) throw new UsageError(`${folder} is not a folder`);
    accessSync(folder, constants.R_OK | constants.X_OK);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`cannot read folder ${folder}`);
  }
  return folder;
}

function publicUrlOf(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    return parsePublicUrl(value);
  } catch (err) {
    throw new UsageError(`--public-url: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Why hosted mode cannot start with this environment's SPEC_REVIEW_SECRET_KEY, if it cannot. */
async function secretKeyProblem(): Promise<string | undefined> {
  const { loadSecretKey } = await import("../server/models/secrets.js");
  try {
    loadSecretKey({ mode: "hosted" });
    return undefined;
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return `${why}. Hosted mode seals the model backends' secrets with this key and keeps no key file; set it in the service's environment, the same on every start (a new key cannot open what the old one sealed)`;
  }
}

/** Hosted mode's embedded database, when --data-dir names none: the user's data folder. */
export function hostedDataDir(env: Record<string, string | undefined>): string {
  return join(env.XDG_DATA_HOME || join(homedir(), ".local", "share"), "spec-review", "hosted");
}

/** Local mode's data folder: `<folder>/.spec-review/data/`, beside the repository's configuration. */
export function defaultDataDir(folder: string): string {
  return join(folder, CONFIG_FOLDER, "data");
}

/** Entries of `.spec-review/` that are the repository's configuration, never data. */
const CONFIG_ENTRIES = new Set(["config.yaml", "profiles", "data"]);

/**
 * Earlier versions kept local mode's data in `<folder>/.spec-review/` itself (the
 * database in `db/`, `secret.key`, a `.gitignore` of `*` that would hide committed
 * profiles). Move it into `.spec-review/data/`, database last, so that an interrupted
 * move is finished on the next start. Nothing is overwritten: an entry that exists in
 * both places stops the start with a message. Returns the names moved.
 */
export function moveLegacyData(folder: string): string[] {
  const config = join(folder, CONFIG_FOLDER);
  if (!existsSync(join(config, "db"))) return [];
  const data = defaultDataDir(folder);
  const names = readdirSync(config)
    .filter((n) => !CONFIG_ENTRIES.has(n))
    .sort((a, b) => Number(a === "db") - Number(b === "db") || (a < b ? -1 : 1));
  const clash = names.filter((n) => n !== ".gitignore" && existsSync(join(data, n)));
  if (clash.length > 0)
    throw new Error(
      `both ${config} and ${data} hold ${clash.join(", ")}: move what you keep into ${data} and remove the rest`,
    );
  mkdirSync(data, { recursive: true });
  const moved: string[] = [];
  for (const name of names) {
    const from = join(config, name);
    if (name === ".gitignore") {
      // Ours ignored everything; the data folder gets its own. One a person wrote stays.
      if (readFileSync(from, "utf8").trim() === "*") {
        if (existsSync(join(data, name))) rmSync(from);
        else renameSync(from, join(data, name));
        moved.push(name);
      }
      continue;
    }
    renameSync(from, join(data, name));
    moved.push(name);
  }
  return moved;
}

/** Make the data folder, with a .gitignore so it never lands in the repository. */
function prepareDataDir(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const ignore = join(dir, ".gitignore");
  if (!existsSync(ignore)) writeFileSync(ignore, "*\n");
}
