/**
 * The GitHub REST calls the Action makes, each small and handed a client: the files of
 * a pull request, the `Build Ready` check run with its annotations, the sticky comment.
 */
import type { getOctokit } from "@actions/github";

export type GitHubClient = ReturnType<typeof getOctokit>;

export interface RepoRef {
  owner: string;
  repo: string;
}

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

/** The checks API takes at most this many annotations per request. */
export const ANNOTATION_BATCH = 50;

export type AnnotationLevel = "failure" | "warning" | "notice";

export interface Annotation {
  path: string;
  start_line: number;
  end_line: number;
  start_column?: number;
  end_column?: number;
  annotation_level: AnnotationLevel;
  message: string;
  title?: string;
}

export type Conclusion = "success" | "failure" | "neutral";

export interface CheckRunInput {
  name: string;
  headSha: string;
  conclusion: Conclusion;
  title: string;
  summary: string;
  text?: string;
  annotations: readonly Annotation[];
  detailsUrl?: string;
}

export interface PostedCheckRun {
  id: number;
  url: string;
}

/**
 * Post a completed check run. With more than 50 annotations the run is created in
 * progress with the first 50, each further batch goes in an update, and the last update
 * completes it, so nobody sees a conclusion before every annotation is in.
 */
export async function postCheckRun(
  gh: GitHubClient,
  ref: RepoRef,
  input: CheckRunInput,
): Promise<PostedCheckRun> {
  const batches: Annotation[][] = [];
  for (let i = 0; i < input.annotations.length; i += ANNOTATION_BATCH)
    batches.push(input.annotations.slice(i, i + ANNOTATION_BATCH));
  if (batches.length === 0) batches.push([]);
  const output = (annotations: Annotation[]) => ({
    title: input.title,
    summary: input.summary,
    ...(input.text !== undefined ? { text: input.text } : {}),
    ...(annotations.length > 0 ? { annotations } : {}),
  });
  const done = { status: "completed" as const, conclusion: input.conclusion };
  const created = await gh.rest.checks.create({
    ...ref,
    name: input.name,
    head_sha: input.headSha,
    ...(input.detailsUrl ? { details_url: input.detailsUrl } : {}),
    ...(batches.length === 1 ? done : { status: "in_progress" as const }),
    output: output(batches[0]!),
  });
  const id = created.data.id;
  for (let i = 1; i < batches.length; i++)
    await gh.rest.checks.update({
      ...ref,
      check_run_id: id,
      ...(i === batches.length - 1 ? done : {}),
      output: output(batches[i]!),
    });
  return { id, url: created.data.html_url ?? `${created.data.url}` };
}

/** The hidden line that marks the Action's comment; one per check name. */
export function commentMarker(checkName: string): string {
  return `<!-- spec-review:build-ready ${encodeURIComponent(checkName)} -->`;
}

export interface CommentResult {
  action: "created" | "updated" | "unchanged" | "skipped";
  id?: number;
  url?: string;
}

/**
 * Keep one comment on the pull request: find the one holding `marker` and edit it, or
 * create it (only when `create` is true: nothing to say and nothing said is no comment).
 */
export async function upsertComment(
  gh: GitHubClient,
  ref: RepoRef,
  issueNumber: number,
  marker: string,
  body: string,
  create = true,
): Promise<CommentResult> {
  const comments = await gh.paginate(gh.rest.issues.listComments, {
    ...ref,
    issue_number: issueNumber,
    per_page: 100,
  });
  const existing = comments.find((c) => c.body?.includes(marker));
  if (existing) {
    if (existing.body === body) return { action: "unchanged", id: existing.id, url: existing.html_url };
    const updated = await gh.rest.issues.updateComment({ ...ref, comment_id: existing.id, body });
    return { action: "updated", id: updated.data.id, url: updated.data.html_url };
  }
  if (!create) return { action: "skipped" };
  const created = await gh.rest.issues.createComment({ ...ref, issue_number: issueNumber, body });
  return { action: "created", id: created.data.id, url: created.data.html_url };
}
