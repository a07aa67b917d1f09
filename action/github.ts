/**
 * The GitHub REST calls the Action makes, each small and handed a client: the files of
 * a pull request here; the `Build Ready` check run with its annotations and the sticky
 * comment in node/pr/checks.ts, shared with the GitHub App.
 */
import type { getOctokit } from "@actions/github";

export type GitHubClient = ReturnType<typeof getOctokit>;

export type { RepoRef } from "../node/pr/checks.js";
import type { RepoRef } from "../node/pr/checks.js";

/** Every path a pull request changes, from every page (renames give their old path too). */
export async function listChangedFiles(
  gh: GitHubClient,
  ref: RepoRef,
  pullNumber: number,
): Promise<string[]> {
  const files = await gh.paginate(gh.rest.pulls.listFiles, {
    ...ref,
    pull_number: pullNumber,
    per_page: 100,
  });
  const out = new Set<string>();
  for (const f of files) {
    out.add(f.filename);
    if (f.previous_filename) out.add(f.previous_filename);
  }
  return [...out];
}

export {
  ANNOTATION_BATCH,
  commentMarker,
  postCheckRun,
  upsertComment,
  type Annotation,
  type AnnotationLevel,
  type CheckRunInput,
  type CommentResult,
  type Conclusion,
  type PostedCheckRun,
} from "../node/pr/checks.js";
