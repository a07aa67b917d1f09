/** Thread and message rows as the contract shows them (2.10). */
import type { z } from "@hono/zod-openapi";
import type { MessageSchema, ThreadSchema } from "../schemas/threads.js";
import type { threadMessages, threads } from "../db/schema.js";

export type ThreadRow = typeof threads.$inferSelect;
export type MessageRow = typeof threadMessages.$inferSelect;
export type ThreadApi = z.infer<typeof ThreadSchema>;
export type MessageApi = z.infer<typeof MessageSchema>;
export type AnchorKind = ThreadApi["anchor_kind"];

export function messageView(m: MessageRow): MessageApi {
  return {
    id: m.id,
    seq: m.seq,
    author_kind: m.authorKind as MessageApi["author_kind"],
    ...(m.authorId !== null ? { author_id: m.authorId } : {}),
    author_name: m.authorName,
    body: m.body,
    sources: m.sources,
    decision: m.decision as MessageApi["decision"],
    created_at: m.createdAt.toISOString(),
  };
}

/**
 * An answer still "being written" this long after the last message was lost with the
 * instance writing it (a crash, a stop on another instance): the thread says so rather
 * than show the AI writing forever. Model calls time out well before this.
 */
export const ANSWER_LOST_AFTER_MS = 15 * 60 * 1000;
export const ANSWER_LOST = "The AI's answer was interrupted (the service stopped); post again.";

export function threadView(t: ThreadRow, messages: readonly MessageRow[], now?: Date): ThreadApi {
  const lost =
    t.answering && now !== undefined && now.getTime() - t.lastMessageAt.getTime() > ANSWER_LOST_AFTER_MS;
  const aiError = lost ? ANSWER_LOST : t.aiError;
  return {
    id: t.id,
    ...(t.docId !== null ? { doc_id: t.docId } : {}),
    ...(t.profileKey !== null ? { profile_key: t.profileKey } : {}),
    anchor_kind: t.anchorKind as AnchorKind,
    anchor: t.anchor as ThreadApi["anchor"],
    addressed_to: t.addressedTo as ThreadApi["addressed_to"],
    title: t.title,
    ...(t.handoffId !== null ? { handoff_id: t.handoffId } : {}),
    handoff_version: t.handoffVersion,
    blocking: t.blocking,
    status: t.status as ThreadApi["status"],
    created_by: t.createdBy,
    created_at: t.createdAt.toISOString(),
    last_message_at: t.lastMessageAt.toISOString(),
    message_count: t.messageCount,
    messages: messages.map(messageView),
    answering: t.answering && !lost,
    ...(aiError !== null ? { ai_error: aiError } : {}),
  };
}

/** Open threads first, then the most recently active. */
export function openFirst(a: ThreadRow, b: ThreadRow): number {
  if (a.status !== b.status) return a.status === "open" ? -1 : 1;
  return b.lastMessageAt.getTime() - a.lastMessageAt.getTime() || a.id.localeCompare(b.id);
}
