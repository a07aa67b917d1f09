/**
 * `push`: every source reading the pushed branch syncs at once (one compare call and one
 * read per changed file; server/repohost/store.ts). A failed sync posts a failed check on
 * the pushed commit with the reason, and is kept on the source (`sync_error`).
 */
import { and, eq, isNull } from "drizzle-orm";
import type { ChecksClient } from "../../node/pr/checks.js";
import { repohostSources } from "../../server/db/schema.js";
import type { AppDeps } from "../deps.js";
import { failedCheck } from "./pull-request.js";

export const SYNC_CHECK = "spec-review sync";

export interface PushEvent {
  owner: string;
  repo: string;
  ref: string;
  after: string;
  deleted: boolean;
}

/** Every live source of a repository, whatever its branch. */
async function sourcesOfRepo(deps: AppDeps, owner: string, repo: string) {
  return deps.db
    .select({ id: repohostSources.id })
    .from(repohostSources)
    .where(
      and(
        eq(repohostSources.owner, owner),
        eq(repohostSources.repo, repo),
        isNull(repohostSources.deletedAt),
      ),
    );
}

export async function onPush(
  gh: ChecksClient,
  ev: PushEvent,
  deps: AppDeps,
  /**
   * `repository`: the reconciliation redelivered this push for every push of the repository
   * missed while the App was down (app/reconcile.ts): every source of it syncs.
   */
  scope: string | null = null,
): Promise<number> {
  const whole = scope === "repository";
  if (!whole && (!ev.ref.startsWith("refs/heads/") || ev.deleted)) return 0;
  const branch = ev.ref.slice("refs/heads/".length);
  const sources = whole
    ? await sourcesOfRepo(deps, ev.owner, ev.repo)
    : await deps.repohost.onBranch(ev.owner, ev.repo, branch);
  for (const s of sources) {
    try {
      await deps.repohost.store.sync(s.id);
    } catch (err) {
      await failedCheck(gh, { owner: ev.owner, repo: ev.repo }, ev.after, SYNC_CHECK, err, deps);
    }
  }
  return sources.length;
}
