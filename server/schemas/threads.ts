/** Threads and messages (contract 2.10). */
import { z } from "@hono/zod-openapi";
import { AnchorSchema, Uuid } from "./common.js";
import { int64 } from "./params.js";

export const AnchorKind = z.enum(["text", "section", "finding", "check"]);

export const SectionAnchorSchema = z.object({ heading_path: z.array(z.string()) }).openapi("SectionAnchor");
export const FindingAnchorSchema = z
  .object({ finding_id: Uuid, check_slug: z.string() })
  .openapi("FindingAnchor");
export const CheckAnchorSchema = z.object({ check_slug: z.string() }).openapi("CheckAnchor");

export const ThreadAnchorSchema = z
  .union([AnchorSchema, SectionAnchorSchema, FindingAnchorSchema, CheckAnchorSchema])
  .openapi("ThreadAnchor", {
    description:
      "for `text` an Anchor; for `section` `{heading_path}`; for `finding` `{finding_id, check_slug}`; for `check` `{check_slug}`",
  });

export const MessageSchema = z
  .object({
    id: Uuid,
    seq: z.int(),
    author_kind: z.enum(["user", "guest", "ai"]),
    author_id: z.string().optional(),
    author_name: z.string(),
    body: z.string(),
    sources: z.array(z.string()),
    decision: z.enum(["", "decision", "reversal"]).openapi({ description: '`""` for none' }),
    created_at: z.iso.datetime(),
  })
  .openapi("Message");

export const ThreadSchema = z
  .object({
    id: Uuid,
    doc_id: Uuid.optional(),
    profile_key: z.string().optional(),
    anchor_kind: AnchorKind,
    anchor: ThreadAnchorSchema,
    addressed_to: z.enum(["humans", "ai"]),
    title: z.string(),
    handoff_id: Uuid.optional().openapi({ description: "handoff a builder opened this thread from" }),
    handoff_version: int64()
      .optional()
      .openapi({ description: "bundle version the builder took; 0 when no handoff opened it" }),
    blocking: z.boolean(),
    status: z.enum(["open", "resolved"]),
    created_by: z.string(),
    created_at: z.iso.datetime(),
    last_message_at: z.iso.datetime(),
    message_count: z.int(),
    messages: z.array(MessageSchema),
    answering: z.boolean().openapi({ description: "the AI is writing an answer" }),
    ai_error: z.string().optional().openapi({
      description:
        "why the AI could not answer the last message (no model for the reviewer role, budget, a failed call); absent once it answers",
    }),
  })
  .openapi("Thread");

export const ThreadListSchema = z.object({ items: z.array(ThreadSchema) }).openapi("ThreadList", {
  description: "open threads first",
});

export const NewThreadBodySchema = z
  .object({
    anchor_kind: AnchorKind,
    anchor: ThreadAnchorSchema,
    addressed_to: z.enum(["humans", "ai"]).openapi({ description: "a guest may address humans only" }),
    title: z.string().min(1).max(200),
    body: z.string().min(1).openapi({ description: "the first message" }),
    blocking: z.boolean().optional(),
    handoff_id: Uuid.optional(),
  })
  .openapi("NewThread");

export const NewMessageBodySchema = z.object({ body: z.string().min(1) }).openapi("NewMessage");

export const DecisionBodySchema = z
  .object({
    message_id: Uuid.openapi({ description: "the message that is the decision; a later one is a reversal" }),
  })
  .openapi("DecisionRequest");

export const BlockingBodySchema = z.object({ blocking: z.boolean() }).openapi("BlockingRequest");

export const ThreadStatusBodySchema = z
  .object({ open: z.boolean().openapi({ description: "false resolves the thread, true reopens it" }) })
  .openapi("ThreadStatusRequest");
