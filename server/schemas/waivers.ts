/**
 * Waivers, acknowledgements and verification waivers (contract 3 and 4.2).
 * Field names beyond `status` and `trace.status` are decided in
 * docs/api-decisions.md, "waivers".
 */
import { z } from "@hono/zod-openapi";
import { Uuid } from "./common.js";

export const WaiverStatus = z.enum(["requested", "approved", "rejected", "withdrawn"]);

export const WaiverSchema = z
  .looseObject({
    id: Uuid,
    doc_id: Uuid,
    finding_id: Uuid.optional().openapi({ description: "the finding a waiver excuses" }),
    status: WaiverStatus,
    reason: z.string(),
    policy: z.string().openapi({ description: "the profile's waiver policy that applies" }),
    approvals_needed: z.int(),
    approvals: z.array(z.looseObject({ by: z.string(), at: z.iso.datetime() })),
    can_decide: z.boolean().openapi({ description: "the caller can approve or reject it now" }),
    rejection_reason: z.string().optional(),
    section: z.object({ start: z.int(), end: z.int() }).optional().openapi({
      description:
        "byte range of the waiver's section in the current main doc; absent when the section is gone",
    }),
    trace: z
      .looseObject({
        trace_id: z.string(),
        upstream: z.string().optional().openapi({ description: "slug of the upstream bundle" }),
        status: z.string().openapi({ example: "out_of_scope" }),
      })
      .optional()
      .openapi({ description: "an acknowledgement of one upstream trace ID" }),
    verification: z
      .looseObject({
        trace_id: z.string(),
        repo: z.string().openapi({ description: "repo or folder as the run names it" }),
        run_id: z.string().openapi({ description: "empty when no run" }),
      })
      .optional()
      .openapi({ description: "what a verification waiver excuses; never written to the sidecar" }),
    standalone: z.boolean().optional().openapi({ description: "an acknowledgement of the whole doc" }),
    withdrawn_by: z.string().optional(),
    created_by: z.string(),
    created_at: z.iso.datetime(),
  })
  .openapi("Waiver");

export const WaiverListSchema = z.object({ items: z.array(WaiverSchema) }).openapi("WaiverList");

const reason = z.string().min(20).openapi({ description: "at least 20 characters" });

export const NewWaiverBodySchema = z
  .object({
    finding_id: Uuid.optional().openapi({ description: "a finding of the doc's latest review to waive" }),
    trace_id: z.string().min(1).optional().openapi({
      description: "an upstream trace ID this doc acknowledges as out of scope",
    }),
    upstream: z.string().min(1).optional().openapi({
      description: "with `trace_id`: slug of the upstream bundle, when more than one defines the ID",
    }),
    standalone: z
      .boolean()
      .optional()
      .openapi({ description: "`true`: acknowledge the whole doc as standalone" }),
    // Checked by the service (code `reason_too_short`), so a short reason has its own code (rule 6).
    reason: z.string().openapi({ description: "at least 20 characters", minLength: 20 }),
  })
  .openapi("NewWaiver", { description: "exactly one of `finding_id`, `trace_id` or `standalone: true`" });

export const WithdrawAcknowledgementBodySchema = z
  .object({
    waiver_id: Uuid.openapi({ description: "the approved acknowledgement (trace entry or standalone)" }),
  })
  .openapi("WithdrawAcknowledgement");

export const ApproveWaiverBodySchema = z.object({ comment: z.string().optional() }).openapi("ApproveWaiver");

export const RejectWaiverBodySchema = z
  .object({ reason: z.string().min(1).openapi({ description: "the decision reason the requester reads" }) })
  .openapi("RejectWaiver");

export const VerificationWaiverBodySchema = z
  .object({
    trace_id: z.string().min(1),
    repo: z.string().min(1).openapi({ description: "the code repo or folder this excuse applies to" }),
    reason,
    run_id: Uuid.optional().openapi({
      description: "the verification run the request comes from, in the same repo",
    }),
  })
  .openapi("NewVerificationWaiver");
