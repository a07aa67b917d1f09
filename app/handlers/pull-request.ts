/**
 * `pull_request` opened, synchronize, reopened: lint the bundles the change touches with
 * the Action's code (node/pr/: the same selection, lint, report, check run and sticky
 * comment), on a partial checkout of the head read from git. With models for the review
 * roles and a budget that holds the estimate, the check is posted in progress and a full
 * review of each touched bundle runs in the background (app/pr-review.ts), completing it.
 * A failure anywhere posts the check as failed with the reason.
 */
import { join } from "node:path";
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
import { lintTouched, loadLayers, profileLayers } from "../../node/pr/lint.js";
import {
  annotationsOf,
  checkSummary,
  commentBody,
  conclusionOf,
  headline,
  type ReportContext,
} from "../../node/pr/report.js";
import { partialCheckout, type TreeFile } from "../pr-checkout.js";
import { planFullReview, readBundles, runFullReview } from "../pr-review.js";
import type { AppDeps } from "../deps.js";

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
}

/**
 * A review a process that died left in flight, checked again on the same head: its check
 * (still in progress on GitHub) is reused rather than a second one posted.
 */
export interface Resume {
  checkRunId: number;
  /** Its pr_reviews row, claimed by this instance. */
  rowId: string;
}

async function changedFiles(gh: PullOctokit, ev: PullEvent): Promise<string[]> {
  const out = new Set<string>();
  for (let page = 1; ; page++) {
    const { data } = await gh.request("GET /repos/{owner}/{repo}/pulls/{pull_number}/files", {
      owner: ev.owner,
      repo: ev.repo,
      pull_number: ev.number,
      per_page: 100,
      page,
    });
    const files = data as Array<{ filename: string; previous_filename?: string }>;
    for (const f of files) {
      out.add(f.filename);
      if (f.previous_filename) out.add(f.previous_filename);
    }
    if (files.length < 100) return [...out];
  }
}

async function headTree(gh: PullOctokit, ev: PullEvent): Promise<TreeFile[]> {
  const { data } = await gh.request("GET /repos/{owner}/{repo}/git/trees/{tree_sha}", {
    owner: ev.owner,
    repo: ev.repo,
    tree_sha: ev.headSha,
    recursive: "1",
  });
  const tree = (data as { tree: Array<{ path: string; type: string; sha: string }> }).tree;
  return tree.filter((e) => e.type === "blob").map((e) => ({ path: e.path, sha: e.sha }));
}

async function readBlob(gh: PullOctokit, ev: PullEvent, sha: string): Promise<Uint8Array> {
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

export async function checkPullRequest(
  gh: PullOctokit,
  ev: PullEvent,
  deps: AppDeps,
  resume?: Resume,
): Promise<void> {
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
    const changed = await changedFiles(gh, ev);
    const tree = await headTree(gh, ev);
    checkout = await partialCheckout(tree, changed, (sha) => readBlob(gh, ev, sha));
    const layers = profileLayers(checkout.root, undefined, deps.builtinProfilesDir);
    const { profiles } = loadLayers(layers, checkout.root);
    const results = lintTouched(checkout.root, { changed, profiles });
    const report: ReportContext = {
      scope: `the bundles pull request #${ev.number} touches`,
      profiles: layers.length > 1 ? "the built-in and `.spec-review/profiles`" : "the built-in",
      notes: [],
      base: { serverUrl: deps.serverUrl, owner: ev.owner, repo: ev.repo, sha: ev.headSha },
    };
    const bundles = readBundles(checkout.root, results);
    const plan = await planFullReview(deps, bundles);
    // The full review reads the pull request's files with the service's profiles.
    const fullReport: ReportContext = {
      ...report,
      action: "Reviewed in full (the lint and the models)",
      profiles: "the service's",
    };
    const summary = (rs: readonly BundleResult[], notes: readonly string[], full = false) =>
      [checkSummary(rs, full ? fullReport : report), ...notes].join("\n\n");
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
      else run = await startCheckRun(gh, ref, { name: checkName, headSha: ev.headSha, ...started });
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
      else run = await postCheckRun(gh, ref, { name: checkName, headSha: ev.headSha, ...lint });
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
        ),
      );
      held = undefined;
    } else if (held !== undefined) {
      // A leftover re-checked whose full review no longer runs (no model, over budget): done.
      await deps.pullReviews.release(held);
      held = undefined;
    }
  } catch (err) {
    try {
      await failedCheck(gh, ref, ev.headSha, checkName, err, deps, run?.id);
    } catch (failed) {
      // GitHub refused the failed check too: the row's lease lapses and a sweep settles it.
      if (held !== undefined) deps.pullReviews.letGo(held);
      throw failed;
    }
    if (held !== undefined) await deps.pullReviews.release(held);
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
