/**
 * The inbox's one write path. Every feature that leaves something for a person to do or
 * read (a review request, a mention, a waiver to decide, an AI answer, a rejected waiver,
 * a blocked handoff) calls `addInboxItems`; `GET /inbox` reads the same table.
 */
import { randomUUID } from "node:crypto";
import type { Db } from "../db/index.js";
import { inboxItems } from "../db/schema.js";

export type InboxKind =
  "review_request" | "mention" | "waiver_to_decide" | "ai_answer" | "waiver_rejected" | "handoff_blocked";

export interface NewInboxItem {
  /** The recipient's actor id. */
  userId: string;
  kind: InboxKind;
  summary: string;
  bundleId?: string | null;
  docId?: string | null;
  threadId?: string | null;
  messageId?: string | null;
  waiverId?: string | null;
  runId?: string | null;
  /** Who caused it; an item is never sent to the person who caused it. */
  actorId?: string | null;
}

/** Adds one item per recipient, skipping the person who caused it and duplicates in the call. */
export async function addInboxItems(
  db: Db,
  items: readonly NewInboxItem[],
  now = new Date(),
): Promise<number> {
  const seen = new Set<string>();
  const rows = [];
  for (const it of items) {
    if (it.actorId && it.actorId === it.userId) continue;
    const key = [it.userId, it.kind, it.threadId, it.messageId, it.waiverId, it.docId].join("|");
    if (seen.has(key)) continue;
    seen.add(key);
    rows.push({
      id: randomUUID(),
      userId: it.userId,
      kind: it.kind,
      summary: it.summary,
      bundleId: it.bundleId ?? null,
      docId: it.docId ?? null,
      threadId: it.threadId ?? null,
      messageId: it.messageId ?? null,
      waiverId: it.waiverId ?? null,
      runId: it.runId ?? null,
      actorId: it.actorId ?? null,
      createdAt: now,
      readAt: null,
    });
  }
  if (rows.length) await db.insert(inboxItems).values(rows);
  return rows.length;
}
