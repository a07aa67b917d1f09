/**
 * Threads (contract 2.10): open, read, post, decide, block, resolve; on a doc or on a
 * profile's check. Writes are checked before anything is written (anchors.ts), and each
 * write is one transaction. Around them: text anchors follow new versions (reanchor.ts),
 * an AI thread gets its answer in the background (ai.ts; `answered()` waits for it),
 * blocking threads reach the verdict (blocking.ts), mentions and AI answers reach the inbox.
 */
import { randomUUID } from "node:crypto";
import { and, asc, eq, inArray, isNotNull, sql } from "drizzle-orm";
import type { Actor } from "../auth/actor.js";
import type { Db } from "../db/index.js";
import { threadMessages, threads } from "../db/schema.js";
import type { Deps } from "../deps.js";
import { ApiError, NotFoundError } from "../errors.js";
import { addInboxItems, type NewInboxItem } from "../inbox/items.js";
import { ThreadAi } from "./ai.js";
import { checkSlugs, checkThreadAnchor } from "./anchors.js";
import { restampVerdicts } from "./blocking.js";
import { mentionHandles, resolveMentions } from "./mentions.js";
import { Reanchorer } from "./reanchor.js";
import {
  ANSWER_LOST,
  openFirst,
  threadView,
  messageView,
  type AnchorKind,
  type MessageApi,
  type MessageRow,
  type ThreadApi,
  type ThreadRow,
} from "./views.js";

/** Who writes a message: a person, a guest, or the AI / the service itself. */
export interface Author {
  id: string;
  name: string;
  kind: "user" | "guest" | "ai";
}

export const AI_AUTHOR: Author = { id: "ai", name: "AI reviewer", kind: "ai" };

/** A message just added to a thread; `origin` names where it came from when not the service (`github`). */
export interface PostedMessage {
  threadId: string;
  messageId: string;
  author: Author;
  body: string;
  origin?: string;
}

export interface NewThread {
  anchor_kind: AnchorKind;
  anchor: unknown;
  addressed_to: "humans" | "ai";
  title: string;
  body: string;
  blocking?: boolean | undefined;
  handoff_id?: string | undefined;
  handoff_version?: number | undefined;
}

export interface NewProfileThread {
  target: "check" | "template" | "limit";
  check_slug?: string | undefined;
  title: string;
  body: string;
}

/** The check slug a profile thread about the template or a limit is anchored to. */
export const PROFILE_TARGET_SLUGS = { template: "@template", limit: "@limit" } as const;

export function authorOf(actor: Actor): Author {
  return { id: actor.id, name: actor.name, kind: actor.kind };
}

const NO_MODEL =
  "No model is configured for the reviewer role, so the AI cannot answer: an admin assigns one with " +
  "PUT /admin/roles/reviewer. The message is kept; post again once a model is set.";

export class ThreadService {
  readonly reanchor: Reanchorer;
  private readonly ai: ThreadAi;
  /** The AI answer queued or running per thread (one at a time per thread, in order). */
  private readonly answers = new Map<string, Promise<void>>();
  private readonly pending = new Set<Promise<void>>();
  /** Answers queued or running per thread: `answering` stays true until the last one is written. */
  private readonly queued = new Map<string, number>();

  /** `reanchor`: the graph's, listening since before the store's first scan; default: a new one. */
  constructor(
    private readonly deps: Deps,
    reanchor?: Reanchorer,
  ) {
    this.reanchor = reanchor ?? new Reanchorer(deps.db, deps.store, deps.logger);
    this.ai = new ThreadAi(deps);
  }

  private get db(): Db {
    return this.deps.db;
  }

  /**
   * Answers left half-written by a stopped service say so. Only in local mode, the one
   * instance: in hosted mode another instance may be writing one now (views.ts then says
   * so of an answer lost for long).
   */
  async start(): Promise<void> {
    if (this.deps.mode !== "local") return;
    await this.db
      .update(threads)
      .set({ answering: false, aiError: ANSWER_LOST })
      .where(eq(threads.answering, true));
  }

  /** Resolves when no re-anchoring and no AI answer is queued or running. */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
    await this.reanchor.idle();
  }

  /** Resolves once the AI answer queued for the thread (if any) is written, or has failed. */
  async answered(threadId: string): Promise<void> {
    await this.answers.get(threadId);
  }

  /** Told after a doc's threads changed in a way next_action `decide` reads (server/waivers/pending.ts). */
  onDocChange: ((docId: string) => void) | undefined;

  private changed(t: { docId: string | null }): void {
    if (t.docId) this.onDocChange?.(t.docId);
  }

  // ------------------------------------------------------------------- reads

  private async thread(threadId: string): Promise<ThreadRow> {
    const [row] = await this.db.select().from(threads).where(eq(threads.id, threadId));
    if (!row) throw new NotFoundError("thread", threadId);
    return row;
  }

  private async messagesOf(ids: readonly string[]): Promise<Map<string, MessageRow[]>> {
    const out = new Map<string, MessageRow[]>(ids.map((id) => [id, []]));
    if (ids.length === 0) return out;
    const rows = await this.db
      .select()
      .from(threadMessages)
      .where(inArray(threadMessages.threadId, [...ids]))
      .orderBy(asc(threadMessages.threadId), asc(threadMessages.seq));
    for (const m of rows) out.get(m.threadId)!.push(m);
    return out;
  }

  private async views(rows: ThreadRow[]): Promise<ThreadApi[]> {
    rows.sort(openFirst);
    const messages = await this.messagesOf(rows.map((r) => r.id));
    const now = this.deps.clock.now();
    return rows.map((r) => threadView(r, messages.get(r.id) ?? [], now));
  }

  async get(threadId: string): Promise<ThreadApi> {
    const row = await this.thread(threadId);
    return threadView(row, (await this.messagesOf([row.id])).get(row.id) ?? [], this.deps.clock.now());
  }

  /** Threads of a doc, open first. */
  async list(docId: string): Promise<ThreadApi[]> {
    await this.deps.store.doc(docId);
    return this.views(await this.db.select().from(threads).where(eq(threads.docId, docId)));
  }

  /** Suggestion threads of a profile, open first. */
  async listProfile(key: string): Promise<ThreadApi[]> {
    if (!this.deps.profiles.get(key)) throw new NotFoundError("profile", key);
    return this.views(await this.db.select().from(threads).where(eq(threads.profileKey, key)));
  }

  // ------------------------------------------------------------------ writes

  /** Open a thread on a doc with its first message. Rule 9: a guest addresses humans only. */
  async open(author: Author, docId: string, body: NewThread): Promise<ThreadApi> {
    if (author.kind === "guest" && body.addressed_to === "ai")
      throw new ApiError("guest_humans_only", "a guest may open threads addressed to humans only");
    const rec = await this.deps.store.doc(docId);
    const checked = await checkThreadAnchor(this.deps, rec, body.anchor_kind, body.anchor);
    const now = this.deps.clock.now();
    const id = randomUUID();
    const ai = body.addressed_to === "ai";
    await this.db.transaction(async (tx) => {
      await tx.insert(threads).values({
        id,
        docId,
        bundleId: rec.bundle.id,
        profileKey: null,
        anchorKind: body.anchor_kind,
        anchor: checked.anchor,
        anchoredVersionId: checked.versionId ?? null,
        anchoredVersionNumber: checked.versionNumber ?? null,
        addressedTo: body.addressed_to,
        title: body.title,
        handoffId: body.handoff_id ?? null,
        handoffVersion: body.handoff_version ?? 0,
        blocking: body.blocking ?? false,
        status: "open",
        createdBy: author.id,
        createdAt: now,
        lastMessageAt: now,
        messageCount: 1,
        answering: ai,
      });
      await tx.insert(threadMessages).values(this.messageRow(id, 1, author, body.body, now));
    });
    await this.notifyMentions(author, { id, bundleId: rec.bundle.id, docId, title: body.title }, body.body);
    if (body.blocking) await restampVerdicts(this.db, this.deps.runs, docId);
    // The head may have moved while the anchor was checked: bring it along.
    if (checked.versionId) {
      this.reanchor.watch(docId);
      this.track(this.reanchor.catchUp(docId));
    }
    if (ai) this.queueAnswer(id);
    return this.get(id);
  }

  /** Open a suggestion thread on a profile's check, its template or a limit. */
  async openProfile(author: Author, key: string, body: NewProfileThread): Promise<ThreadApi> {
    if (!this.deps.profiles.get(key)) throw new NotFoundError("profile", key);
    let slug: string;
    if (body.target === "check") {
      if (!body.check_slug)
        throw new ApiError("unknown_check", "a suggestion about a check names it in check_slug");
      if (!checkSlugs(this.deps, key).includes(body.check_slug))
        throw new ApiError("unknown_check", `profile ${key} has no check ${body.check_slug}`);
      slug = body.check_slug;
    } else slug = PROFILE_TARGET_SLUGS[body.target];
    const now = this.deps.clock.now();
    const id = randomUUID();
    await this.db.transaction(async (tx) => {
      await tx.insert(threads).values({
        id,
        docId: null,
        bundleId: null,
        profileKey: key,
        anchorKind: "check",
        anchor: { check_slug: slug },
        addressedTo: "humans",
        title: body.title,
        status: "open",
        createdBy: author.id,
        createdAt: now,
        lastMessageAt: now,
        messageCount: 1,
      });
      await tx.insert(threadMessages).values(this.messageRow(id, 1, author, body.body, now));
    });
    await this.notifyMentions(author, { id, bundleId: null, docId: null, title: body.title }, body.body);
    return this.get(id);
  }

  private messageRow(
    threadId: string,
    seq: number,
    author: Author,
    body: string,
    now: Date,
    sources: string[] = [],
  ) {
    return {
      id: randomUUID(),
      threadId,
      seq,
      authorKind: author.kind,
      authorId: author.id,
      authorName: author.name,
      body,
      sources,
      decision: "",
      createdAt: now,
    };
  }

  /**
   * Append a message: numbered after the last one in the same statement that checks the
   * thread is open, so two posts never take the same number and a resolved thread takes none.
   */
  private async append(
    threadId: string,
    author: Author,
    body: string,
    opts: { sources?: string[]; requireOpen: boolean; answering?: boolean },
  ): Promise<MessageRow> {
    const now = this.deps.clock.now();
    return this.db.transaction(async (tx) => {
      const [bumped] = await tx
        .update(threads)
        .set({
          messageCount: sql`${threads.messageCount} + 1`,
          lastMessageAt: now,
          ...(opts.answering !== undefined ? { answering: opts.answering } : {}),
          ...(author.kind === "ai" && author.id === AI_AUTHOR.id ? { aiError: null } : {}),
        })
        .where(and(eq(threads.id, threadId), opts.requireOpen ? eq(threads.status, "open") : undefined))
        .returning({ seq: threads.messageCount });
      if (!bumped) {
        await this.thread(threadId);
        throw new ApiError("thread_resolved", `thread ${threadId} is resolved; reopen it to post`);
      }
      const [row] = await tx
        .insert(threadMessages)
        .values(this.messageRow(threadId, bumped.seq, author, body, now, opts.sources))
        .returning();
      return row!;
    });
  }

  private readonly postedListeners: Array<(m: PostedMessage) => void> = [];

  /** Calls `fn` after each message is added (people's and the AI's); answers a function that stops it. */
  onPosted(fn: (m: PostedMessage) => void): () => void {
    this.postedListeners.push(fn);
    return () => {
      const i = this.postedListeners.indexOf(fn);
      if (i >= 0) this.postedListeners.splice(i, 1);
    };
  }

  private posted(m: PostedMessage): void {
    for (const fn of this.postedListeners) {
      try {
        fn(m);
      } catch (err) {
        this.deps.logger.warn("threads: a listener of posted messages failed", { error: String(err) });
      }
    }
  }

  /**
   * Post a message; in a thread for the AI, the AI's answer follows (see `answered`).
   * `origin`: where the message comes from when not through the service (`github`).
   */
  async post(author: Author, threadId: string, body: string, origin?: string): Promise<MessageApi> {
    const t = await this.thread(threadId);
    if (t.status !== "open")
      throw new ApiError("thread_resolved", `thread ${threadId} is resolved; reopen it to post`);
    const ai = t.addressedTo === "ai";
    const row = await this.append(threadId, author, body, {
      requireOpen: true,
      ...(ai ? { answering: true } : {}),
    });
    this.changed(t);
    await this.notifyMentions(
      author,
      { id: t.id, bundleId: t.bundleId, docId: t.docId, title: t.title },
      body,
      row.id,
    );
    if (ai) this.queueAnswer(threadId);
    this.posted({ threadId, messageId: row.id, author, body, ...(origin ? { origin } : {}) });
    return messageView(row);
  }

  /** Mark a message as the thread's decision; a later decision is recorded as a reversal. */
  async decide(threadId: string, messageId: string): Promise<ThreadApi> {
    const t = await this.thread(threadId);
    const [m] = await this.db
      .select({ id: threadMessages.id, threadId: threadMessages.threadId })
      .from(threadMessages)
      .where(eq(threadMessages.id, messageId));
    if (!m || m.threadId !== threadId)
      throw new ApiError(
        "message_not_in_thread",
        `message ${messageId} is not a message of thread ${threadId}`,
      );
    if (t.decisionMessageId === messageId)
      throw new ApiError("already_decided", `message ${messageId} is the thread's decision already`);
    await this.db.transaction(async (tx) => {
      await tx
        .update(threadMessages)
        .set({ decision: t.decisionMessageId ? "reversal" : "decision" })
        .where(eq(threadMessages.id, messageId));
      await tx.update(threads).set({ decisionMessageId: messageId }).where(eq(threads.id, threadId));
    });
    this.changed(t);
    return this.get(threadId);
  }

  async setBlocking(threadId: string, blocking: boolean): Promise<ThreadApi> {
    const t = await this.thread(threadId);
    if (t.blocking !== blocking) {
      await this.db.update(threads).set({ blocking }).where(eq(threads.id, threadId));
      if (t.docId) await restampVerdicts(this.db, this.deps.runs, t.docId);
    }
    return this.get(threadId);
  }

  async setStatus(threadId: string, open: boolean): Promise<ThreadApi> {
    const t = await this.thread(threadId);
    const status = open ? "open" : "resolved";
    if (t.status !== status) {
      await this.db.update(threads).set({ status }).where(eq(threads.id, threadId));
      this.changed(t);
      if (t.docId) {
        if (t.blocking) await restampVerdicts(this.db, this.deps.runs, t.docId);
        // A resolved thread's anchor stood still: find it in the current version.
        if (open && t.anchorKind === "text") {
          this.reanchor.watch(t.docId);
          await this.reanchor.catchUp(t.docId);
        }
      }
    }
    return this.get(threadId);
  }

  // ------------------------------------------------------------ AI answers

  private track(p: Promise<void>): void {
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  private queueAnswer(threadId: string): void {
    this.queued.set(threadId, (this.queued.get(threadId) ?? 0) + 1);
    const before = this.answers.get(threadId) ?? Promise.resolve();
    const run = before
      .then(() => this.answerNow(threadId))
      .finally(() => {
        const left = (this.queued.get(threadId) ?? 1) - 1;
        if (left > 0) this.queued.set(threadId, left);
        else this.queued.delete(threadId);
      })
      .catch((err: unknown) =>
        this.deps.logger.error("AI thread answer failed", { thread: threadId, error: String(err) }),
      );
    this.answers.set(threadId, run);
    this.track(run);
    void run.finally(() => {
      if (this.answers.get(threadId) === run) this.answers.delete(threadId);
    });
  }

  private async answerNow(threadId: string): Promise<void> {
    const t = await this.thread(threadId);
    const messages = (await this.messagesOf([threadId])).get(threadId) ?? [];
    try {
      const reply = await this.ai.answer(t, messages);
      // Another message came meanwhile: its answer is next, so the AI is still writing.
      const more = (this.queued.get(threadId) ?? 1) > 1;
      const row = await this.append(threadId, AI_AUTHOR, reply.body, {
        sources: reply.sources,
        requireOpen: false,
        answering: more,
      });
      this.changed(t);
      this.posted({ threadId, messageId: row.id, author: AI_AUTHOR, body: reply.body });
      await addInboxItems(
        this.db,
        [
          {
            userId: t.createdBy,
            kind: "ai_answer",
            summary: `The AI answered in "${t.title}"`,
            bundleId: t.bundleId,
            docId: t.docId,
            threadId,
            messageId: row.id,
            actorId: AI_AUTHOR.id,
          },
        ],
        this.deps.clock.now(),
      );
    } catch (err) {
      const note =
        err instanceof ApiError
          ? err.code === "model_not_configured"
            ? NO_MODEL
            : `${err.code}: ${err.message}`
          : `internal_error: ${String(err)}`;
      const more = (this.queued.get(threadId) ?? 1) > 1;
      await this.db.update(threads).set({ answering: more, aiError: note }).where(eq(threads.id, threadId));
      if (!(err instanceof ApiError)) throw err;
    }
  }

  // --------------------------------------------------------------- mentions

  private async notifyMentions(
    author: Author,
    t: { id: string; bundleId: string | null; docId: string | null; title: string },
    body: string,
    messageId?: string,
  ): Promise<void> {
    const people = await resolveMentions(this.db, mentionHandles(body));
    if (people.length === 0) return;
    const items: NewInboxItem[] = people.map((userId) => ({
      userId,
      kind: "mention",
      summary: `${author.name} mentioned you in "${t.title}"`,
      bundleId: t.bundleId,
      docId: t.docId,
      threadId: t.id,
      messageId: messageId ?? null,
      actorId: author.id,
    }));
    await addInboxItems(this.db, items, this.deps.clock.now());
  }

  // ------------------------------------------------------------------ ports

  /** Open threads that have a reply and no decision, of the threads `actorId` opened (for next_action). */
  async toDecide(
    actorId: string,
    docId?: string,
  ): Promise<Array<{ id: string; doc_id: string; title: string }>> {
    const rows = await this.db
      .select({ id: threads.id, docId: threads.docId, title: threads.title })
      .from(threads)
      .where(
        and(
          eq(threads.createdBy, actorId),
          eq(threads.status, "open"),
          isNotNull(threads.docId),
          sql`${threads.decisionMessageId} is null`,
          sql`${threads.messageCount} > 1`,
          docId ? eq(threads.docId, docId) : undefined,
        ),
      )
      .orderBy(asc(threads.lastMessageAt));
    return rows.map((r) => ({ id: r.id, doc_id: r.docId!, title: r.title }));
  }
}
