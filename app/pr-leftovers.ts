/**
 * Settling a pull request's full review that a process left in flight when it died (kill
 * -9, a deploy): its check is still in progress on GitHub and nobody is running it. The
 * instance that claimed it (PullReviews.claimLeftovers) checks the pull request again:
 * on the same head the lint and the full review run again, completing the same check;
 * when the head moved, the pull request closed, or the review was already interrupted
 * before, the check is completed with the reason. Never left in progress.
 */
import { completeCheckRun } from "../node/pr/checks.js";
import type { AppDeps } from "./deps.js";
import { checkPullRequest, type PullOctokit } from "./handlers/pull-request.js";
import type { LeftoverReview } from "./pr-review.js";

/** Starts of one review before a crash stops it being run again (a review that kills the process). */
export const MAX_ATTEMPTS = 2;

const RESTARTED = "the service restarted before the review finished";

export async function settleLeftover(
  gh: PullOctokit,
  l: LeftoverReview,
  deps: AppDeps,
): Promise<"rerun" | "moved" | "closed" | "given_up" | "dropped"> {
  const { ref, number, headSha, checkRunId } = l.target;
  const log = { repo: `${ref.owner}/${ref.repo}`, pull: number, sha: headSha, attempts: l.attempts };
  const end = async (conclusion: "cancelled" | "failure", title: string, summary: string) => {
    await completeCheckRun(gh, ref, checkRunId, { conclusion, title, summary, annotations: [] });
    await deps.pullReviews.release(l.id);
  };
  if (l.attempts > MAX_ATTEMPTS + 3) {
    // Completing the check was refused on every try (the App uninstalled, the check gone).
    deps.logger.error("pull request review left in flight dropped: its check could not be completed", log);
    await deps.pullReviews.release(l.id);
    return "dropped";
  }
  if (l.attempts > MAX_ATTEMPTS) {
    deps.logger.warn("pull request review interrupted again: not run a third time", log);
    await end(
      "failure",
      "The full review was interrupted",
      `The full review of ${headSha.slice(0, 7)} did not finish: ${RESTARTED}, ` +
        `${l.attempts - 1} times. It is not run again on its own; ` +
        "use Re-run on this check to start it again.",
    );
    return "given_up";
  }
  const { data } = await gh.request("GET /repos/{owner}/{repo}/pulls/{pull_number}", {
    ...ref,
    pull_number: number,
  });
  const pr = data as { state?: string; head: { sha: string } };
  if (pr.state === "closed") {
    deps.logger.info("pull request review left in flight: the pull request is closed", log);
    await end(
      "cancelled",
      "Stopped: the service restarted",
      `The full review of ${headSha.slice(0, 7)} did not finish: ${RESTARTED}, ` +
        "and the pull request has been closed since.",
    );
    return "closed";
  }
  if (pr.head.sha !== headSha) {
    deps.logger.info("pull request review left in flight: the head moved", { ...log, head: pr.head.sha });
    await end(
      "cancelled",
      "Stopped: the service restarted",
      `The full review of ${headSha.slice(0, 7)} did not finish: ${RESTARTED}, ` +
        `and the pull request has moved on to ${pr.head.sha.slice(0, 7)}, which has its own check.`,
    );
    return "moved";
  }
  deps.logger.info("pull request review left in flight: running it again", log);
  await checkPullRequest(gh, { ...ref, number, headSha, installationId: l.target.installationId }, deps, {
    checkRunId,
    rowId: l.id,
  });
  return "rerun";
}
