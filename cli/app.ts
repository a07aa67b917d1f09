/**
 * `spec-review app`: the GitHub App and the HTTP API in one process (hosted mode). The App's
 * identity comes from the environment: APP_ID, PRIVATE_KEY (the PEM text, or
 * PRIVATE_KEY_PATH), WEBHOOK_SECRET; the GitHub address from GHE_HOST/GHE_PROTOCOL.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { parseOrUsage, strictArgs, UsageError } from "./args.js";

export const APP_USAGE = `Usage: spec-review app [options]

Runs the GitHub App (webhooks at /api/github/webhooks, verified by WEBHOOK_SECRET) and the
HTTP API (/api/v1) in one process, in hosted mode. See docs/app.md.

Options:
  --port <n>         port to listen on (default 3000; 0 picks a free one)
  --host <addr>      address to listen on (default 127.0.0.1)
  --data-dir <dir>   where the embedded database lives when DATABASE_URL is not set
                     (default $XDG_DATA_HOME/spec-review/app, or ~/.local/share/spec-review/app)
  -h, --help         show this help

Environment:
  APP_ID                  the App's id (required)
  PRIVATE_KEY             the App's private key, PEM text (or PRIVATE_KEY_PATH: a file holding it)
  WEBHOOK_SECRET          the webhook secret set on the App (required)
  DATABASE_URL            postgres://… (default: the embedded database in --data-dir)
  GHE_HOST, GHE_PROTOCOL  a GitHub Enterprise Server (API at <protocol>://<host>/api/v3)
  SPEC_REVIEW_SECRET_KEY  base64 of 32 bytes: seals the repohost token and backend secrets (required)
  PUBLIC_URL              the address people reach the service at
  LOG_FORMAT              json (every line on stderr one JSON record) or pretty (the start
                          lines as plain text); default: pretty on a terminal, else json
`;

function need(env: NodeJS.ProcessEnv, name: string): string {
  const v = env[name]?.trim();
  if (!v) throw new UsageError(`${name} is not set`);
  return v;
}

export function parseAppArgs(argv: string[], env: NodeJS.ProcessEnv = process.env) {
  const { values, positionals } = strictArgs(argv, {
    port: { type: "string" },
    host: { type: "string" },
    "data-dir": { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) return "help" as const;
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  const port = Number(values.port ?? env["PORT"] ?? "3000");
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port must be 0 to 65535, not '${values.port}'`);
  const privateKey = env["PRIVATE_KEY"]?.trim()
    ? env["PRIVATE_KEY"].replace(/\\n/g, "\n")
    : env["PRIVATE_KEY_PATH"]
      ? readFileSync(env["PRIVATE_KEY_PATH"], "utf8")
      : need(env, "PRIVATE_KEY");
  const dataHome = env["XDG_DATA_HOME"] ?? join(homedir(), ".local", "share");
  return {
    port,
    host: values.host ?? "127.0.0.1",
    dataDir: resolve(values["data-dir"] ?? join(dataHome, "spec-review", "app")),
    appId: need(env, "APP_ID"),
    privateKey,
    webhookSecret: need(env, "WEBHOOK_SECRET"),
    ...(env["DATABASE_URL"] ? { databaseUrl: env["DATABASE_URL"] } : {}),
    ...(env["PUBLIC_URL"] ? { publicUrl: env["PUBLIC_URL"] } : {}),
    debug: env["LOG_LEVEL"] === "debug",
  };
}

export async function appCommand(argv: string[]): Promise<number> {
  const parsed = parseOrUsage("app", () => parseAppArgs(argv), APP_USAGE);
  if ("exit" in parsed) return parsed.exit;
  const opts = parsed.options;
  const { logFormatOf, pinoLogger } = await import("../server/log.js");
  const logFormat = logFormatOf("app");
  if (logFormat === undefined) return 2;
  if (!opts.databaseUrl) mkdirSync(opts.dataDir, { recursive: true });
  const { startApp } = await import("../app/server.js");
  let running: Awaited<ReturnType<typeof startApp>>;
  try {
    running = await startApp({ ...opts, logFormat });
  } catch (err) {
    if (logFormat !== "json") throw err;
    // In JSON, a start that fails is a record too.
    pinoLogger().error("spec-review app: the start failed", {
      error: err instanceof Error ? err.message : String(err),
    });
    return 1;
  }
  // In JSON, the start-up record said it (app/server.ts).
  if (logFormat === "pretty") process.stderr.write(`${running.startLine}\n`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await running.close();
  return 0;
}
