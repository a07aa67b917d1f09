/**
 * Traceability (contract 2.8, 2.9 and 4.2): links, matrices, suggested trace IDs,
 * covering a gap, and link suggestions for a folder.
 */
import { z } from "@hono/zod-openapi";
import { AnchorSchema, DocRefSchema, Uuid } from "./common.js";
import { withBaseVersion } from "./params.js";

export const LinkKind = z.enum(["implements", "refines", "references", "supersedes", "implemented-by"]);

export const LinkSchema = z
  .object({
    kind: LinkKind,
    origin: z.enum(["frontmatter", "rule", "adopted"]),
    target_kind: z.enum(["bundle", "external"]),
    target_ref: z
      .string()
      .openapi({ description: "target as written; for an incoming link, the source bundle's slug" }),
    bundle: DocRefSchema.optional().openapi({
      description: "the linked bundle; absent when no bundle matches",
    }),
    target_url: z.string().optional().openapi({ description: "where a person opens an external target" }),
    state: z
      .enum(["aligned", "drifted", "conflicting", "unchecked"])
      .optional()
      .openapi({ description: "state of an external link as the last review run read it" }),
    state_reason: z.string().optional(),
    checked_at: z.iso.datetime().optional(),
    removable: z.boolean().optional().openapi({
      description: "true when DELETE /docs/{docId}/links can remove it; absent on an incoming link",
    }),
  })
  .openapi("Link");

export const MatrixRowSchema = z
  .object({ id: z.string(), text: z.string(), anchor: AnchorSchema, detached: z.boolean().optional() })
  .openapi("MatrixRow");

export const MatrixCellSchema = z
  .looseObject({
    state: z.enum(["referenced", "covered", "missing", "acknowledged"]).openapi({
      example: "referenced",
      description:
        "`covered`: the column's doc says `Covers <ID>.`; `referenced`: it names the ID; `missing`: neither (docs/trace.md); `acknowledged`: the column's doc has an approved acknowledgement of the ID (docs/waivers.md)",
    }),
    waiver_id: z.string().optional().openapi({ description: "with `acknowledged`: the acknowledgement" }),
    reason: z.string().optional().openapi({ description: "with `acknowledged`: why the ID is out of scope" }),
    section: z
      .array(z.string())
      .optional()
      .openapi({ description: "with `covered`: heading path of the section that covers the ID" }),
  })
  .openapi("MatrixCell");

export const MatrixSchema = z
  .object({
    upstream: DocRefSchema,
    rows: z.array(MatrixRowSchema),
    columns: z.array(DocRefSchema),
    cells: z.array(z.array(MatrixCellSchema)).openapi({ description: "`cells[row][column]`" }),
    editable: z.array(z.boolean()).openapi({
      description:
        "`editable[column]`: the caller can edit that column's doc (answer gaps, withdraw acknowledgements)",
    }),
  })
  .openapi("Matrix");

export const TraceSuggestionSchema = z
  .object({
    id: z.string(),
    text: z.string(),
    anchor: AnchorSchema,
    detached: z.boolean().optional(),
    sections: z
      .array(z.array(z.string()))
      .optional()
      .openapi({ description: "heading paths of this doc's sections, in order, for `This doc covers it`" }),
  })
  .openapi("TraceSuggestion");

export const TraceSchema = z
  .object({
    links: z.array(LinkSchema).openapi({ description: "outgoing links of the current version" }),
    incoming: z.array(LinkSchema).openapi({ description: "links from other bundles to this one" }),
    standalone: z.object({ reason: z.string(), acknowledged_by: z.string() }).optional(),
    matrices: z.array(MatrixSchema),
    suggestions: z.array(TraceSuggestionSchema),
    problems: z
      .array(
        z.object({
          code: z.enum(["link_unresolved", "link_to_self", "link_cycle", "link_invalid"]),
          message: z.string(),
        }),
      )
      .openapi({
        description:
          "what is wrong with the doc's links: a slug that names no bundle, a link to itself, a cycle",
      }),
  })
  .openapi("Trace");

export const RemoveLinkQuery = withBaseVersion({
  kind: LinkKind,
  target_ref: z.string().min(1).openapi({ description: "the link's `target_ref`" }),
});

export const InsertTraceIdsBodySchema = z
  .object({
    ids: z
      .array(z.string())
      .optional()
      .openapi({ description: "the suggested IDs to insert; default every suggestion" }),
  })
  .openapi("InsertTraceIdsRequest");

export const CoverBodySchema = z
  .object({
    trace_id: z.string().min(1),
    section: z.array(z.string()).openapi({ description: "heading path of the covering section" }),
  })
  .openapi("CoverRequest");

export const LinkSuggestBodySchema = z
  .object({
    docs: z
      .array(
        z.object({ path: z.string(), profile: z.string().openapi({ description: "empty: not a spec" }) }),
      )
      .openapi({ description: "the docs of the folder" }),
    source_id: Uuid.optional().openapi({
      description: "the source's bundles count as docs in their folders",
    }),
    local: z
      .boolean()
      .optional()
      .openapi({ description: "the bundles on disk count as docs in their folders" }),
  })
  .openapi("LinkSuggestRequest");

export const LinkSuggestionsSchema = z
  .object({
    items: z.array(
      z.object({
        from: z.string().openapi({ description: "path of the linking doc" }),
        to: z.string().openapi({ description: "path of the linked doc" }),
        kind: z.string(),
      }),
    ),
  })
  .openapi("LinkSuggestions");
