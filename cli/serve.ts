/** `spec-review serve [folder]`: the HTTP API over one folder, on embedded PGlite or Postgres. */
import { parseArgs } from "node:util";
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
import { join, resolve } from "node:path";
import { CONFIG_FOLDER, repositoryProfilesDir } from "../node/profiles.js";

export const SERVE_USAGE = `Usage: spec-review serve [folder] [options]

Serves the spec bundles in a folder (default: the current folder) over HTTP at
http://<host>:<port>/api/v1, with the API reference at /api/v1/docs.

Options:
  --port <n>        port to listen on (default 8787; 0 picks a free one)
  --host <addr>     address to listen on (default 127.0.0.1, this machine only)
  --data-dir <dir>  where the embedded database lives (default <folder>/.spec-review/data/)
  --profiles <dir>  add a folder of profiles (<key>/profile.yaml); repeatable
  --no-watch        do not watch the folder; edits on disk are picked up on reads
  --allow-remote    listen on an address other machines reach (local mode has no sign-in:
                    every request then needs the API token printed at start, as a bearer token)
  -h, --help        show this help

Environment:
  DATABASE_URL      postgres://… to use a Postgres server instead of the embedded database
  LOG_LEVEL         debug for more log lines

Profiles: the built-ins, plus the folder's own in .spec-review/profiles/<key>/ (commit
them), plus each --profiles folder; a profile with the key of an earlier one replaces it.

Migrations run at start. Edits made on disk by other programs become versions by "local".
`;

class UsageError extends Error {}

export interface ServeOptions {
  folder: string;
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

export function parseServeArgs(argv: string[]): ServeOptions | "help" {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        port: { type: "string" },
        host: { type: "string" },
        "data-dir": { type: "string" },
        profiles: { type: "string", multiple: true },
        "no-watch": { type: "boolean" },
        "allow-remote": { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message.split("\n")[0] : String(err));
  }
  const { values, positionals } = parsed;
  if (values.help) return "help";
  if (positionals.length > 1) throw new UsageError(`serve takes one folder, got ${positionals.length}`);
  const folder = resolve(positionals[0] ?? ".");
  try {
    if (!statSync(folder).isDirectory()) throw new UsageError(`${folder} is not a folder`);
    accessSync(folder, constants.R_OK | constants.X_OK);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`cannot read folder ${folder}`);
  }
  const portText = values.port ?? "8787";
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535)
    throw new UsageError(`--port must be a number from 0 to 65535, got ${portText}`);
  const host = values.host ?? "127.0.0.1";
  if (host.trim() === "") throw new UsageError("--host must not be empty");
  const profileDirs = [repositoryProfilesDir(folder)];
  for (const p of values.profiles ?? []) {
    const dir = resolve(p);
    if (!existsSync(dir) || !statSync(dir).isDirectory())
      throw new UsageError(`no such profiles folder: ${p}`);
    profileDirs.push(dir);
  }
  return {
    folder,
    port,
    host,
    dataDir: resolve(values["data-dir"] ?? defaultDataDir(folder)),
    defaultDataDir: values["data-dir"] === undefined,
    profileDirs,
    watch: !values["no-watch"],
    allowRemote: values["allow-remote"] ?? false,
  };
}

export async function serveCommand(argv: string[]): Promise<number> {
  let opts;
  try {
    opts = parseServeArgs(argv);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`spec-review serve: ${err.message} (see spec-review serve --help)\n`);
      return 2;
    }
    throw err;
  }
  if (opts === "help") {
    process.stdout.write(SERVE_USAGE);
    return 0;
  }
  if (opts.defaultDataDir) {
    const moved = moveLegacyData(opts.folder);
    if (moved.length > 0)
      process.stderr.write(
        `spec-review: moved the data of an earlier version from ${join(opts.folder, CONFIG_FOLDER)} to ${opts.dataDir}\n`,
      );
  }
  const { startServer } = await import("../server/start.js");
  const { RemoteRefused } = await import("../server/auth/remote.js");
  let server;
  try {
    server = await startServer({
      ...opts,
      databaseUrl: process.env.DATABASE_URL,
      debug: process.env.LOG_LEVEL === "debug",
      prepareDataDir,
    });
  } catch (err) {
    if (!(err instanceof RemoteRefused)) throw err;
    process.stderr.write(`spec-review serve: ${err.message}\n`);
    return 2;
  }
  process.stderr.write(
    `spec-review serving ${opts.folder} at ${server.url}/api/v1 (docs: ${server.url}/api/v1/docs)\n`,
  );
  const stop = () => {
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  return -1; // keep running
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
