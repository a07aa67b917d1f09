/**
 * Review comments on GitHub become threads (docs/app.md): a comment on a line of a spec
 * doc opens a thread anchored to that line's text in the doc's current version (or on the
 * doc as a whole when that text is not there yet, as in a pull request that adds it), and
 * a reply becomes a message of the thread its first comment opened. Each comment is
 * carried once (github_comment_threads); a comment starting with `@spec-review` opens a
 * thread for the AI. The other way, `githubReplies`: a message posted in such a thread in
 * the service (a person's or the AI's answer) becomes a reply under the thread's first
 * comment on GitHub, and the webhook of that reply is not carried back.
 */
import { eq } from "drizzle-orm";
import { anchorAt } from "../core/anchor/anchor.js";
import { decodeText } from "../core/lint/engine.js";
import { parseMarkdown } from "../core/markdown/document.js";
import { githubCommentThreads } from "../server/db/schema.js";
import { inArchivedBundle } from "../server/auth/authorize.js";
import type { Deps } from "../server/deps.js";
import type { Author } from "../server/threads/service.js";
import { personAuthor } from "../server/wiring.js";
import type { RepohostSources } from "../server/repohost/sources.js";
import type { CommentAuthor, ThreadSink } from "./threads-port.js";

/**
 * A GitHub commenter: the matching account; else, placed by `github_association_role`, a
 * person known by login only; else recorded by login as a guest (never a member by accident).
 */
async function authorOf(d: Deps, a: CommentAuthor): Promise<Author> {
  if (a.accountId) return personAuthor(d, a.accountId);
  return { id: `github:${a.login}`, name: `@${a.login} on GitHub`, kind: a.role ? "user" : "guest" };
}

/** Who may address the AI from GitHub: a member or an admin (a viewer or a guest asks people). */
function mayAskAi(a: CommentAuthor): boolean {
  return a.role === "member" || a.role === "admin";
}

async function threadOf(d: Deps, commentId: number): Promise<string | undefined> {
  const [row] = await d.db
    .select({ threadId: githubCommentThreads.threadId })
    .from(githubCommentThreads)
    .where(eq(githubCommentThreads.commentId, commentId));
  return row?.threadId;
}

interface Place {
  repo: string;
  pullNumber: number;
  rootCommentId: number;
}

async function remember(
  d: Pick<Deps, "db" | "clock">,
  commentId: number,
  threadId: string,
  at: Place,
): Promise<void> {
  await d.db
    .insert(githubCommentThreads)
    .values({ commentId, threadId, ...at, createdAt: d.clock.now() })
    .onConflictDoNothing();
}

/** Where a thread's first comment is on GitHub, when a comment opened it. */
async function placeOf(d: Pick<Deps, "db">, threadId: string): Promise<Place | undefined> {
  const [row] = await d.db
    .select({
      repo: githubCommentThreads.repo,
      pullNumber: githubCommentThreads.pullNumber,
      rootCommentId: githubCommentThreads.rootCommentId,
    })
    .from(githubCommentThreads)
    .where(eq(githubCommentThreads.threadId, threadId))
    .limit(1);
  return row && row.repo !== "" ? row : undefined;
}

/** Marks a comment the service wrote itself (invisible on GitHub): never carried back in. */
export const FROM_SERVICE = "<!-- spec-review: posted from a thread -->";

export function serviceThreadSink(d: Deps): ThreadSink {
  return {
    async openFromComment(input) {
      if (input.body.includes(FROM_SERVICE)) return undefined;
      const known = await threadOf(d, input.commentId);
      if (known) return { threadId: known };
      // An archived bundle takes no thread (as the API refuses one with `bundle_archived`).
      if (await inArchivedBundle(d.db, "doc", input.docId)) return undefined;
      const rec = await d.store.doc(input.docId);
      let anchor: { anchor_kind: "text" | "section"; anchor: unknown } = {
        anchor_kind: "section",
        anchor: { heading_path: [] },
      };
      const file = await d.store.fileBytes(rec.head.id, input.file).catch(() => undefined);
      const quote = input.quote.trim();
      if (file && quote) {
        const text = decodeText(file.bytes).text;
        const at = text.indexOf(quote);
        if (at >= 0)
          anchor = {
            anchor_kind: "text",
            anchor: anchorAt(parseMarkdown(text), input.file, at, at + quote.length),
          };
      }
      const body =
        anchor.anchor_kind === "text"
          ? input.body
          : `${input.body}\n\n> ${input.file}, line ${input.line} of pull request #${input.pullNumber}: ${quote}`;
      const author = await authorOf(d, input.author);
      // Someone who is not a member asks the people, not the AI (rule 9, as for guests; a viewer too).
      const thread = await d.threads.open(author, input.docId, {
        ...anchor,
        addressed_to: input.toAi && author.kind !== "guest" && mayAskAi(input.author) ? "ai" : "humans",
        title:
          body
            .split("\n")[0]!
            .replace(/^@spec-review\b\s*/i, "")
            .slice(0, 200) || "Review comment",
        body,
      });
      await remember(d, input.commentId, thread.id, {
        repo: rec.bundle.origin?.repo ?? "",
        pullNumber: input.pullNumber,
        rootCommentId: input.commentId,
      });
      return { threadId: thread.id };
    },
    async addReply(input) {
      if (input.body.includes(FROM_SERVICE)) return;
      if (await threadOf(d, input.commentId)) return; // carried already
      const threadId = await threadOf(d, input.inReplyTo);
      if (!threadId) return; // a reply to a comment that opened no thread (not on a spec doc)
      if (await inArchivedBundle(d.db, "thread", threadId)) return; // its bundle takes no message
      const at = await placeOf(d, threadId);
      await d.threads.post(await authorOf(d, input.author), threadId, input.body, "github");
      await remember(
        d,
        input.commentId,
        threadId,
        at ?? { repo: "", pullNumber: 0, rootCommentId: input.inReplyTo },
      );
    },
  };
}

/**
 * Messages posted in the service into threads a GitHub comment opened go back to GitHub as
 * replies under that comment (through the App's installation or the workspace token). A
 * failure is logged; the message stays in the service. Answers a function that stops it.
 */
export function githubReplies(
  d: Pick<Deps, "db" | "clock" | "logger" | "threads">,
  sources: Pick<RepohostSources, "clientForRepo">,
): () => void {
  return d.threads.onPosted((m) => {
    if (m.origin === "github") return;
    void (async () => {
      const at = await placeOf(d, m.threadId);
      if (!at) return;
      const [owner, name] = at.repo.split("/") as [string, string];
      const api = await sources.clientForRepo(owner, name);
      const res = await api.request<{ id: number }>(
        "POST",
        `/repos/${at.repo}/pulls/${at.pullNumber}/comments/${at.rootCommentId}/replies`,
        { body: `**${m.author.name}** (in spec-review):\n\n${m.body}\n\n${FROM_SERVICE}` },
      );
      // Its webhook comes back: the comment is known, so it is not carried in again.
      await remember(d, res.data.id, m.threadId, at);
    })().catch((err: unknown) =>
      d.logger.warn("a thread message was not replied on GitHub", {
        thread: m.threadId,
        error: err instanceof Error ? err.message : String(err),
      }),
    );
  });
}
