/**
 * Review comments on GitHub become threads (docs/app.md): a comment on a line of a spec
 * doc opens a thread anchored to that line's text in the doc's current version (or on the
 * doc as a whole when that text is not there yet, as in a pull request that adds it), and
 * a reply becomes a message of the thread its first comment opened. Each comment is
 * carried once (github_comment_threads); a comment starting with `@spec-review` opens a
 * thread for the AI, which answers it in the service.
 */
import { eq } from "drizzle-orm";
import { anchorAt } from "../core/anchor/anchor.js";
import { decodeText } from "../core/lint/engine.js";
import { parseMarkdown } from "../core/markdown/document.js";
import { githubCommentThreads } from "../server/db/schema.js";
import type { Deps } from "../server/deps.js";
import type { Author } from "../server/threads/service.js";
import { personAuthor } from "../server/wiring.js";
import type { CommentAuthor, ThreadSink } from "./threads-port.js";

/** A GitHub commenter: the matching account, else recorded by login (never a member by accident). */
async function authorOf(d: Deps, a: CommentAuthor): Promise<Author> {
  if (a.accountId) return personAuthor(d, a.accountId);
  return { id: `github:${a.login}`, name: `@${a.login} on GitHub`, kind: "guest" };
}

async function threadOf(d: Deps, commentId: number): Promise<string | undefined> {
  const [row] = await d.db
    .select({ threadId: githubCommentThreads.threadId })
    .from(githubCommentThreads)
    .where(eq(githubCommentThreads.commentId, commentId));
  return row?.threadId;
}

async function remember(d: Deps, commentId: number, threadId: string): Promise<void> {
  await d.db
    .insert(githubCommentThreads)
    .values({ commentId, threadId, createdAt: d.clock.now() })
    .onConflictDoNothing();
}

export function serviceThreadSink(d: Deps): ThreadSink {
  return {
    async openFromComment(input) {
      const known = await threadOf(d, input.commentId);
      if (known) return { threadId: known };
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
      // Someone who is not a member asks the people, not the AI (rule 9, as for guests).
      const thread = await d.threads.open(author, input.docId, {
        ...anchor,
        addressed_to: input.toAi && author.kind !== "guest" ? "ai" : "humans",
        title:
          body
            .split("\n")[0]!
            .replace(/^@spec-review\b\s*/i, "")
            .slice(0, 200) || "Review comment",
        body,
      });
      await remember(d, input.commentId, thread.id);
      return { threadId: thread.id };
    },
    async addReply(input) {
      if (await threadOf(d, input.commentId)) return; // carried already
      const threadId = await threadOf(d, input.inReplyTo);
      if (!threadId) return; // a reply to a comment that opened no thread (not on a spec doc)
      await d.threads.post(await authorOf(d, input.author), threadId, input.body);
      await remember(d, input.commentId, threadId);
    },
  };
}
