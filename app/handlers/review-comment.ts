/**
 * `pull_request_review_comment` created: a comment on a line of a spec doc of a repohost
 * bundle opens a thread anchored to that line's text (through the threads port); a reply
 * on GitHub adds a message. A comment that starts with `@spec-review` is addressed to the AI.
 */
import { and, eq, isNull } from "drizzle-orm";
import { bundles, docs, repohostBundles, repohostSources } from "../../server/db/schema.js";
import type { AppDeps } from "../deps.js";
import { commentAuthor } from "../people.js";
import { parseCommand } from "../commands.js";

export interface ReviewCommentEvent {
  owner: string;
  repo: string;
  pullNumber: number;
  comment: {
    id: number;
    body: string;
    path: string;
    line: number | null;
    diff_hunk: string;
    in_reply_to_id?: number;
    user: { login: string; email?: string | null };
    /** GitHub's `author_association` (OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, NONE, …). */
    author_association?: string;
  };
}

/** The commented line's text: the last line of the diff hunk, without its +/-/space mark. */
export function commentedLine(hunk: string): string {
  const lines = hunk.split(/\r?\n/);
  const last = lines[lines.length - 1] ?? "";
  return /^[+\- ]/.test(last) ? last.slice(1) : last;
}

/** The doc of a repohost bundle of this repo whose folder holds `path`, with the path inside it. */
export async function docOfPath(deps: AppDeps, owner: string, repo: string, path: string) {
  const rows = await deps.db
    .select({ docId: docs.id, folder: repohostBundles.folder })
    .from(repohostBundles)
    .innerJoin(repohostSources, eq(repohostSources.id, repohostBundles.sourceId))
    .innerJoin(bundles, eq(bundles.id, repohostBundles.bundleId))
    .innerJoin(docs, eq(docs.bundleId, bundles.id))
    .where(
      and(
        eq(repohostSources.owner, owner),
        eq(repohostSources.repo, repo),
        isNull(repohostSources.deletedAt),
        isNull(bundles.goneAt),
        isNull(bundles.archivedAt),
      ),
    );
  const hit = rows
    .filter((r) => r.folder === "." || path.startsWith(r.folder + "/"))
    .sort((a, b) => b.folder.length - a.folder.length)[0];
  if (!hit) return undefined;
  return { docId: hit.docId, file: hit.folder === "." ? path : path.slice(hit.folder.length + 1) };
}

export async function onReviewComment(
  ev: ReviewCommentEvent,
  deps: AppDeps,
  /** The App's slug: a comment starting with `@<slug>` is addressed to the AI. */
  slug = "spec-review",
): Promise<"thread" | "reply" | "ignored"> {
  const c = ev.comment;
  const author = await commentAuthor(deps.db, c.user.login, c.user.email, c.author_association);
  if (c.in_reply_to_id !== undefined) {
    await deps.threads.addReply({ inReplyTo: c.in_reply_to_id, commentId: c.id, body: c.body, author });
    return "reply";
  }
  const target = await docOfPath(deps, ev.owner, ev.repo, c.path);
  if (!target || c.line === null) return "ignored";
  await deps.threads.openFromComment({
    docId: target.docId,
    file: target.file,
    line: c.line,
    quote: commentedLine(c.diff_hunk),
    body: c.body,
    author,
    commentId: c.id,
    pullNumber: ev.pullNumber,
    toAi: parseCommand(c.body, slug) !== undefined,
  });
  return "thread";
}
