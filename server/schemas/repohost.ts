/**
 * Repohost sources (repo, branch and folder the service reads bundles from) and
 * the draft of a repohost bundle. Records not shown by the contract are decided
 * in docs/api-decisions.md, "repohost".
 */
import { z } from "@hono/zod-openapi";
import { Uuid } from "./common.js";

export const SourceSchema = z
  .looseObject({
    id: Uuid,
    url: z.string().openapi({ description: "the source URL as given" }),
    repo: z.string().openapi({ description: "`owner/name`" }),
    branch: z.string(),
    path: z.string().openapi({ description: "folder in the repo; empty for the root" }),
    bundles: z.int().openapi({ description: "bundles read from the source" }),
    last_synced_at: z.iso.datetime().optional(),
    last_commit: z.string().optional().openapi({ description: "the commit the last sync read" }),
    sync_error: z.string().optional().openapi({ description: "why the last sync failed" }),
    sync_state: z.enum(["idle", "syncing", "waiting_rate_limit", "error"]).optional().openapi({
      description:
        "`waiting_rate_limit`: the repo host's rate limit asks to wait until `resume_at`; the sync resumes by itself then",
    }),
    resume_at: z.iso.datetime().optional().openapi({
      description: "no call to the repo host for this source before this time (a rate limit's wait)",
    }),
    created_at: z.iso.datetime(),
  })
  .openapi("Source");

export const SourceListSchema = z.object({ items: z.array(SourceSchema) }).openapi("SourceList");

export const SourceUrlBodySchema = z
  .object({
    url: z
      .string()
      .min(1)
      .openapi({ description: "a repo, branch or folder URL of the repo host, or `owner/name`" }),
  })
  .openapi("SourceUrl");

export const ResolvedSourceSchema = z
  .looseObject({
    repo: z.string(),
    branch: z.string(),
    path: z.string(),
    default_branch: z.boolean().optional(),
    bundles: z.array(z.looseObject({ slug: z.string(), path: z.string(), profile_key: z.string() })),
    skipped: z.int().optional().openapi({ description: "markdown files that name no type" }),
  })
  .openapi("ResolvedSource");

export const SourceSkippedDocSchema = z
  .looseObject({
    path: z.string(),
    guessed_type: z
      .string()
      .optional()
      .openapi({ description: "the doc type that fits its headings; absent when none does" }),
    accepted_type: z
      .string()
      .optional()
      .openapi({ description: "a type accepted in the service, not yet in the repo" }),
  })
  .openapi("SourceSkippedDoc");

export const SourceSkippedListSchema = z
  .object({ items: z.array(SourceSkippedDocSchema) })
  .openapi("SourceSkippedList");

export const AcceptTypesBodySchema = z
  .object({
    docs: z
      .array(
        z.object({ path: z.string(), profile: z.string().openapi({ description: "empty: not a spec" }) }),
      )
      .min(1),
  })
  .openapi("AcceptTypes");

export const PullRequestSchema = z.object({ pr_url: z.string(), pr_number: z.int() }).openapi("PullRequest");

export const PublishBodySchema = z
  .object({
    message: z.string().optional().openapi({ description: "commit message and pull request title" }),
  })
  .openapi("PublishRequest");
