/**
 * Review runs and what they produce: findings, claims, build questions (2.16),
 * the estimate (4.2), the report, the tour and ad-hoc reviews. Records the
 * contract does not show (2.17) are decided in docs/api-decisions.md, "runs".
 */
import { z } from "@hono/zod-openapi";
import { AnchorSchema, Uuid, VerdictSchema } from "./common.js";
import { int64 } from "./params.js";

export const RunStatus = z.enum(["queued", "running", "done", "failed"]);
export const FindingLevel = z.enum(["MUST", "SHOULD", "INFO"]);

export const RunSchema = z
  .looseObject({
    id: Uuid,
    doc_id: Uuid,
    kind: z.enum(["lint", "full"]),
    status: RunStatus,
    version_id: Uuid,
    version_number: int64(),
    verdict: VerdictSchema.optional().openapi({ description: "when done" }),
    error: z.string().optional().openapi({ description: "why the run failed" }),
    stage: z.string().optional().openapi({ description: "the stage running now" }),
    created_by: z.string(),
    created_at: z.iso.datetime(),
    started_at: z.iso.datetime().optional(),
    finished_at: z.iso.datetime().optional(),
  })
  .openapi("Run");

export const FindingSchema = z
  .looseObject({
    id: Uuid,
    run_id: Uuid,
    check_slug: z.string().openapi({ description: "the profile check (or AI stage) that found it" }),
    level: FindingLevel,
    category: z.string(),
    message: z.string(),
    anchor: AnchorSchema.optional().openapi({ description: "absent for a finding about the whole doc" }),
    stage: z.string().optional().openapi({ description: "`lint` or the AI stage" }),
    waiver_id: Uuid.optional(),
    relaxed: z.boolean().optional().openapi({ description: "the check runs in adoption mode" }),
    has_fix: z.boolean().optional().openapi({ description: "a suggested patch exists" }),
  })
  .openapi("Finding");

export const ClaimSchema = z
  .looseObject({
    id: Uuid,
    text: z.string(),
    label: z.enum(["supported", "unsupported", "contradicted", "assumption"]).openapi({
      description:
        "supported: a quote found in the bundle backs it; contradicted: a found quote says otherwise; unsupported: nothing found backs it; assumption: the doc states it as one",
    }),
    explanation: z.string(),
    anchor: AnchorSchema.optional().openapi({ description: "where the doc makes the claim" }),
    sources: z
      .array(
        z.object({
          text: z.string(),
          found: z.boolean().openapi({ description: "the quote is in the bundle or a linked bundle" }),
          file: z
            .string()
            .optional()
            .openapi({ description: "where it was found (`<bundle>/<path>` for a linked bundle)" }),
          url: z.string().optional().openapi({
            description:
              "a grounding source a search connection found (its `text` is the snippet); not bundle text",
          }),
          title: z.string().optional(),
          redirect_chain: z.array(z.string()).optional().openapi({
            description: "with `resolve_sources`: every address the URL redirected to, in order",
          }),
          retrieved_at: z.iso.datetime().optional().openapi({
            description: "with `resolve_sources`: when the source's redirects were followed",
          }),
          resolve_error: z
            .string()
            .optional()
            .openapi({ description: "with `resolve_sources`: why the redirects could not be followed" }),
        }),
      )
      .openapi({
        description: "the quotes the label rests on, then the grounding sources of a search connection",
      }),
  })
  .openapi("Claim");

export const BuildQuestionSchema = z
  .object({
    id: Uuid,
    number: z.int(),
    text: z.string(),
    level: z.string().openapi({ example: "MUST" }),
    cites: z.array(
      z.object({
        kind: z.string(),
        path: z.array(z.string()).optional(),
        id: z.string().optional(),
        anchor: AnchorSchema,
      }),
    ),
    result: z.string().openapi({
      example: "agree",
      description:
        "`agree`, `partial`, `diverge`, `unanswered`, or `unjudged` (a reader's or the judge's answer was invalid twice, so a person must judge it)",
    }),
    answers: z
      .array(
        z.object({
          reader: z.int(),
          answer: z.string(),
          answered: z
            .boolean()
            .openapi({ description: "false for NOT SPECIFIED and for an answer whose quote is not found" }),
          quotes: z.array(z.object({ text: z.string(), found: z.boolean() })),
        }),
      )
      .openapi({ description: "one per reader, in reader order" }),
    groups: z
      .array(z.array(z.int()))
      .openapi({ description: "the judge's groups of reader numbers with the same meaning" }),
  })
  .openapi("BuildQuestion");

export const BuildQuestionListSchema = z
  .object({ items: z.array(BuildQuestionSchema) })
  .openapi("BuildQuestionList", { description: "in order; empty for a run without a divergence test" });

export const RunEstimateSchema = z
  .object({
    calls: z.int(),
    cached_steps: z.int(),
    tokens_in: int64(),
    tokens_out: int64(),
    cost_usd: z.number().optional(),
    priced: z
      .boolean()
      .openapi({ description: "false when the reviewer role has no prices, so there is no cost" }),
  })
  .openapi("RunEstimate");

export const RunReportSchema = z
  .looseObject({
    run_id: Uuid,
    stages: z.array(
      z.looseObject({ name: z.string(), duration_ms: int64(), cached: z.boolean().optional() }),
    ),
    reader_diversity: z
      .looseObject({ readers: z.int(), divergent_questions: z.int() })
      .openapi({ description: "how differently the readers understood the doc" }),
    answers_by_stage: z
      .record(
        z.string(),
        z.object({
          calls: z.int().openapi({ description: "model requests made (retries included, cached steps not)" }),
          repaired: z.int().openapi({ description: "answers taken after a repair with one clear meaning" }),
          retried: z.int().openapi({ description: "answers asked again once because they were invalid" }),
          dropped: z.int().openapi({ description: "items left out (beyond a limit, or invalid twice)" }),
          lost: z.int().openapi({
            description:
              "answers invalid twice: the question is unjudged, or the section's claims or findings are lost",
          }),
        }),
      )
      .optional()
      .openapi({ description: "per AI stage, for a full run" }),
    findings_by_category: z.record(z.string(), z.int()),
    tokens_in: int64().optional(),
    tokens_out: int64().optional(),
  })
  .openapi("RunReport");

export const TourPointSchema = z
  .looseObject({
    key: z.string().openapi({ description: "the `tour_key` of a next action" }),
    kind: z.enum(["waiver", "decide", "fix", "review", "adopt", "request_review", "handoff"]),
    sentence: z.string(),
    finding_id: Uuid.optional(),
    thread_id: Uuid.optional(),
    waiver_id: Uuid.optional(),
    anchor: AnchorSchema.optional(),
  })
  .openapi("TourPoint");

export const DiffSummaryBodySchema = z
  .object({
    from: Uuid.openapi({ description: "the older version" }),
    to: Uuid.optional().openapi({ description: "the newer version; default the current one" }),
  })
  .openapi("DiffSummaryRequest");

export const DiffSummarySchema = z
  .looseObject({
    summary: z.string().openapi({ description: "what changed in meaning, in markdown" }),
    findings: z
      .looseObject({ added: z.array(Uuid), resolved: z.array(Uuid) })
      .openapi({ description: "the change in findings between the runs of the two versions" }),
  })
  .openapi("DiffSummary");

export const FixSchema = z
  .looseObject({
    finding_id: Uuid,
    patch: z.string().openapi({ description: "a unified diff against the version the run read" }),
    file: z.string().openapi({ description: "the bundle file the patch changes" }),
    version_id: Uuid.openapi({ description: "the version the patch was made against" }),
    explanation: z.string().optional(),
  })
  .openapi("FindingFix");

export const ReviewFileSchema = z
  .object({
    path: z.string(),
    content: z.string(),
    encoding: z.enum(["text", "base64"]).optional().openapi({ description: "default `text`" }),
  })
  .openapi("ReviewFile");

export const AdHocReviewBodySchema = z
  .object({
    files: z.array(ReviewFileSchema).min(1),
    main_path: z
      .string()
      .optional()
      .openapi({ description: "the spec doc; default the one markdown file naming a type" }),
    full: z.boolean().optional().openapi({ description: "run the AI stages too (default: lint only)" }),
  })
  .openapi("AdHocReviewRequest");

export const AdHocReviewSchema = z
  .looseObject({
    id: Uuid.openapi({ description: "the `reviewId` of GET /reviews/{reviewId}/report" }),
    run: RunSchema.optional(),
    verdict: VerdictSchema.optional(),
    findings: z.array(FindingSchema),
    questions: z.array(BuildQuestionSchema).optional().openapi({ description: "with `full`" }),
    claims: z.array(ClaimSchema).optional().openapi({ description: "with `full`" }),
    report_url: z.string(),
    expires_at: z.iso.datetime().openapi({ description: "90 days after the request" }),
  })
  .openapi("AdHocReview");
