/**
 * The port to threads (built by another area, issue 15): a review comment on a line of a
 * spec doc opens a thread anchored to that line's text, a reply becomes a message. Until
 * threads are wired in, the default sink records nothing and says so in the log; the App
 * never pretends a thread was made.
 */
import type { Logger } from "../server/deps.js";

/** Who wrote a comment on GitHub, as the App resolved it (docs/app.md, "People"). */
export interface CommentAuthor {
  /** The account that linked that GitHub login (or has that verified email), when one exists. */
  accountId?: string;
  /** The GitHub login, shown as such when no account matches (never a member by accident). */
  login: string;
  /**
   * The workspace role the commenter acts with: the account's, or, with no account, the one
   * `github_association_role` gives an OWNER, MEMBER or COLLABORATOR. None: a guest.
   */
  role?: "admin" | "member" | "viewer";
}

export interface ReviewCommentInput {
  /** The doc the commented file is the spec doc (or an asset) of. */
  docId: string;
  /** Path of the file in the bundle, and the commented line's text (the anchor's quote). */
  file: string;
  line: number;
  quote: string;
  body: string;
  author: CommentAuthor;
  /** GitHub's ids, so a reply and a message are each carried once. */
  commentId: number;
  pullNumber: number;
  /** True when the comment starts with `@spec-review`: addressed to the AI. */
  toAi: boolean;
}

export interface ThreadSink {
  openFromComment(input: ReviewCommentInput): Promise<{ threadId: string } | undefined>;
  addReply(input: {
    inReplyTo: number;
    commentId: number;
    body: string;
    author: CommentAuthor;
  }): Promise<void>;
}

/** The default until threads exist on this branch: nothing is made, and the log says why. */
export function loggingThreadSink(logger: Logger): ThreadSink {
  return {
    openFromComment(input) {
      logger.info("review comment not turned into a thread: threads are not wired in", {
        doc: input.docId,
        file: input.file,
        line: input.line,
        comment: input.commentId,
      });
      return Promise.resolve(undefined);
    },
    addReply(input) {
      logger.info("review reply not added to a thread: threads are not wired in", {
        comment: input.commentId,
      });
      return Promise.resolve();
    },
  };
}
