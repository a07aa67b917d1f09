/**
 * `spec-review app`: the GitHub App and the HTTP API in one process, hosted mode. Webhooks
 * arrive at /api/github/webhooks and are verified by their HMAC signature (WEBHOOK_SECRET)
 * before any handler runs; every other request goes to the API.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { getRequestListener } from "@hono/node-server";
import { createNodeMiddleware, Probot, ProbotOctokit } from "probot";
import { createApp } from "../server/app.js";
import { systemClock } from "../server/deps.js";
import { firstAdminInvite, firstAdminLine } from "../server/auth/first-admin.js";
import { pinoLogger, type LogFormat } from "../server/log.js";
import { packageRoot } from "../server/paths.js";
import { apiUrlFromEnv } from "../server/repohost/github.js";
import { createServices } from "../server/services.js";
import specReview from "./index.js";
import { throttledOctokit } from "./throttle.js";
import { PullReviews } from "./pr-review.js";
import { HANDLER_STALE_MS } from "./deliveries.js";
import type { AppDeps } from "./deps.js";
import { appAuth } from "./main.js";
import { Reconciler } from "./reconcile.js";
import type { ThreadSink } from "./threads-port.js";
import { githubReplies, serviceThreadSink } from "./threads-sink.js";

export const WEBHOOKS_PATH = "/api/github/webhooks";

export interface AppServerOptions {
  port: number;
  host: string;
  /** The embedded database's folder when DATABASE_URL is not set. */
  dataDir: string;
  databaseUrl?: string;
  appId: string;
  privateKey: string;
  webhookSecret: string;
  /** The GitHub API address (default: GHE_HOST/GHE_PROTOCOL, else api.github.com). */
  apiUrl?: string;
  publicUrl?: string;
  debug?: boolean;
  /** Where review comments go (default: the service's threads, app/threads-sink.ts). */
  threads?: ThreadSink;
  print?: (line: string) => void;
  /**
   * `pretty` (default): the admin invite is a plain line (`print`), and the caller prints
   * `startLine`. `json`: it is a field of one start-up record on the log (server/log.ts).
   */
  logFormat?: LogFormat;
}

export interface RunningApp {
  url: string;
  port: number;
  /** What `spec-review app` says once started (the start-up record's message in JSON). */
  startLine: string;
  close(): Promise<void>;
}

/** The web address of the repo host for links, from its API address. */
function serverUrlOf(apiUrl: string): string {
  const u = new URL(apiUrl);
  if (u.hostname === "api.github.com") return "https://github.com";
  return `${u.protocol}//${u.host}`;
}

export async function startApp(opts: AppServerOptions): Promise<RunningApp> {
  const logger = pinoLogger({ debug: opts.debug });
  const apiUrl = (opts.apiUrl ?? apiUrlFromEnv()).replace(/\/+$/, "");
  const services = await createServices({
    mode: "hosted",
    database: opts.databaseUrl ?? join(opts.dataDir, "db"),
    dataDir: opts.dataDir,
    clock: systemClock,
    logger,
    catchUp: true,
    worker: { exclusive: !opts.databaseUrl },
    // Token-read sources are polled, rate-limited ones resumed (server/repohost/poll.ts).
    repohost: { apiUrl, poll: {} },
    ...(opts.publicUrl !== undefined ? { publicUrl: opts.publicUrl } : {}),
  });
  try {
    const repohost = services.repohost;
    if (!repohost) throw new Error("hosted mode has no repohost service");
    const probot = new Probot({
      appId: opts.appId,
      privateKey: opts.privateKey,
      secret: opts.webhookSecret,
      baseUrl: apiUrl,
      logLevel: opts.debug ? "debug" : "warn",
      // GitHub's rate limits as it documents them, an installation's requests one at a time (app/throttle.ts).
      Octokit: throttledOctokit(ProbotOctokit, logger, repohost.observer),
    });
    // Messages posted in the service into threads a review comment opened reply on GitHub.
    const stopReplies = opts.threads ? () => {} : githubReplies(services, repohost);
    // One process on the embedded database: every review in flight at start was left by it.
    const pullReviews = new PullReviews({
      db: services.db,
      clock: services.clock,
      logger,
      exclusive: !opts.databaseUrl,
    });
    const deps: AppDeps = {
      db: services.db,
      clock: services.clock,
      logger,
      repohost,
      threads: opts.threads ?? serviceThreadSink(services),
      builtinProfilesDir: join(packageRoot(), "profiles"),
      checkName: "Build Ready",
      serverUrl: serverUrlOf(apiUrl),
      apiUrl,
      review: services.review,
      budget: services.budget,
      ...(opts.publicUrl !== undefined ? { publicUrl: opts.publicUrl } : {}),
      pullReviews,
      waivers: { store: services.store, area: services.waivers },
      profiles: services.profiles,
      metrics: services.metrics,
      // On the embedded database this is the only process: a handler run it did not start was killed.
      deliveries: { worker: pullReviews.id, exclusive: !opts.databaseUrl, staleMs: HANDLER_STALE_MS },
    };
    const webhooks = await createNodeMiddleware(specReview(deps), { probot, webhooksPath: WEBHOOKS_PATH });
    const api = getRequestListener(
      createApp(services, {
        allowedHosts: [opts.host],
        corsOrigins: [],
        ...(opts.publicUrl !== undefined ? { publicUrl: opts.publicUrl } : {}),
      }).fetch,
    );
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      if ((req.url ?? "").split("?")[0] === WEBHOOKS_PATH) {
        void Promise.resolve(webhooks(req, res)).catch((err: unknown) => {
          logger.error("webhook failed", { error: String(err) });
          if (!res.headersSent) res.writeHead(500).end();
        });
        return;
      }
      void api(req, res);
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(opts.port, opts.host, () => resolve());
    });
    const port = (server.address() as AddressInfo).port;
    const host = opts.host.includes(":") ? `[${opts.host}]` : opts.host;
    services.listeningAt(`http://${host}:${port}`);
    logger.info("listening", {
      url: `http://${host}:${port}/api/v1`,
      webhooks: WEBHOOKS_PATH,
      github: apiUrl,
    });
    // Nothing missed while it was down: a pass now that redeliveries can reach it, then every 5 minutes.
    const reconciler = new Reconciler(appAuth(probot), deps);
    reconciler.start();
    const url = `http://${host}:${port}`;
    const startLine = `spec-review app listening on ${url} (API /api/v1, webhooks ${WEBHOOKS_PATH})`;
    const invite = await firstAdminInvite(services);
    if (opts.logFormat === "json")
      logger.startup(
        startLine,
        {
          url,
          webhooks: WEBHOOKS_PATH,
          ...(invite && "url" in invite ? { admin_invite: invite.url } : {}),
          ...(invite && "openSince" in invite
            ? { admin_invite_open_since: invite.openSince.toISOString() }
            : {}),
        },
        [invite && "token" in invite ? invite.token : undefined],
      );
    else if (invite) (opts.print ?? ((l: string) => process.stderr.write(l + "\n")))(firstAdminLine(invite));
    return {
      url,
      port,
      startLine,
      close: async () => {
        await new Promise<void>((resolve) => server.close(() => resolve()));
        stopReplies();
        await reconciler.stop();
        // Reviews still running complete their checks as cancelled before the database closes.
        await pullReviews.stop();
        await services.close();
      },
    };
  } catch (err) {
    await services.close();
    throw err;
  }
}
