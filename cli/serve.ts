/** `spec-review serve [folder]`: the HTTP API over one folder, on embedded PGlite or Postgres. */
import { parseArgs } from "node:util";
import { accessSync, constants, mkdirSync, statSync, writeFileSync, existsSync } from "node:fs";
import { join, resolve } from "node:path";

export const SERVE_USAGE = `Usage: spec-review serve [folder] [options]

Serves the spec bundles in a folder (default: the current folder) over HTTP at
http://<host>:<port>/api/v1, with the API reference at /api/v1/docs.

Options:
  --port <n>        port to listen on (default 8787; 0 picks a free one)
  --host <addr>     address to listen on (default 127.0.0.1, this machine only)
  --data-dir <dir>  where the embedded database lives (default <folder>/.spec-review/)
  --no-watch        do not watch the folder; edits on disk are picked up on reads
  -h, --help        show this help

Environment:
  DATABASE_URL      postgres://… to use a Postgres server instead of the embedded database
  LOG_LEVEL         debug for more log lines

Migrations run at start. Edits made on disk by other programs become versions by "local".
`;

class UsageError extends Error {}

export interface ServeOptions {
  folder: string;
  port: number;
  host: string;
  dataDir: string;
  watch: boolean;
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
        "no-watch": { type: "boolean" },
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
  return {
    folder,
    port,
    host,
    dataDir: resolve(values["data-dir"] ?? join(folder, ".spec-review")),
    watch: !values["no-watch"],
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
  const { startServer } = await import("../server/start.js");
  const server = await startServer({
    ...opts,
    databaseUrl: process.env.DATABASE_URL,
    debug: process.env.LOG_LEVEL === "debug",
    prepareDataDir,
  });
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

/** Make the data folder, with a .gitignore so it never lands in the repository. */
function prepareDataDir(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const ignore = join(dir, ".gitignore");
  if (!existsSync(ignore)) writeFileSync(ignore, "*\n");
}
