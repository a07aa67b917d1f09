/**
 * Schemas of the resources of contract section 2 shared by many routes.
 * They validate, type and document (OpenAPI) at once.
 */
import { z } from "@hono/zod-openapi";

/**
 * A UUID. UUIDs compare case-insensitively (RFC 9562): an id written in upper case, in a
 * body, names the same thing, so every id field reads it in lower case, the form ids are
 * stored and answered in. Path and query ids get the same rule in server/app.ts.
 */
export const Uuid = z.uuid().toLowerCase();

export const ProblemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.int(),
    code: z.string().openapi({ description: "stable machine-readable error code, see docs/errors.md" }),
    detail: z.string().optional(),
    instance: z.string().optional(),
    errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  })
  .openapi("Problem");

export const VersionSchema = z
  .object({
    id: Uuid,
    number: z.int().openapi({ format: "int64" }),
    created_by: z.string(),
    message: z.string(),
    created_at: z.iso.datetime(),
  })
  .openapi("Version");

export const AnchorSchema = z
  .object({
    file: z.string(),
    heading_path: z.array(z.string()),
    quote: z.string(),
    prefix: z.string(),
    suffix: z.string(),
    start: z.int().openapi({ description: "UTF-8 byte offset of the quote in the file" }),
    end: z.int(),
    detached: z.boolean().optional(),
  })
  .openapi("Anchor");

export const DocRefSchema = z
  .object({ id: Uuid, bundle_id: Uuid, slug: z.string(), title: z.string(), profile_key: z.string() })
  .openapi("DocRef");

export const VerdictSchema = z
  .object({
    run_id: Uuid,
    version_number: z.int().openapi({ format: "int64" }),
    kind: z.enum(["lint", "full"]),
    result: z.enum(["build_ready", "not_build_ready", "stale"]),
    score: z.int(),
    radar: z.record(z.string(), z.int()),
    waiver_count: z.int(),
    relaxed_count: z.int(),
    must: z.int(),
    should: z.int(),
    info: z.int(),
    blocking_threads: z.int().optional(),
    ai_run_id: Uuid.optional(),
    ai_version_number: z.int().optional(),
    sections_changed: z.int().optional(),
    stale_reason: z.enum(["upstream_changed"]).optional(),
    stale_upstream: z.array(DocRefSchema).optional(),
  })
  .openapi("Verdict");

export const NextActionSchema = z
  .object({
    kind: z.enum(["waiver", "decide", "fix", "review", "adopt", "request_review", "handoff"]),
    sentence: z.string(),
    waiver_id: Uuid.optional(),
    finding_id: Uuid.optional(),
    tour_key: z.string().optional(),
  })
  .openapi("NextAction");

export const RepohostOriginSchema = z
  .object({
    repo: z.string(),
    branch: z.string(),
    path: z.string(),
    draft: z.boolean(),
    ahead: z.boolean(),
    pr_url: z.string().optional(),
  })
  .openapi("RepohostOrigin");

export const SourceKind = z.enum(["local", "db", "repohost"]);

/** `archived: true` on a bundle (and its docs) whose repohost source was deleted; absent otherwise. */
const ArchivedField = z.boolean().optional().openapi({
  description:
    "true when the bundle is archived (its repohost source was deleted): it is read as before, left out of lists unless `archived=true` is asked, and every change is refused with `bundle_archived`; absent otherwise",
});

export const SpecDocSchema = z
  .object({
    id: Uuid,
    bundle_id: Uuid,
    slug: z.string(),
    title: z.string(),
    profile_key: z.string(),
    source_kind: SourceKind,
    repohost: RepohostOriginSchema.optional(),
    archived: ArchivedField,
    path: z.string(),
    current_version: VersionSchema,
    updated_at: z.iso.datetime(),
    verdict: VerdictSchema.optional(),
    run_error: z.string().optional(),
    adopt: z.object({ type: z.string().optional(), size: z.string().optional() }).optional(),
    status: z.enum(["draft", "in_review", "approved", "superseded"]).optional(),
    next_action: NextActionSchema.optional(),
    problems: z
      .array(z.object({ message: z.string(), line: z.int().optional(), column: z.int().optional() }))
      .optional()
      .openapi({ description: "what is wrong with the doc's own text, e.g. malformed frontmatter" }),
  })
  .openapi("SpecDoc");

export const BundleSchema = z
  .object({
    id: Uuid,
    slug: z.string(),
    title: z.string(),
    source_kind: SourceKind,
    visibility: z.enum(["private", "internal", "link"]).optional(),
    archived: ArchivedField,
    state: z.enum(["not_build_ready", "not_reviewed", "build_ready"]),
    docs: z.array(SpecDocSchema),
    updated_at: z.iso.datetime(),
  })
  .openapi("Bundle");

export const BundleProblemSchema = z
  .object({ path: z.string(), message: z.string() })
  .openapi("BundleProblem");

export const BundleListSchema = z
  .object({
    items: z.array(BundleSchema),
    next_cursor: z.string().optional(),
    problems: z.array(BundleProblemSchema),
  })
  .openapi("BundleList");

export const WriteResultSchema = z
  .object({
    version: VersionSchema,
    changed: z.boolean().openapi({ description: "false when the write left the bundle unchanged" }),
    verdict: VerdictSchema.optional().openapi({ description: "the verdict of the lint run on `version`" }),
  })
  .openapi("WriteResult");

export const DocIdParams = z.object({ docId: Uuid.openapi({ param: { name: "docId", in: "path" } }) });
export const BundleIdParams = z.object({
  bundleId: Uuid.openapi({ param: { name: "bundleId", in: "path" } }),
});
export const RunIdParams = z.object({ runId: Uuid.openapi({ param: { name: "runId", in: "path" } }) });

export type Version = z.infer<typeof VersionSchema>;
export type SpecDoc = z.infer<typeof SpecDocSchema>;
export type Bundle = z.infer<typeof BundleSchema>;
/** The one verdict type (core/verdict); the schema above is its wire form (test/server/verdict-type.test.ts keeps them in step). */
export type { Verdict } from "../../core/verdict/index.js";
