/**
 * `spec-review mcp [folder]`: the MCP server for coding agents over stdio, on a folder of
 * bundles (the service runs inside this process, with no HTTP port), or with `--url` on a
 * running service (local or hosted), through its HTTP API with an API token.
 */
import { parseOrUsage, strictArgs, UsageError } from "./args.js";
import { existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { repositoryProfilesDir } from "../node/profiles.js";

export const MCP_USAGE = `Usage: spec-review mcp [folder] [options]
       spec-review mcp --url <service-url>

Runs spec-review's MCP server for coding agents over stdio (stdin/stdout carry MCP; logs
go to stderr). Its tools list bundles and verdicts, read findings and threads, ask
questions, take a handoff, report back, and verify a build (see docs/mcp-server.md).

With a folder (default: the current folder), the service runs inside this process over
that folder, with the same database \`spec-review serve\` uses. While a \`serve\` runs on
the same folder, connect to it with --url instead: an embedded database has one owner.

Options:
  --url <url>         a running service (http://127.0.0.1:8787, https://specs.example.com);
                      the token, where it needs one, comes from SPEC_REVIEW_TOKEN
  --data-dir <dir>    where the embedded database lives (default <folder>/.spec-review/data/)
  --profiles <dir>    add a folder of profiles (<key>/profile.yaml); repeatable
  --no-watch          do not watch the folder; edits on disk are picked up on reads
  -h, --help          show this help

Environment:
  SPEC_REVIEW_TOKEN   with --url: the API token, sent as Authorization: Bearer (hosted
                      mode: make one with POST /api/v1/me/tokens; a local server started
                      with --allow-remote: the token it printed at start)
  DATABASE_URL        postgres://… instead of the embedded database (folder mode)
  LOG_LEVEL           debug for more log lines (on stderr)
`;

export type McpOptions =
  | { kind: "remote"; url: string; token?: string }
  | { kind: "local"; folder: string; dataDir: string; profileDirs: string[]; watch: boolean };

export function parseMcpArgs(
  argv: string[],
  env: Record<string, string | undefined> = process.env,
): McpOptions | "help" {
  const { values, positionals } = strictArgs(argv, {
    url: { type: "string" },
    "data-dir": { type: "string" },
    profiles: { type: "string", multiple: true },
    "no-watch": { type: "boolean" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) return "help";
  if (values.url !== undefined) {
    const local = positionals.length > 0 || values["data-dir"] || values.profiles || values["no-watch"];
    if (local)
      throw new UsageError(
        "--url connects to a running service: a folder, --data-dir, --profiles and --no-watch are its own",
      );
    let url: URL;
    try {
      url = new URL(values.url);
    } catch {
      throw new UsageError(`--url must be an http(s) URL, got ${values.url}`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:")
      throw new UsageError(`--url must be an http(s) URL, got ${values.url}`);
    const token = env.SPEC_REVIEW_TOKEN?.trim();
    return { kind: "remote", url: url.toString(), ...(token ? { token } : {}) };
  }
  if (positionals.length > 1) throw new UsageError(`mcp takes one folder, got ${positionals.length}`);
  const folder = resolve(positionals[0] ?? ".");
  if (!existsSync(folder) || !statSync(folder).isDirectory())
    throw new UsageError(`${folder} is not a folder`);
  const profileDirs = [repositoryProfilesDir(folder)];
  for (const p of values.profiles ?? []) {
    const dir = resolve(p);
    if (!existsSync(dir) || !statSync(dir).isDirectory())
      throw new UsageError(`no such profiles folder: ${p}`);
    profileDirs.push(dir);
  }
  return {
    kind: "local",
    folder,
    dataDir: resolve(values["data-dir"] ?? join(folder, ".spec-review", "data")),
    profileDirs,
    watch: !values["no-watch"],
  };
}

export async function mcpCommand(argv: string[]): Promise<number> {
  const parsed = parseOrUsage("mcp", () => parseMcpArgs(argv), MCP_USAGE);
  if ("exit" in parsed) return parsed.exit;
  const opts = parsed.options;
  const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
  const { createMcpServer } = await import("../server/mcp-server/server.js");
  const { inProcessApi, remoteApi } = await import("../server/mcp-server/api.js");

  let api;
  let close = () => Promise.resolve();
  if (opts.kind === "remote") {
    api = remoteApi(opts.url, opts.token);
    await checkRemote(api, opts.url, opts.token !== undefined);
  } else {
    // The MCP handshake does not wait for the database: a client gives up on a server that is
    // slow to answer `initialize`. The first tool call waits for the start instead, and if the
    // start failed, every tool answers why.
    const starting = startLocal(opts);
    starting.catch((err: unknown) =>
      process.stderr.write(
        `spec-review mcp: cannot start: ${err instanceof Error ? err.message : String(err)}\n`,
      ),
    );
    api = inProcessApi(async (req) => (await starting).app.fetch(req));
    close = () => starting.then((s) => s.close()).catch(() => undefined);
  }

  const server = createMcpServer({ api, session: true });
  const transport = new StdioServerTransport();
  let closing = false;
  const stop = (code: number) => {
    if (closing) return;
    closing = true;
    Promise.all([server.close(), close()]).then(
      () => process.exit(code),
      () => process.exit(1),
    );
  };
  // The client ends the session by closing our stdin (or by a signal).
  process.stdin.once("end", () => stop(0));
  process.once("SIGINT", () => stop(0));
  process.once("SIGTERM", () => stop(0));
  await server.connect(transport);
  return -1; // keep running
}

/** Says on stderr, at once, when the service cannot be reached or refuses the token. */
async function checkRemote(
  api: (path: string, init?: RequestInit) => Promise<Response>,
  url: string,
  hasToken: boolean,
): Promise<void> {
  try {
    const res = await api("/bundles?limit=1");
    if (res.status === 401)
      process.stderr.write(
        `spec-review mcp: ${url} refuses ${hasToken ? "the token in SPEC_REVIEW_TOKEN" : "requests without a token: set SPEC_REVIEW_TOKEN"}; every tool will answer that error\n`,
      );
    await res.body?.cancel();
  } catch (err) {
    process.stderr.write(
      `spec-review mcp: cannot reach ${url} (${err instanceof Error ? err.message : String(err)}); tools will answer that error until it is up\n`,
    );
  }
}

/** The service graph over the folder, without a listener: the tools call its app in process. */
async function startLocal(opts: Extract<McpOptions, { kind: "local" }>) {
  const { createServices } = await import("../server/services.js");
  const { createApp } = await import("../server/app.js");
  const { jsonLogger, systemClock } = await import("../server/deps.js");
  const databaseUrl = process.env.DATABASE_URL || undefined;
  if (databaseUrl === undefined) prepareDataDir(opts.dataDir);
  const services = await createServices({
    mode: "local",
    folder: opts.folder,
    database: databaseUrl ?? join(opts.dataDir, "db"),
    dataDir: opts.dataDir,
    clock: systemClock,
    // stdout carries MCP: every log line goes to stderr.
    logger: jsonLogger({ debug: process.env.LOG_LEVEL === "debug" }),
    profileDirs: opts.profileDirs,
    watch: opts.watch,
    catchUp: true,
    worker: { exclusive: databaseUrl === undefined },
  });
  process.stderr.write(`spec-review mcp: serving ${opts.folder} over stdio\n`);
  return { app: createApp(services), close: () => services.close() };
}

/** The data folder, with a .gitignore so it never lands in the repository (as `serve` makes it). */
function prepareDataDir(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const ignore = join(dir, ".gitignore");
  if (!existsSync(ignore)) writeFileSync(ignore, "*\n");
}
