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
 *   check_run rerequested      ("Re-run" on the Build Ready check) the same, on a new check
 *   check_suite rerequested    ("Re-run all checks") the same
 *   pull_request_review_comment `@<app-slug> <command>` answered (app/commands.ts); else a
 *                              thread (or a message) through the threads port
 *   pull_request_review submitted, approved
 *                              by a linked login: the sidecar waivers that name it are approved
 *   issue_comment created      on a pull request, `@<app-slug> <command>` answered (app/commands.ts)
 *
 * A delivery is done when its handler finished (app/deliveries.ts); the reconciliation
 * (app/reconcile.ts) asks GitHub again for those that did not, and checks what webhooks
 * could not say after a long outage.
 */
import type { Probot } from "probot";
import { GitHubApi } from "../server/repohost/github.js";
import type { RateLimitObserver } from "../server/repohost/rate-limit.js";
import { installationToken, OWN_WAIT } from "./throttle.js";
import type { InstallationAccess } from "../server/repohost/sources.js";
import type { AppDeps } from "./deps.js";
import { HANDLER_STALE_MS, onceper, type DeliveryRun } from "./deliveries.js";
import { DEFAULT_SLUG, onAddressedComment } from "./commands.js";
import type { AppAuth } from "./reconcile.js";
import { onPush } from "./handlers/push.js";
import { checkOfHead, checkPullRequest, failedCheck, type PullOctokit } from "./handlers/pull-request.js";
import { settleLeftover } from "./pr-leftovers.js";
import { onReviewComment } from "./handlers/review-comment.js";
import { approvalsOfMerge, onPullRequestApproved } from "./handlers/pr-approval.js";

function ownerRepo(fullName: string): { owner: string; repo: string } {
  const [owner = "", repo = ""] = fullName.split("/");
  return { owner, repo };
}

function httpStatus(err: unknown): number | undefined {
  const s = (err as { status?: unknown } | undefined)?.status;
  return typeof s === "number" ? s : undefined;
}

/** Installations through Probot's own auth (its JWT and its cache of installation tokens). */
export function installationAccess(
  app: Probot,
  apiUrl: string,
  observer?: RateLimitObserver,
): InstallationAccess {
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
          // The archive streams past Octokit (which reads a body whole), on the installation's token.
          stream: { token: () => installationToken(app, installationId) },
          who: `installation:${installationId}`,
          ...(observer ? { observer } : {}),
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
        // Rate limits of this client are its own to wait (app/throttle.ts): no wait or retry inside Octokit.
        request: { retries: 0, [OWN_WAIT]: true },
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

/** The App's installation a webhook came through (every App webhook carries it). */
function installationOf(payload: { installation?: { id: number } }): number {
  const id = payload.installation?.id;
  if (id === undefined) throw new Error("the webhook carries no installation");
  return id;
}

/**
 * The open pull requests with `sha` at their head: those the check run names (same
 * repository), else GitHub's list for the commit (a fork's pull request is not named).
 */
interface NamedPull {
  number: number;
  head: { sha: string };
  base?: { sha?: string; ref?: string };
}

async function pullsOf(
  gh: { request(route: string, params?: Record<string, unknown>): Promise<{ data: unknown }> },
  owner: string,
  repo: string,
  sha: string,
  named: readonly NamedPull[],
): Promise<NamedPull[]> {
  const mine = named.filter((p) => p.head.sha === sha);
  if (mine.length > 0) return mine;
  const { data } = await gh.request("GET /repos/{owner}/{repo}/commits/{commit_sha}/pulls", {
    owner,
    repo,
    commit_sha: sha,
  });
  return (data as Array<NamedPull & { state: string }>).filter(
    (p) => p.state === "open" && p.head.sha === sha,
  );
}

/** The base of a pull request as a payload names it: its `.spec-review/` configures the check. */
function baseOf(p: { base?: { sha?: string; ref?: string } }): { baseSha?: string; baseRef?: string } {
  return {
    ...(p.base?.sha ? { baseSha: p.base.sha } : {}),
    ...(p.base?.ref ? { baseRef: p.base.ref } : {}),
  };
}

/**
 * "Re-run" (`check_run`) and "Re-run all checks" (`check_suite`): the lint and the full
 * review again for the commit, on a new check, for each open pull request with it at its head.
 */
async function rerun(
  gh: PullOctokit,
  ev: { owner: string; repo: string; sha: string; named: readonly NamedPull[]; installationId: number },
  deps: AppDeps,
): Promise<void> {
  const { owner, repo } = ev;
  const pulls = await pullsOf(gh, owner, repo, ev.sha, ev.named);
  if (pulls.length === 0) {
    // A commit no open pull request has at its head: nothing to check it against.
    await failedCheck(
      gh,
      { owner, repo },
      ev.sha,
      deps.checkName,
      new Error(`no open pull request has ${ev.sha.slice(0, 7)} at its head`),
      deps,
    );
    return;
  }
  for (const p of pulls)
    await checkPullRequest(
      gh,
      { owner, repo, number: p.number, headSha: ev.sha, installationId: ev.installationId, ...baseOf(p) },
      deps,
    );
}

export function appMain(app: Probot, deps: AppDeps): void {
  deps.repohost.app = installationAccess(app, deps.apiUrl, deps.repohost.observer);
  // A merge that brings hand-written sidecar entries: the pull request's approvals on GitHub count.
  if (deps.waivers)
    deps.waivers.area.onSidecarRequests = async (ev) => {
      await approvalsOfMerge(
        (id) => app.auth(id),
        { docId: ev.docId, bundleId: ev.bundleId, versionId: ev.version.id },
        deps,
      );
    };
  const recorder = {
    worker: deps.deliveries?.worker ?? `app-${deps.pullReviews.id}`,
    exclusive: deps.deliveries?.exclusive ?? false,
    staleMs: deps.deliveries?.staleMs ?? HANDLER_STALE_MS,
    clock: () => deps.clock.now(),
  };
  const once = (ctx: { id: string; name: string }, run: (d: DeliveryRun) => Promise<void>) =>
    onceper(deps.db, { id: ctx.id, name: ctx.name, now: deps.clock.now() }, run, recorder).then(
      (r) => {
        deps.metrics?.webhookDeliveries.inc({
          event: ctx.name,
          outcome: r === "ran" ? "handled" : "ignored",
        });
        if (r === "duplicate")
          deps.logger.info("webhook redelivery skipped", { delivery: ctx.id, event: ctx.name });
      },
      (err: unknown) => {
        deps.metrics?.webhookDeliveries.inc({ event: ctx.name, outcome: "failed" });
        throw err;
      },
    );
  // How people address the App on a pull request: its slug, read from GitHub once.
  let slug: Promise<string> | undefined =
    deps.appSlug !== undefined ? Promise.resolve(deps.appSlug) : undefined;
  const appSlug = () =>
    (slug ??= app
      .auth()
      .then((gh) => gh.request("GET /app"))
      .then((r) => (r.data as { slug?: string } | null)?.slug ?? DEFAULT_SLUG)
      .catch((err: unknown) => {
        slug = undefined; // asked again next time
        deps.logger.warn("the App's slug could not be read: @spec-review it is", { error: String(err) });
        return DEFAULT_SLUG;
      }));

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
    once(ctx, async ({ scope }) => {
      const p = ctx.payload;
      await onPush(
        ctx.octokit,
        { ...ownerRepo(p.repository.full_name), ref: p.ref, after: p.after, deleted: p.deleted },
        deps,
        scope,
      );
    }),
  );

  app.on(["pull_request.opened", "pull_request.synchronize", "pull_request.reopened"], (ctx) =>
    once(ctx, async ({ again }) => {
      const pr = ctx.payload.pull_request;
      const ev = {
        ...ownerRepo(ctx.payload.repository.full_name),
        number: pr.number,
        headSha: pr.head.sha,
        installationId: installationOf(ctx.payload),
        ...baseOf(pr),
      };
      // Run again (killed, failed, redelivered): the check this head has already is reused, never a second.
      const existing = again ? await checkOfHead(deps, ev) : undefined;
      await checkPullRequest(
        ctx.octokit,
        ev,
        deps,
        existing !== undefined ? { checkRunId: existing } : undefined,
      );
    }),
  );

  // "Re-run" on the check in GitHub: the lint and the full review again, on a new check.
  app.on("check_run.rerequested", (ctx) =>
    once(ctx, async () => {
      const run = ctx.payload.check_run;
      const { owner, repo } = ownerRepo(ctx.payload.repository.full_name);
      if (run.name !== deps.checkName) {
        deps.logger.info("check run re-requested is not ours", { repo: `${owner}/${repo}`, check: run.name });
        return;
      }
      const ev = {
        owner,
        repo,
        sha: run.head_sha,
        named: run.pull_requests,
        installationId: installationOf(ctx.payload),
      };
      await rerun(ctx.octokit, ev, deps);
    }),
  );

  // "Re-run all checks" (GitHub sends it to the App whose suite it is): the same as "Re-run".
  app.on("check_suite.rerequested", (ctx) =>
    once(ctx, async () => {
      const suite = ctx.payload.check_suite;
      const { owner, repo } = ownerRepo(ctx.payload.repository.full_name);
      const named = (suite.pull_requests ?? []) as NamedPull[];
      const ev = { owner, repo, sha: suite.head_sha, named, installationId: installationOf(ctx.payload) };
      await rerun(ctx.octokit, ev, deps);
    }),
  );

  // Reviews a process that died left in flight: settled now and on every sweep after.
  deps.pullReviews.recover(async (l) => {
    try {
      const gh = await app.auth(l.target.installationId);
      const outcome = await settleLeftover(gh, l, deps);
      deps.logger.info("pull request review left in flight settled", { id: l.id, outcome });
    } catch (err) {
      // Its lease lapses again and a later sweep retries (attempts count each try).
      deps.pullReviews.letGo(l.id);
      deps.logger.error("settling a pull request review left in flight failed", {
        repo: `${l.target.ref.owner}/${l.target.ref.repo}`,
        pull: l.target.number,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  });

  app.on("pull_request_review_comment.created", (ctx) =>
    once(ctx, async () => {
      const c = ctx.payload.comment;
      const { owner, repo } = ownerRepo(ctx.payload.repository.full_name);
      const slug = await appSlug();
      const outcome = await onAddressedComment(
        ctx.octokit,
        {
          kind: "review",
          owner,
          repo,
          pullNumber: ctx.payload.pull_request.number,
          installationId: installationOf(ctx.payload),
          comment: {
            id: c.id,
            body: c.body,
            ...(c.in_reply_to_id !== undefined ? { in_reply_to_id: c.in_reply_to_id } : {}),
            user: {
              login: c.user?.login ?? "ghost",
              type: c.user?.type ?? "User",
              email: c.user?.email ?? null,
            },
            author_association: c.author_association,
          },
        },
        deps,
        slug,
      );
      // A command is answered in the thread; anything else is a thread (or a message) as before.
      if (outcome === "review" || outcome === "lint" || outcome === "help" || outcome === "own") return;
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
            author_association: c.author_association,
          },
        },
        deps,
        slug,
      );
    }),
  );

  app.on("pull_request_review.submitted", (ctx) =>
    once(ctx, async () => {
      const review = ctx.payload.review;
      await onPullRequestApproved(
        ctx.octokit,
        {
          ...ownerRepo(ctx.payload.repository.full_name),
          pullNumber: ctx.payload.pull_request.number,
          state: review.state,
          reviewer: review.user?.login ?? "ghost",
        },
        deps,
      );
    }),
  );

  // A comment on a pull request's conversation addressed to the App (`@<app-slug> …`).
  app.on("issue_comment.created", (ctx) =>
    once(ctx, async () => {
      const p = ctx.payload;
      if (!p.issue.pull_request) return; // an issue, not a pull request
      const c = p.comment;
      const outcome = await onAddressedComment(
        ctx.octokit,
        {
          kind: "issue",
          ...ownerRepo(p.repository.full_name),
          pullNumber: p.issue.number,
          installationId: installationOf(p),
          comment: {
            id: c.id,
            body: c.body,
            user: {
              login: c.user?.login ?? "ghost",
              type: c.user?.type ?? "User",
              email: c.user?.email ?? null,
            },
            author_association: c.author_association,
          },
        },
        deps,
        await appSlug(),
      );
      if (outcome === "not_addressed")
        deps.logger.debug("issue comment not addressed to the App", {
          repo: p.repository.full_name,
          issue: p.issue.number,
        });
    }),
  );
}

/** The App's JWT (no installation) or an installation's Octokit, as the reconciliation calls them. */
export function appAuth(app: Probot): AppAuth {
  return (installationId) => app.auth(installationId);
}
