/**
 * Starting the service: the service graph (server/services.ts), then the HTTP listener.
 * Local mode serves a folder; hosted mode (`hosted`) serves bundles held in the database.
 */
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { createApp, type HttpOptions } from "./app.js";
import { systemClock } from "./deps.js";
import { pinoLogger, type LogFormat } from "./log.js";
import { registerSecret } from "./redact.js";
import { createServices } from "./services.js";
import { firstAdminInvite, firstAdminLine } from "./auth/first-admin.js";
import { localApiToken } from "./auth/remote.js";
import { publicLink } from "./public-url.js";
import { API_PREFIX } from "./version.js";

/** A comma-separated list from the environment, without blanks. */
function listFromEnv(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

export interface StartOptions {
  /** `hosted`: bundles in the database, no folder (default: local). */
  mode?: "local" | "hosted";
  /** The served folder (local mode). */
  folder?: string;
  /** The address people reach the service at (checked: server/public-url.ts). */
  publicUrl?: string;
  port: number;
  host: string;
  dataDir: string;
  /** Folders of profiles added to the built-ins (the served folder's `.spec-review/profiles`, `--profiles`). */
  profileDirs?: string[];
  watch: boolean;
  databaseUrl?: string;
  debug?: boolean;
  /** Local mode on an address other than loopback: allowed only with this, and then every request needs the printed API token. */
  allowRemote?: boolean;
  /** Where start-up lines for the operator go (the admin invite, the API token); default: stderr. */
  print?: (line: string) => void;
  /**
   * `pretty` (default): the API token and the admin invite are plain lines (`print`), and the
   * caller prints `startLine`. `json`: they are fields of one start-up record on the log
   * (`startLine` its message), the only record the redactor leaves them in (server/log.ts).
   */
  logFormat?: LogFormat;
  /** Where log lines go (default: stderr). */
  logWrite?: (line: string) => void;
  prepareDataDir: (dir: string) => void;
}

export interface RunningServer {
  url: string;
  /** What `serve` says once started (the start-up record's message in JSON). */
  startLine: string;
  /** The address people reach it at, when one was given. */
  publicUrl?: string;
  port: number;
  /**
   * Graceful shutdown (SIGTERM): /readyz fails and event streams end (clients resume on
   * another instance), no new request or run is taken, runs in flight get `graceMs` to
   * finish and are otherwise handed back to the queue, open requests get what is left of
   * it; then the database closes. Default grace: SPEC_REVIEW_SHUTDOWN_MS, else 10 s.
   */
  close(graceMs?: number): Promise<void>;
}

/** The line that says what is served, and where. */
export function startLine(s: { folder?: string; base: string; url: string }): string {
  return s.folder !== undefined
    ? `spec-review serving ${s.folder} at ${s.base}${API_PREFIX} (docs: ${s.base}${API_PREFIX}/docs)`
    : `spec-review serving hosted mode at ${s.base}${API_PREFIX} (docs: ${s.base}${API_PREFIX}/docs; listening on ${s.url})`;
}

/** How long a shutdown waits for runs and requests in flight. */
export function shutdownGraceMs(env: Record<string, string | undefined> = process.env): number {
  const ms = Number(env.SPEC_REVIEW_SHUTDOWN_MS);
  return Number.isFinite(ms) && ms >= 0 ? ms : 10_000;
}

export async function startServer(opts: StartOptions): Promise<RunningServer> {
  const logger = pinoLogger({ debug: opts.debug, ...(opts.logWrite ? { write: opts.logWrite } : {}) });
  const print = opts.print ?? ((line: string) => process.stderr.write(line + "\n"));
  // Local mode has no sign-in: beyond loopback it needs --allow-remote, and then a token on every request.
  const mode = opts.mode ?? "local";
  const apiToken = localApiToken(mode, opts.host, opts.allowRemote ?? false);
  let url = opts.databaseUrl;
  if (!url) {
    opts.prepareDataDir(opts.dataDir);
    url = join(opts.dataDir, "db");
  }
  const services = await createServices({
    mode,
    ...(mode === "local" ? { folder: opts.folder } : {}),
    ...(opts.publicUrl !== undefined ? { publicUrl: opts.publicUrl } : {}),
    database: url,
    // Backend secrets are sealed under SPEC_REVIEW_SECRET_KEY, or <data-dir>/secret.key (made on first start).
    dataDir: opts.dataDir,
    clock: systemClock,
    logger,
    profileDirs: opts.profileDirs,
    watch: opts.watch,
    catchUp: true,
    // Full reviews: this process is the only one on a local database, so a run left running is requeued at once.
    worker: { exclusive: !opts.databaseUrl },
    processMetrics: true,
    // Hosted mode: token-read sources are polled, rate-limited ones resumed (server/repohost/poll.ts).
    ...(mode === "hosted" ? { repohost: { poll: {} } } : {}),
  });
  // Who may reach the server: the listen host (and loopback names); more with SPEC_REVIEW_ALLOWED_HOSTS.
  const http: HttpOptions = {
    allowedHosts: [opts.host, ...listFromEnv(process.env.SPEC_REVIEW_ALLOWED_HOSTS)],
    corsOrigins: listFromEnv(process.env.SPEC_REVIEW_CORS_ORIGINS),
    apiToken,
    ...(opts.publicUrl !== undefined ? { publicUrl: opts.publicUrl } : {}),
  };
  const app = createApp(services, http);
  let server: ReturnType<typeof serve>;
  try {
    server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
      const s = serve({ fetch: app.fetch, port: opts.port, hostname: opts.host }, () => resolve(s));
      s.once("error", reject);
    });
  } catch (err) {
    await services.close();
    throw err;
  }
  const port = (server.address() as AddressInfo).port;
  http.port = port;
  const host = opts.host.includes(":") ? `[${opts.host}]` : opts.host;
  services.listeningAt(`http://${host}:${port}`);
  logger.info("listening", {
    mode,
    url: `http://${host}:${port}/api/v1`,
    ...(opts.publicUrl !== undefined ? { public_url: publicLink(opts.publicUrl, API_PREFIX) } : {}),
    database: services.database.kind,
  });
  // Masked in every log record but the start-up one.
  registerSecret(apiToken);
  const json = opts.logFormat === "json";
  if (apiToken && !json)
    print(`api token: ${apiToken}  (send as Authorization: Bearer <token>; every request needs it)`);
  const invite = await firstAdminInvite(services);
  if (invite && !json) print(firstAdminLine(invite));
  const listenUrl = `http://${host}:${port}`;
  const base = opts.publicUrl ?? listenUrl;
  const line = startLine({ folder: opts.folder, base, url: listenUrl });
  if (json)
    logger.startup(
      line,
      {
        api: `${base}${API_PREFIX}`,
        docs: `${base}${API_PREFIX}/docs`,
        listening: listenUrl,
        ...(apiToken ? { api_token: apiToken } : {}),
        ...(invite && "url" in invite ? { admin_invite: invite.url } : {}),
        ...(invite && "openSince" in invite
          ? { admin_invite_open_since: invite.openSince.toISOString() }
          : {}),
      },
      [apiToken, invite && "token" in invite ? invite.token : undefined],
    );
  return {
    url: listenUrl,
    ...(opts.publicUrl !== undefined ? { publicUrl: opts.publicUrl } : {}),
    port,
    startLine: line,
    close: async (graceMs = shutdownGraceMs()) => {
      const deadline = Date.now() + graceMs;
      services.lifecycle.draining = true;
      logger.info("shutting down", { grace_ms: graceMs });
      // Stop accepting connections; idle keep-alive ones close now, busy ones when answered.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      const http = server as unknown as { closeIdleConnections?(): void; closeAllConnections?(): void };
      http.closeIdleConnections?.();
      services.bus.wakeAll?.();
      await services.worker?.stop(Math.max(0, deadline - Date.now()));
      let t: NodeJS.Timeout | undefined;
      await Promise.race([
        closed,
        new Promise((r) => (t = setTimeout(r, Math.max(0, deadline - Date.now())))),
      ]);
      clearTimeout(t);
      http.closeAllConnections?.();
      await closed;
      await services.close();
      logger.info("stopped");
    },
  };
}
