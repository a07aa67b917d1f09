/**
 * Review status and approval (contract 3), people, the inbox and insights.
 * The records are "not shown" (2.17); decisions in docs/api-decisions.md, "status".
 */
import { z } from "@hono/zod-openapi";
import { Uuid, VerdictSchema } from "./common.js";
import { int64 } from "./params.js";

export const DocStatus = z.enum(["draft", "in_review", "approved", "superseded"]);

export const PersonSchema = z
  .looseObject({ id: z.string(), name: z.string(), role: z.string() })
  .openapi("Person");

export const ApprovalSchema = z
  .looseObject({
    by: z.string(),
    version_id: Uuid,
    version_number: int64(),
    approved_at: z.iso.datetime(),
  })
  .openapi("Approval");

export const ReviewStatusSchema = z
  .looseObject({
    doc_id: Uuid,
    status: DocStatus,
    author: z.string().openapi({ description: "who cannot approve the doc" }),
    reviewers: z.array(PersonSchema),
    approvals: z.array(ApprovalSchema),
    verdict: VerdictSchema.optional().openapi({
      description: "the verdict an approval needs to be Build Ready",
    }),
    can_approve: z
      .boolean()
      .openapi({ description: "the caller is not the author and a current Build Ready verdict exists" }),
  })
  .openapi("ReviewStatus");

export const ReviewRequestBodySchema = z
  .object({
    reviewers: z.array(z.string()).min(1).openapi({ description: "ids of workspace members (GET /people)" }),
    message: z.string().optional(),
  })
  .openapi("ReviewRequest");

export const ApproveBodySchema = z
  .object({
    base_version: Uuid.optional().openapi({
      description:
        "the version the approver read; when it is not current the request fails with `version_conflict`",
    }),
    comment: z.string().optional(),
  })
  .openapi("ApproveRequest");

export const PeopleSchema = z.object({ items: z.array(PersonSchema) }).openapi("People", {
  description: "empty in local mode",
});

export const InboxItemSchema = z
  .looseObject({
    id: Uuid,
    kind: z.string().openapi({ example: "review_request" }),
    sentence: z.string().openapi({ description: "what happened, in words" }),
    url: z.string().openapi({ description: "where the item opens (a thread, a waiver's run, a doc)" }),
    doc_id: Uuid.optional(),
    read: z.boolean(),
    created_at: z.iso.datetime(),
  })
  .openapi("InboxItem");

export const InboxSchema = z
  .object({
    items: z.array(InboxItemSchema),
    unseen: z.int().openapi({ description: "items newer than the last POST /inbox/seen" }),
    next_cursor: z.string().optional(),
  })
  .openapi("Inbox");

export const InboxReadBodySchema = z.object({ id: Uuid }).openapi("InboxReadRequest");

export const InsightSchema = z
  .looseObject({
    profile_key: z.string(),
    bundles: z.int(),
    build_ready: z.int(),
    median_score: z.number().optional(),
    top_checks: z
      .array(z.looseObject({ check_slug: z.string(), findings: z.int() }))
      .openapi({ description: "the checks that find the most" }),
  })
  .openapi("Insight");

export const InsightsSchema = z.object({ items: z.array(InsightSchema) }).openapi("Insights");
