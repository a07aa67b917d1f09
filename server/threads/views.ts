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

export function threadView(t: ThreadRow, messages: readonly MessageRow[]): ThreadApi {
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
    answering: t.answering,
    ...(t.aiError !== null ? { ai_error: t.aiError } : {}),
  };
}

/** Open threads first, then the most recently active. */
export function openFirst(a: ThreadRow, b: ThreadRow): number {
  if (a.status !== b.status) return a.status === "open" ? -1 : 1;
  return b.lastMessageAt.getTime() - a.lastMessageAt.getTime() || a.id.localeCompare(b.id);
}
