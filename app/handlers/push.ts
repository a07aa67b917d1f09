/**
 * `push`: every source reading the pushed branch syncs at once (one compare call and one
 * read per changed file; server/repohost/store.ts). A failed sync posts a failed check on
 * the pushed commit with the reason, and is kept on the source (`sync_error`).
 */
import type { ChecksClient } from "../../node/pr/checks.js";
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

export async function onPush(gh: ChecksClient, ev: PushEvent, deps: AppDeps): Promise<number> {
  if (!ev.ref.startsWith("refs/heads/") || ev.deleted) return 0;
  const branch = ev.ref.slice("refs/heads/".length);
  const sources = await deps.repohost.onBranch(ev.owner, ev.repo, branch);
  for (const s of sources) {
    try {
      await deps.repohost.store.sync(s.id);
    } catch (err) {
      await failedCheck(gh, { owner: ev.owner, repo: ev.repo }, ev.after, SYNC_CHECK, err, deps);
    }
  }
  return sources.length;
}
