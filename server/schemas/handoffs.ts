/**
 * Handoff: the build packet of a Build Ready bundle, the handoff record, and the
 * builder's report (contract 4.2, POST /docs/{docId}/handoff). Field names the
 * contract does not show are decided in docs/api-decisions.md, "handoffs".
 */
import { z } from "@hono/zod-openapi";
import { Uuid, VerdictSchema } from "./common.js";
import { int64 } from "./params.js";

export const HandoffBodySchema = z
  .object({
    acknowledged: z
      .boolean()
      .optional()
      .openapi({ description: "take the packet although the verdict is not Build Ready or is stale" }),
    label: z
      .string()
      .max(200)
      .optional()
      .openapi({ description: "what the builder calls this work: a repo, a branch or a ticket" }),
  })
  .openapi("HandoffRequest");

export const PacketFileSchema = z
  .object({
    path: z
      .string()
      .openapi({ description: "path in the bundle; a linked bundle's main doc is at `links/<slug>.md`" }),
    content: z.string(),
    encoding: z.enum(["text", "base64"]),
  })
  .openapi("PacketFile");

export const PacketQuestionSchema = z
  .looseObject({
    id: Uuid,
    number: z.int(),
    text: z.string(),
    level: z.string().openapi({ example: "MUST" }),
    result: z.string().openapi({ example: "agree" }),
    answer: z
      .string()
      .optional()
      .openapi({ description: "the agreed answer; absent when readers diverged or nobody could answer" }),
  })
  .openapi("PacketQuestion");

export const BuildPacketSchema = z
  .looseObject({
    handoff_id: Uuid,
    slug: z.string(),
    main_path: z.string().openapi({ description: "path of the main doc inside `files`" }),
    files: z.array(PacketFileSchema),
    title: z
      .string()
      .optional()
      .openapi({ description: "the doc's title (frontmatter `title`, else its first heading)" }),
    doc_id: Uuid.optional(),
    version_number: int64().optional().openapi({ description: "the bundle version the packet holds" }),
    acknowledged: z
      .boolean()
      .optional()
      .openapi({ description: "taken although the verdict was not a current Build Ready" }),
    label: z.string().optional(),
    linked: z
      .array(z.object({ kind: z.string(), slug: z.string(), path: z.string() }))
      .optional()
      .openapi({ description: "linked bundles whose main doc is in `files` at `path` (`links/<slug>.md`)" }),
    external_targets: z.array(
      z.looseObject({
        target: z.string().openapi({ description: "the target as written" }),
        kind: z.string().optional().openapi({ description: "`issue`, `code` or `page`" }),
        link: z
          .string()
          .optional()
          .openapi({ description: "the link kind that names it (`references`, `implemented-by`, …)" }),
        commit: z
          .string()
          .optional()
          .openapi({ description: "for code: the commit the last review run read" }),
      }),
    ),
    ids: z.array(
      z.looseObject({
        id: z.string(),
        line: z.string().openapi({ description: "the line that defines the ID" }),
        level: z.string().optional().openapi({ description: "`MUST`, `SHOULD` or `MAY`" }),
        section: z.array(z.string()).optional().openapi({ description: "heading path of its section" }),
      }),
    ),
    questions: z.array(PacketQuestionSchema),
    reentry_prompt: z.string().openapi({ description: "markdown; the agent owns it after the handoff" }),
    verdict: VerdictSchema.optional().openapi({ description: "the verdict the packet was taken at" }),
  })
  .openapi("BuildPacket");

export const HandoffSchema = z
  .looseObject({
    id: Uuid,
    doc_id: Uuid,
    version_number: int64(),
    label: z.string(),
    acknowledged: z.boolean(),
    verdict_result: z.enum(["build_ready", "not_build_ready", "stale"]).optional(),
    created_by: z.string(),
    created_at: z.iso.datetime(),
    reports: z.int().optional().openapi({ description: "number of reports the builder sent back" }),
  })
  .openapi("Handoff");

export const HandoffReportBodySchema = z
  .looseObject({
    result: z
      .enum(["built", "partial", "blocked"])
      .openapi({ description: "`blocked` opens a blocking thread" }),
    body: z.string().min(1).openapi({ description: "what the build learned about the doc, in markdown" }),
    anchor: z
      .looseObject({ heading_path: z.array(z.string()) })
      .optional()
      .openapi({ description: "the section the report is about" }),
  })
  .openapi("HandoffReportRequest");

export const HandoffReportSchema = z
  .looseObject({
    id: Uuid,
    handoff_id: Uuid,
    result: z.enum(["built", "partial", "blocked"]),
    thread_id: Uuid.optional().openapi({
      description: "the thread the report opened (blocking when `blocked`)",
    }),
    body: z.string().optional(),
    anchor: z.looseObject({ heading_path: z.array(z.string()) }).optional(),
    handoff_version: int64().optional().openapi({ description: "the bundle version the builder took" }),
    created_by: z.string().optional(),
    created_at: z.iso.datetime(),
  })
  .openapi("HandoffReport");
