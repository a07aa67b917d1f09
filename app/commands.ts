/**
 * Talking to the App on a pull request (docs/app.md): a comment on its conversation
 * (`issue_comment`) or a review comment that starts with `@<app-slug>` is addressed to it.
 * The first word is the command:
 *
 *   review            the full review now (when a model and the budget allow, else why not)
 *   lint              the lint again (a new Build Ready check)
 *   help              the commands
 *   ask <question>    (or any other first word) the reviewer's answer about the bundles the
 *                     pull request touches, read at its head, quoting the question, with sources
 *
 * Each comment is answered once (`app_comment_answers`), and an `eyes` reaction says it
 * was seen; a redelivery or an edit does not answer again. The App's own comments, and any
 * bot's, are ignored. Who may ask is the member rule (app/people.ts: a member or an admin);
 * anyone else gets a one-line refusal. A question in a review comment is left to the
 * thread it opens (app/handlers/review-comment.ts): the AI answers there, and the answer is
 * a reply in that thread on GitHub.
 */
import { and, eq } from "drizzle-orm";
import { appCommentAnswers } from "../server/db/schema.js";
import { ApiError } from "../server/errors.js";
import type { AppDeps } from "./deps.js";
import { checkPullRequest, type PullOctokit } from "./handlers/pull-request.js";
import { commentAuthor } from "./people.js";
import { pullBundlesAtHead } from "./pr-ask.js";
import { FROM_SERVICE } from "./threads-sink.js";

export const DEFAULT_SLUG = "spec-review";
export const COMMANDS = ["review", "lint", "help", "ask"] as const;
export type Command = (typeof COMMANDS)[number];

export interface AddressedComment {
  /** `issue`: on the pull request's conversation; `review`: a review comment. */
  kind: "issue" | "review";
  owner: string;
  repo: string;
  pullNumber: number;
  installationId: number;
  comment: {
    id: number;
    body: string;
    /** A review comment's thread: the comment it replies to. */
    in_reply_to_id?: number;
    user: { login: string; type?: string; email?: string | null };
    author_association?: string;
  };
}

/** The command a comment gives the App, or undefined when it is not addressed to it. */
export function parseCommand(body: string, slug: string): { command: Command; text: string } | undefined {
  const esc = slug.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const m = new RegExp(`^@${esc}(?:\\[bot\\])?(?![\\w-])[\\s,:]*([\\s\\S]*)$`, "i").exec(body.trimStart());
  if (!m) return undefined;
  const rest = m[1]!.trim();
  const word = /^(\S+)/.exec(rest)?.[1]?.toLowerCase() ?? "";
  if (word === "review" || word === "lint" || word === "help") return { command: word, text: rest };
  if (word === "ask") return { command: "ask", text: rest.slice(3).trim() };
  return { command: rest === "" ? "help" : "ask", text: rest };
}

export function helpText(slug: string): string {
  return [
    `Commands for @${slug} on a pull request (a member of the workspace may use them):`,
    "",
    `- \`@${slug} review\`: run the full review now (when a model and this month's budget allow)`,
    `- \`@${slug} lint\`: run the lint again (a new Build Ready check)`,
    `- \`@${slug} ask <question>\` (or just the question): ask the AI about the spec bundles this pull request touches, as they are at its head`,
    `- \`@${slug} help\`: this list`,
  ].join("\n");
}

function quoted(text: string): string {
  return text
    .split("\n")
    .map((l) => `> ${l}`)
    .join("\n");
}

const short = (sha: string) => sha.slice(0, 7);

/** Claim the comment: false when it was answered (or is being answered) already. */
async function claim(deps: AppDeps, c: AddressedComment, command: Command): Promise<boolean> {
  const rows = await deps.db
    .insert(appCommentAnswers)
    .values({ kind: c.kind, commentId: c.comment.id, command, answeredAt: deps.clock.now() })
    .onConflictDoNothing()
    .returning({ id: appCommentAnswers.commentId });
  return rows.length > 0;
}

async function unclaim(deps: AppDeps, c: AddressedComment): Promise<void> {
  await deps.db
    .delete(appCommentAnswers)
    .where(and(eq(appCommentAnswers.kind, c.kind), eq(appCommentAnswers.commentId, c.comment.id)));
}

/** The `eyes` reaction: seen. A refusal is logged, never fatal (the answer still comes). */
async function react(gh: PullOctokit, c: AddressedComment, deps: AppDeps): Promise<void> {
  const route =
    c.kind === "issue"
      ? "POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions"
      : "POST /repos/{owner}/{repo}/pulls/comments/{comment_id}/reactions";
  try {
    await gh.request(route, { owner: c.owner, repo: c.repo, comment_id: c.comment.id, content: "eyes" });
  } catch (err) {
    deps.logger.warn("the eyes reaction was refused", {
      comment: c.comment.id,
      error: err instanceof Error ? err.message : String(err),
    });
  }
}

async function reply(gh: PullOctokit, c: AddressedComment, body: string): Promise<void> {
  if (c.kind === "issue")
    await gh.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", {
      owner: c.owner,
      repo: c.repo,
      issue_number: c.pullNumber,
      body,
    });
  else
    await gh.request("POST /repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies", {
      owner: c.owner,
      repo: c.repo,
      pull_number: c.pullNumber,
      comment_id: c.comment.in_reply_to_id ?? c.comment.id,
      // Not carried into the thread as a person's message (app/threads-sink.ts).
      body: `${body}\n\n${FROM_SERVICE}`,
    });
}

export type CommandOutcome = "not_addressed" | "own" | "duplicate" | "refused" | "thread" | Command;

/**
 * Answer a comment addressed to the App. `not_addressed`: not for the App (a review
 * comment then goes to the threads as before); `thread`: a question in a review comment,
 * left to the thread it opens.
 */
export async function onAddressedComment(
  gh: PullOctokit,
  c: AddressedComment,
  deps: AppDeps,
  slug: string,
): Promise<CommandOutcome> {
  const parsed = parseCommand(c.comment.body, slug);
  if (!parsed) return "not_addressed";
  const login = c.comment.user.login;
  if (c.comment.user.type === "Bot" || login.toLowerCase() === `${slug}[bot]`.toLowerCase()) return "own";
  if (c.comment.body.includes(FROM_SERVICE)) return "own";
  if (!(await claim(deps, c, parsed.command))) return "duplicate";
  const log = { repo: `${c.owner}/${c.repo}`, pull: c.pullNumber, comment: c.comment.id, login };
  try {
    await react(gh, c, deps);
    const author = await commentAuthor(deps.db, login, c.comment.user.email, c.comment.author_association);
    if (author.role !== "member" && author.role !== "admin") {
      deps.logger.info("a comment to the App from someone who is not a member", log);
      await reply(
        gh,
        c,
        `@${login}: only a member of the spec-review workspace may give @${slug} commands on a pull request.`,
      );
      return "refused";
    }
    if (parsed.command === "ask" && c.kind === "review") return "thread";
    deps.logger.info("a comment to the App", { ...log, command: parsed.command });
    await reply(gh, c, await answer(gh, c, deps, slug, parsed));
    return parsed.command;
  } catch (err) {
    // Not answered: a redelivery tries again.
    await unclaim(deps, c);
    throw err;
  }
}

async function answer(
  gh: PullOctokit,
  c: AddressedComment,
  deps: AppDeps,
  slug: string,
  parsed: { command: Command; text: string },
): Promise<string> {
  if (parsed.command === "help") return helpText(slug);
  const { data } = await gh.request("GET /repos/{owner}/{repo}/pulls/{pull_number}", {
    owner: c.owner,
    repo: c.repo,
    pull_number: c.pullNumber,
  });
  const pr = data as { state?: string; head: { sha: string }; base?: { sha?: string; ref?: string } };
  if (pr.state === "closed") return `Pull request #${c.pullNumber} is closed: @${slug} does nothing on it.`;
  const ev = {
    owner: c.owner,
    repo: c.repo,
    number: c.pullNumber,
    headSha: pr.head.sha,
    installationId: c.installationId,
    ...(pr.base?.sha ? { baseSha: pr.base.sha } : {}),
    ...(pr.base?.ref ? { baseRef: pr.base.ref } : {}),
  };
  if (parsed.command === "lint" || parsed.command === "review") {
    const done = await checkPullRequest(gh, { ...ev, lintOnly: parsed.command === "lint" }, deps);
    if (!done) return `@${slug} could not check ${short(pr.head.sha)}: the Build Ready check says why.`;
    if (done.docs === 0)
      return `Pull request #${c.pullNumber} touches no spec bundle: nothing to ${parsed.command}.`;
    if (parsed.command === "lint") return `The lint ran again on ${short(pr.head.sha)}: ${done.headline}.`;
    if (done.plan === "run")
      return `The full review of ${short(pr.head.sha)} is running; the Build Ready check shows its verdict when it ends.`;
    return done.note ?? `The full review did not run on ${short(pr.head.sha)}.`;
  }
  const question = parsed.text;
  if (question === "") return `Ask a question after \`@${slug} ask\`.`;
  const bundles = await pullBundlesAtHead(gh, ev, deps);
  const head = quoted(`@${slug} ${question}`);
  if (bundles.length === 0)
    return `${head}\n\nPull request #${c.pullNumber} touches no spec bundle: there is nothing to ask about.`;
  try {
    const a = await deps.review.ask(bundles, question);
    const sources =
      a.sources.length === 0
        ? "No source: the answer quotes nothing of the specs."
        : `Sources (at ${short(pr.head.sha)}):\n${a.sources.map((s) => `- \`${s.file}\`: "${s.quote}"`).join("\n")}`;
    return `${head}\n\n${a.answer}\n\n${sources}`;
  } catch (err) {
    if (
      err instanceof ApiError &&
      ["model_not_configured", "budget_exceeded", "model_failed"].includes(err.code)
    )
      return `${head}\n\nThe AI cannot answer: ${err.message}.`;
    throw err;
  }
}
