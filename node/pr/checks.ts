/**
 * The Build Ready check run with its annotations, and the one sticky comment: the calls the
 * GitHub Action and the GitHub App both make, on any Octokit client (@actions/github's in
 * the Action, Probot's in the App). The client is typed by the few methods used, so
 * either fits.
 */

export interface RepoRef {
  owner: string;
  repo: string;
}

interface CommentRow {
  id: number;
  body?: string | null;
  html_url: string;
}

/**
 * What postCheckRun and upsertComment call: a structural slice of Octokit. Parameters are
 * `never` so that any Octokit's precisely typed methods fit (method parameters compare
 * both ways); the calls below pass their objects through `args`.
 */
export interface ChecksClient {
  rest: {
    checks: {
      create(params: never): Promise<{ data: { id: number; html_url: string | null; url: string } }>;
      update(params: never): Promise<unknown>;
    };
    issues: {
      listComments: unknown;
      updateComment(params: never): Promise<{ data: { id: number; html_url: string } }>;
      createComment(params: never): Promise<{ data: { id: number; html_url: string } }>;
    };
  };
  paginate: unknown;
}

/** Parameters for a ChecksClient method (see above). */
const args = (params: Record<string, unknown>): never => params as never;

/** Every comment of an issue or pull request, through the client's own paginate. */
async function allComments(gh: ChecksClient, params: Record<string, unknown>): Promise<CommentRow[]> {
  const paginate = gh.paginate as (route: unknown, params: Record<string, unknown>) => Promise<CommentRow[]>;
  return paginate(gh.rest.issues.listComments, params);
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
  gh: ChecksClient,
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
  const created = await gh.rest.checks.create(
    args({
      ...ref,
      name: input.name,
      head_sha: input.headSha,
      ...(input.detailsUrl ? { details_url: input.detailsUrl } : {}),
      ...(batches.length === 1 ? done : { status: "in_progress" as const }),
      output: output(batches[0]!),
    }),
  );
  const id = created.data.id;
  for (let i = 1; i < batches.length; i++)
    await gh.rest.checks.update(
      args({
        ...ref,
        check_run_id: id,
        ...(i === batches.length - 1 ? done : {}),
        output: output(batches[i]!),
      }),
    );
  return { id, url: created.data.html_url ?? `${created.data.url}` };
}

/** Post a check run in progress (the App's full review runs); completeCheckRun ends it. */
export async function startCheckRun(
  gh: ChecksClient,
  ref: RepoRef,
  input: { name: string; headSha: string; title: string; summary: string },
): Promise<PostedCheckRun> {
  const created = await gh.rest.checks.create(
    args({
      ...ref,
      name: input.name,
      head_sha: input.headSha,
      status: "in_progress",
      output: { title: input.title, summary: input.summary },
    }),
  );
  return { id: created.data.id, url: created.data.html_url ?? `${created.data.url}` };
}

/**
 * Complete a check run posted earlier in progress (the App's full review): its output and
 * conclusion, the annotations 50 to an update, the last update completing it.
 */
export async function completeCheckRun(
  gh: ChecksClient,
  ref: RepoRef,
  id: number,
  input: Omit<CheckRunInput, "name" | "headSha" | "conclusion"> & {
    conclusion: Conclusion | "cancelled";
  },
): Promise<void> {
  const batches: Annotation[][] = [];
  for (let i = 0; i < input.annotations.length; i += ANNOTATION_BATCH)
    batches.push(input.annotations.slice(i, i + ANNOTATION_BATCH));
  if (batches.length === 0) batches.push([]);
  for (const [i, annotations] of batches.entries())
    await gh.rest.checks.update(
      args({
        ...ref,
        check_run_id: id,
        ...(i === batches.length - 1 ? { status: "completed", conclusion: input.conclusion } : {}),
        ...(input.detailsUrl ? { details_url: input.detailsUrl } : {}),
        output: {
          title: input.title,
          summary: input.summary,
          ...(input.text !== undefined ? { text: input.text } : {}),
          ...(annotations.length > 0 ? { annotations } : {}),
        },
      }),
    );
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
  gh: ChecksClient,
  ref: RepoRef,
  issueNumber: number,
  marker: string,
  body: string,
  create = true,
): Promise<CommentResult> {
  const comments = await allComments(gh, { ...ref, issue_number: issueNumber, per_page: 100 });
  const existing = comments.find((c) => c.body?.includes(marker));
  if (existing) {
    if (existing.body === body) return { action: "unchanged", id: existing.id, url: existing.html_url };
    const updated = await gh.rest.issues.updateComment(args({ ...ref, comment_id: existing.id, body }));
    return { action: "updated", id: updated.data.id, url: updated.data.html_url };
  }
  if (!create) return { action: "skipped" };
  const created = await gh.rest.issues.createComment(args({ ...ref, issue_number: issueNumber, body }));
  return { action: "created", id: created.data.id, url: created.data.html_url };
}
