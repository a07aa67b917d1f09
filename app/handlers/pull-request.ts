/**
 * `pull_request` opened, synchronize, reopened: lint the bundles the change touches with
 * the Action's code (node/pr/: the same selection, lint, report, check run and sticky
 * comment), on a partial checkout of the head read from git. With models for the review
 * roles and a budget that holds the estimate, the check is posted in progress and a full
 * review of each touched bundle runs in the background (app/pr-review.ts), completing it.
 * A failure anywhere posts the check as failed with the reason.
 */
import { join } from "node:path";
import { and, eq } from "drizzle-orm";
import {
  commentMarker,
  completeCheckRun,
  postCheckRun,
  type PostedCheckRun,
  startCheckRun,
  upsertComment,
  type ChecksClient,
} from "../../node/pr/checks.js";
import type { BundleResult } from "../../node/pr/lint.js";
import { lintTouched } from "../../node/pr/lint.js";
import { appPullChecks } from "../../server/db/schema.js";
import {
  annotationsOf,
  checkSummary,
  commentBody,
  conclusionOf,
  headline,
  type ReportContext,
} from "../../node/pr/report.js";
import { partialCheckout, type TreeFile } from "../pr-checkout.js";
import { planFullReview, readBundles, runFullReview, type FullReviewPlan } from "../pr-review.js";
import { configNote, pullProfiles, withBaseConfig } from "../pr-profiles.js";
import type { AppDeps } from "../deps.js";
import type { GitHubApi } from "../../server/repohost/github.js";
import { commitFiles, pullFiles } from "../pr-files.js";

/** The slice of Probot's Octokit this handler calls (the rest goes through node/pr/checks.ts). */
export interface PullOctokit extends ChecksClient {
  request(route: string, params?: Record<string, unknown>): Promise<{ data: unknown }>;
}

export interface PullEvent {
  owner: string;
  repo: string;
  number: number;
  headSha: string;
  /** The App's installation on the repo (a review left in flight is settled through it). */
  installationId: number;
  /**
   * The base branch's commit (else its name): its `.spec-review/` configures the check
   * (app/pr-profiles.ts). Neither: the head's own, as before.
   */
  baseSha?: string;
  baseRef?: string;
  /** The pull request's files when the caller read them already. */
  changed?: readonly string[];
  /** The lint alone, whatever the models and budget (`@spec-review lint`). */
  lintOnly?: boolean;
}

/** What a check of a pull request came to (a command's reply says it). */
export interface PullChecked {
  checkRunId?: number;
  docs: number;
  headline: string;
  plan: FullReviewPlan["kind"];
  /** The plan's line (why the full review did not run, or that it runs). */
  note?: string;
}

/**
 * A review a process that died left in flight, checked again on the same head: its check
 * (still in progress on GitHub) is reused rather than a second one posted.
 */
export interface Resume {
  checkRunId: number;
  /** Its pr_reviews row, claimed by this instance (none: a check re-run in place). */
  rowId?: string;
}

/** The files the pull request changes: every page (Link), and past GitHub's cap the compare or the trees (app/pr-files.ts). */
export function changedFiles(
  gh: PullOctokit,
  ev: PullEvent,
  repoClient?: () => Promise<GitHubApi>,
): Promise<string[]> {
  return pullFiles(gh, ev, repoClient);
}

/** A commit's files: its tree, or its archive when GitHub truncates the tree (app/pr-files.ts). */
export function treeOf(
  gh: PullOctokit,
  ev: PullEvent,
  sha: string,
  repoClient?: () => Promise<GitHubApi>,
): Promise<TreeFile[]> {
  return commitFiles(gh, ev, sha, repoClient);
}

export async function readBlob(gh: PullOctokit, ev: PullEvent, sha: string): Promise<Uint8Array> {
  const { data } = await gh.request("GET /repos/{owner}/{repo}/git/blobs/{file_sha}", {
    owner: ev.owner,
    repo: ev.repo,
    file_sha: sha,
  });
  const blob = data as { content: string; encoding: string };
  return new Uint8Array(Buffer.from(blob.content, blob.encoding === "base64" ? "base64" : "utf8"));
}

/** GitHub's page of a check run (what the sticky comment links to when the check is reused). */
function checkRunPage(deps: AppDeps, ev: PullEvent, id: number): string {
  return `${deps.serverUrl}/${ev.owner}/${ev.repo}/runs/${id}`;
}

/** Write down the check posted on a pull request's head (a head is checked once: app/reconcile.ts). */
async function recordCheck(deps: AppDeps, ev: PullEvent, checkRunId: number): Promise<void> {
  await deps.db
    .insert(appPullChecks)
    .values({
      owner: ev.owner,
      repo: ev.repo,
      pullNumber: ev.number,
      headSha: ev.headSha,
      checkRunId,
      createdAt: deps.clock.now(),
    })
    .onConflictDoUpdate({
      target: [appPullChecks.owner, appPullChecks.repo, appPullChecks.pullNumber, appPullChecks.headSha],
      set: { checkRunId },
    });
}

/** The check the App posted on this head of the pull request, if any. */
export async function checkOfHead(
  deps: Pick<AppDeps, "db">,
  ev: Pick<PullEvent, "owner" | "repo" | "number" | "headSha">,
): Promise<number | undefined> {
  const [row] = await deps.db
    .select({ id: appPullChecks.checkRunId })
    .from(appPullChecks)
    .where(
      and(
        eq(appPullChecks.owner, ev.owner),
        eq(appPullChecks.repo, ev.repo),
        eq(appPullChecks.pullNumber, ev.number),
        eq(appPullChecks.headSha, ev.headSha),
      ),
    );
  return row?.id;
}

export async function checkPullRequest(
  gh: PullOctokit,
  ev: PullEvent,
  deps: AppDeps,
  resume?: Resume,
): Promise<PullChecked | undefined> {
  const ref = { owner: ev.owner, repo: ev.repo };
  const checkName = deps.checkName;
  // A review still running for an older head of this pull request stops (its check says so).
  deps.pullReviews.supersede(ref, ev.number, ev.headSha);
  let checkout: { root: string; remove: () => void } | undefined;
  // The check this commit has so far (a failure completes it rather than leaving it in progress).
  let run: PostedCheckRun | undefined = resume
    ? { id: resume.checkRunId, url: checkRunPage(deps, ev, resume.checkRunId) }
    : undefined;
  // The review's row while it is written down but not yet running (a failure removes it).
  let held: string | undefined = resume?.rowId;
  try {
    // Past GitHub's caps the archive is read through the installation's repo client (app/pr-files.ts).
    const repoClient = () => deps.repohost.clientForRepo(ev.owner, ev.repo, ev.installationId);
    const changed = ev.changed ? [...ev.changed] : await changedFiles(gh, ev, repoClient);
    const base = ev.baseSha ?? ev.baseRef;
    // The configuration and profiles are the base branch's: the pull request's own wait for the merge.
    const tree = withBaseConfig(
      await treeOf(gh, ev, ev.headSha, repoClient),
      base !== undefined ? await treeOf(gh, ev, base, repoClient) : undefined,
    );
    checkout = await partialCheckout(tree, changed, (sha) => readBlob(gh, ev, sha));
    const { profiles, label } = pullProfiles(checkout.root, deps.builtinProfilesDir, deps.profiles?.list());
    const results = lintTouched(checkout.root, { changed, profiles });
    const report: ReportContext = {
      scope: `the bundles pull request #${ev.number} touches`,
      profiles: label,
      notes: [],
      base: { serverUrl: deps.serverUrl, owner: ev.owner, repo: ev.repo, sha: ev.headSha },
    };
    const bundles = readBundles(checkout.root, results);
    const plan: FullReviewPlan = ev.lintOnly
      ? { kind: "none" }
      : await planFullReview(deps, bundles, profiles);
    // The full review reads the pull request's files with the same profiles.
    const fullReport: ReportContext = {
      ...report,
      action: "Reviewed in full (the lint and the models)",
    };
    const config = base !== undefined ? configNote(changed, ev.baseRef) : undefined;
    const summary = (rs: readonly BundleResult[], notes: readonly string[], full = false) =>
      [checkSummary(rs, full ? fullReport : report), ...notes, ...(config ? [config] : [])].join("\n\n");
    const notes = plan.kind === "none" ? [] : [plan.note];
    if (plan.kind === "run") {
      const started = {
        title: `${headline(results)} (lint; the full review is running)`,
        summary: summary(results, notes),
      };
      // A leftover's check is still in progress on GitHub: it says the review runs again.
      if (run)
        await gh.rest.checks.update({
          ...ref,
          check_run_id: run.id,
          status: "in_progress",
          output: started,
        } as never);
      else {
        run = await startCheckRun(gh, ref, { name: checkName, headSha: ev.headSha, ...started });
        await recordCheck(deps, ev, run.id);
      }
      held = await deps.pullReviews.hold(
        {
          ref,
          number: ev.number,
          headSha: ev.headSha,
          checkRunId: run.id,
          installationId: ev.installationId,
        },
        resume?.rowId,
      );
    } else {
      const lint = {
        conclusion: conclusionOf(results, "not_build_ready"),
        title: headline(results),
        summary: summary(results, notes),
        annotations: annotationsOf(results),
      };
      if (run) await completeCheckRun(gh, ref, run.id, lint);
      else {
        run = await postCheckRun(gh, ref, { name: checkName, headSha: ev.headSha, ...lint });
        await recordCheck(deps, ev, run.id);
      }
    }
    const checkRun = run;
    const marker = commentMarker(checkName);
    const comment = (rs: readonly BundleResult[], full = false) =>
      upsertComment(
        gh,
        ref,
        ev.number,
        marker,
        commentBody(rs, full ? fullReport : report, { marker, checkName, checkRunUrl: checkRun.url }),
        rs.length > 0,
      );
    await comment(results);
    deps.logger.info("pull request checked", {
      repo: `${ev.owner}/${ev.repo}`,
      pull: ev.number,
      docs: results.length,
      full_review: plan.kind,
    });
    if (plan.kind === "run" && held !== undefined) {
      const target = {
        ref,
        number: ev.number,
        headSha: ev.headSha,
        checkRunId: checkRun.id,
        installationId: ev.installationId,
      };
      deps.pullReviews.start(target, held, (signal) =>
        runFullReview(
          gh,
          deps,
          target,
          bundles,
          {
            lint: results,
            others: results.filter((r) => r.problem !== undefined),
            summary,
            comment: async (rs) => void (await comment(rs, true)),
          },
          signal,
          profiles,
        ),
      );
      held = undefined;
    } else if (held !== undefined) {
      // A leftover re-checked whose full review no longer runs (no model, over budget): done.
      await deps.pullReviews.release(held);
      held = undefined;
    }
    return {
      checkRunId: checkRun.id,
      docs: results.length,
      headline: headline(results),
      plan: plan.kind,
      ...(plan.kind !== "none" ? { note: plan.note } : {}),
    };
  } catch (err) {
    try {
      await failedCheck(gh, ref, ev.headSha, checkName, err, deps, run?.id);
    } catch (failed) {
      // GitHub refused the failed check too: the row's lease lapses and a sweep settles it.
      if (held !== undefined) deps.pullReviews.letGo(held);
      throw failed;
    }
    if (held !== undefined) await deps.pullReviews.release(held);
    return undefined;
  } finally {
    checkout?.remove();
  }
}

/** Post the check as failed, with the reason; nothing is swallowed (the error is logged too). */
export async function failedCheck(
  gh: ChecksClient,
  ref: { owner: string; repo: string },
  headSha: string,
  name: string,
  err: unknown,
  deps: Pick<AppDeps, "logger">,
  /** The check already posted for this commit (in progress): completed, not posted again. */
  checkRunId?: number,
): Promise<void> {
  const status = (err as { status?: unknown } | undefined)?.status;
  const message = err instanceof Error ? err.message : String(err);
  // Octokit's messages ("Not Found") do not say what answered: the status does.
  const reason =
    typeof status === "number" && !message.includes(String(status))
      ? `GitHub answered ${status} ${message}`
      : message;
  deps.logger.error("spec-review App failed", {
    repo: `${ref.owner}/${ref.repo}`,
    sha: headSha,
    error: reason,
  });
  const failed = {
    conclusion: "failure" as const,
    title: "spec-review could not check this commit",
    summary: `spec-review failed: ${reason}`,
    annotations: [],
  };
  if (checkRunId !== undefined) await completeCheckRun(gh, ref, checkRunId, failed);
  else await postCheckRun(gh, ref, { name, headSha, ...failed });
}

/** Where the built-in profiles are (beside package.json). */
export function builtinProfiles(root: string): string {
  return join(root, "profiles");
}
