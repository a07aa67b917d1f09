/**
 * Verification runs (contract 3 and 4.2, POST /docs/{docId}/verifications).
 * The run fields the contract describes without naming are named in
 * docs/api-decisions.md, "verifications".
 */
import { z } from "@hono/zod-openapi";
import { Uuid } from "./common.js";

export const VerificationTargetSchema = z
  .looseObject({
    kind: z.string().openapi({ example: "code", description: "a `test` target is a citation, not a pass" }),
    path: z.string().openapi({ description: "file relative to the repo root" }),
    quote: z.string().openapi({ description: "verbatim anchor; must appear in the file exactly once" }),
    line: z.int().optional().openapi({ description: "the line where the quote was found" }),
    holds: z.boolean().optional(),
    fault: z.string().optional().openapi({ description: "why the target does not hold" }),
    provenance: z.string().optional().openapi({ example: "claim", description: "`scan` or `claim`" }),
    changed: z.boolean().optional().openapi({
      description: "the file changed between the base commit and the commit read (ranked first)",
    }),
  })
  .openapi("VerificationTarget");

export const VerificationClaimSchema = z
  .object({ trace_id: z.string(), targets: z.array(VerificationTargetSchema) })
  .openapi("VerificationClaim", { description: "replaces the derived targets of its trace ID" });

export const VerificationRequestSchema = z
  .object({
    target: z.string().optional().openapi({
      description:
        "a repo URL (repo, branch, file, commit or pull request) or `owner/name`; in local mode also an absolute folder path",
    }),
    repo: z.string().optional().openapi({ description: "`owner/name`" }),
    sha: z.string().optional().openapi({ description: "the commit the run reads" }),
    path: z.string().optional().openapi({ description: "a folder on disk; local mode only; no base commit" }),
    handoff_id: Uuid.optional().openapi({ description: "the handoff a builder took" }),
    claims: z.array(VerificationClaimSchema).optional(),
  })
  .openapi("VerificationRequest", {
    description: "with no target, repo or path, the run reads the bundle's implemented-by link",
  });

export const VerificationOutcomeSchema = z
  .looseObject({
    trace_id: z.string(),
    outcome: z.string().openapi({ example: "implemented" }),
    level: z.string().openapi({ example: "MUST" }),
    provenance: z.string(),
    targets: z.array(VerificationTargetSchema),
    gated: z
      .boolean()
      .optional()
      .openapi({ description: "inside the profile's verify prefixes: counts toward the verdict" }),
    text: z.string().optional().openapi({ description: "the statement that defines the ID" }),
  })
  .openapi("VerificationOutcome");

export const VerificationRunSchema = z
  .looseObject({
    id: Uuid,
    doc_id: Uuid,
    status: z.enum(["queued", "done", "failed"]),
    verdict: z.string().optional().openapi({
      example: "verified",
      description: "the run's own verdict when done; not the bundle's Build Ready verdict",
    }),
    outcomes: z.array(VerificationOutcomeSchema),
    repo: z.string().optional(),
    sha: z.string().optional(),
    path: z.string().optional(),
    handoff_id: Uuid.optional(),
    error: z.string().optional().openapi({ description: "why the run failed" }),
    branch: z.string().optional().openapi({ description: "the branch the SHA was head of" }),
    base_sha: z
      .string()
      .optional()
      .openapi({ description: "the base commit the ranking compared against; empty when none" }),
    digest: z.string().optional().openapi({ description: "content digest of the folder, for a folder run" }),
    unverified_ids: z
      .array(z.string())
      .optional()
      .openapi({ description: "trace IDs outside the profile's verify prefixes, not verified by the gate" }),
    limits_hit: z.array(z.string()).optional().openapi({ description: "the limits the scan hit" }),
    bundle_changed: z
      .boolean()
      .optional()
      .openapi({ description: "the bundle got a new version after the run" }),
    opened_blocking_thread: z
      .boolean()
      .optional()
      .openapi({ description: "an outcome opened a blocking thread" }),
    target_kind: z.enum(["repo", "folder"]).optional(),
    pull_request: z.int().optional(),
    version_number: z.int().optional().openapi({ description: "the bundle version the run checked" }),
    check: z.enum(["model", "presence"]).optional().openapi({
      description: "`model`: targets checked against the requirement; `presence`: no model, presence only",
    }),
    model: z.string().optional(),
    note: z.string().optional(),
    scan: z
      .looseObject({
        files: z.int(),
        bytes: z.int(),
        binary: z.int(),
        symlinks: z.int(),
        special: z.int(),
        too_large: z.array(z.object({ path: z.string(), size: z.number() })),
        unreadable: z.array(z.object({ path: z.string(), error: z.string() })),
        duration_ms: z.int(),
      })
      .optional()
      .openapi({ description: "what the scan read and skipped" }),
    created_by: z.string().optional(),
    created_at: z.iso.datetime(),
    finished_at: z.iso.datetime().optional(),
  })
  .openapi("VerificationRun");

export const ResolveTargetBodySchema = z
  .object({
    target: z
      .string()
      .min(1)
      .openapi({ description: "the pasted target, as for POST /docs/{docId}/verifications" }),
  })
  .openapi("ResolveTargetRequest");

export const ResolvedTargetSchema = z
  .looseObject({
    kind: z.enum(["repo", "folder"]),
    repo: z.string().optional().openapi({ description: "`owner/name`" }),
    branch: z.string().optional(),
    sha: z.string().optional().openapi({ description: "the commit a run would read" }),
    path: z.string().optional().openapi({ description: "the folder, for a folder target" }),
    pull_request: z.int().optional(),
  })
  .openapi("ResolvedTarget");

export const VerificationDefaultSchema = z
  .looseObject({
    target: z.string(),
    source: z.enum(["implemented_by", "last_run"]).openapi({ description: "why the target is offered" }),
  })
  .openapi("VerificationDefault");
