/**
 * The GitHub App: one small handler per event, each behind the delivery check (a
 * redelivered webhook does nothing twice). Sources read through the App's installation on
 * a repo when it has one (`sources.app`), else through the workspace token.
 *
 *   installation               logged (sources find their installation when they read)
 *   push                       the sources on that branch sync at once
 *   pull_request opened, synchronize, reopened
 *                              lint the touched bundles, Build Ready check + sticky comment;
 *                              with models and budget, a full review completes the check
 *   pull_request_review_comment a thread (or a message) through the threads port
 *   issue_comment              logged (conversation comments have no line to anchor to)
 */
import type { Probot } from "probot";
import { GitHubApi } from "../server/repohost/github.js";
import type { InstallationAccess } from "../server/repohost/sources.js";
import type { AppDeps } from "./deps.js";
import { onceper } from "./deliveries.js";
import { onPush } from "./handlers/push.js";
import { checkPullRequest } from "./handlers/pull-request.js";
import { onReviewComment } from "./handlers/review-comment.js";

function ownerRepo(fullName: string): { owner: string; repo: string } {
  const [owner = "", repo = ""] = fullName.split("/");
  return { owner, repo };
}

function httpStatus(err: unknown): number | undefined {
  const s = (err as { status?: unknown } | undefined)?.status;
  return typeof s === "number" ? s : undefined;
}

/** Installations through Probot's own auth (its JWT and its cache of installation tokens). */
export function installationAccess(app: Probot, apiUrl: string): InstallationAccess {
  const clients = new Map<number, GitHubApi>();
  return {
    async installationOf(owner, repo) {
      const gh = await app.auth();
      try {
        const { data } = await gh.request("GET /repos/{owner}/{repo}/installation", { owner, repo });
        return data.id;
      } catch (err) {
        if (httpStatus(err) === 404) return undefined;
        throw err;
      }
    },
    client(installationId) {
      let api = clients.get(installationId);
      if (!api) {
        // Calls go through the installation's Octokit, whose auth hook adds (and renews) the token.
        api = new GitHubApi({
          baseUrl: apiUrl,
          token: () => Promise.resolve(""),
          fetch: octokitFetch(() => app.auth(installationId)),
        });
        clients.set(installationId, api);
      }
      return Promise.resolve(api);
    },
  };
}

type OctokitRequest = (options: Record<string, unknown>) => Promise<{
  status: number;
  data: unknown;
  headers: Record<string, string | number | undefined>;
}>;

function plainHeaders(h: Record<string, string | number | undefined> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h ?? {})) if (v !== undefined) out[k] = String(v);
  return out;
}

/**
 * A fetch over an Octokit's request (its base URL, auth hook, retries): what GitHubApi
 * calls for an installation. Error answers (304 included) come back as responses.
 */
export function octokitFetch(octokit: () => Promise<{ request: unknown }>): typeof fetch {
  return async (input, init) => {
    const gh = await octokit();
    const request = gh.request as OctokitRequest;
    const headers = { ...(init?.headers as Record<string, string> | undefined) };
    delete headers["authorization"];
    const body = typeof init?.body === "string" ? (JSON.parse(init.body) as unknown) : undefined;
    try {
      const res = await request({
        method: init?.method ?? "GET",
        url: typeof input === "string" ? input : input instanceof URL ? input.href : input.url,
        headers,
        ...(body !== undefined ? { data: body } : {}),
      });
      return new Response(JSON.stringify(res.data), {
        status: res.status,
        headers: plainHeaders(res.headers),
      });
    } catch (err) {
      const e = err as {
        status?: number;
        response?: { data?: unknown; headers?: Record<string, string | number | undefined> };
      };
      if (typeof e.status !== "number") throw err;
      const nullBody = e.status === 304;
      return new Response(nullBody ? null : JSON.stringify(e.response?.data ?? {}), {
        status: e.status,
        headers: plainHeaders(e.response?.headers),
      });
    }
  };
}

export function appMain(app: Probot, deps: AppDeps): void {
  deps.repohost.app = installationAccess(app, deps.apiUrl);
  const once = (ctx: { id: string; name: string }, run: () => Promise<void>) =>
    onceper(deps.db, { id: ctx.id, name: ctx.name, now: deps.clock.now() }, run).then((r) => {
      if (r === "duplicate")
        deps.logger.info("webhook redelivery skipped", { delivery: ctx.id, event: ctx.name });
    });

  app.on("installation", (ctx) =>
    once(ctx, () => {
      deps.logger.info("installation", {
        action: ctx.payload.action,
        account:
          ctx.payload.installation.account && "login" in ctx.payload.installation.account
            ? ctx.payload.installation.account.login
            : undefined,
        installation: ctx.payload.installation.id,
      });
      return Promise.resolve();
    }),
  );

  app.on("push", (ctx) =>
    once(ctx, async () => {
      const p = ctx.payload;
      await onPush(
        ctx.octokit,
        { ...ownerRepo(p.repository.full_name), ref: p.ref, after: p.after, deleted: p.deleted },
        deps,
      );
    }),
  );

  app.on(["pull_request.opened", "pull_request.synchronize", "pull_request.reopened"], (ctx) =>
    once(ctx, async () => {
      const pr = ctx.payload.pull_request;
      await checkPullRequest(
        ctx.octokit,
        {
          ...ownerRepo(ctx.payload.repository.full_name),
          number: pr.number,
          headSha: pr.head.sha,
          htmlUrl: pr.html_url,
        },
        deps,
      );
    }),
  );

  app.on("pull_request_review_comment.created", (ctx) =>
    once(ctx, async () => {
      const c = ctx.payload.comment;
      await onReviewComment(
        {
          ...ownerRepo(ctx.payload.repository.full_name),
          pullNumber: ctx.payload.pull_request.number,
          comment: {
            id: c.id,
            body: c.body,
            path: c.path,
            line: c.line ?? null,
            diff_hunk: c.diff_hunk,
            ...(c.in_reply_to_id !== undefined ? { in_reply_to_id: c.in_reply_to_id } : {}),
            user: { login: c.user?.login ?? "ghost", email: c.user?.email ?? null },
          },
        },
        deps,
      );
    }),
  );

  app.on("issue_comment", (ctx) =>
    once(ctx, () => {
      deps.logger.info(
        "issue comment not handled: conversation comments have no line to anchor a thread to",
        {
          repo: ctx.payload.repository.full_name,
          issue: ctx.payload.issue.number,
        },
      );
      return Promise.resolve();
    }),
  );
}
