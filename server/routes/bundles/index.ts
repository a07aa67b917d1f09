import { createRoute, z } from "@hono/zod-openapi";
import { repohostDeletePlan } from "../../repohost/routes.js";
import { createRouter, deps, errorResponses, jsonResponse } from "../../http.js";
import { ApiError } from "../../errors.js";
import { BundleIdParams, BundleListSchema, BundleSchema, Uuid } from "../../schemas/common.js";
import { ArchivedParam } from "../../schemas/params.js";
import { bundleView } from "../../views.js";
import { registerBundleWrites } from "./import.js";
import { visibleTo } from "../../auth/visibility.js";
import type { DiscoveryProblem } from "../../../core/bundle/discover.js";
import type { Bundle } from "../../schemas/common.js";

const ListQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(500)
    .default(50)
    .openapi({ description: "items per page (1-500)" }),
  cursor: z.string().optional().openapi({ description: "next_cursor of the previous page" }),
  archived: ArchivedParam,
});

export const DeletePlanSchema = z
  .object({
    bundle_id: Uuid,
    slug: z.string(),
    source_kind: z.enum(["local", "db", "repohost"]),
    action: z
      .enum(["delete_files", "delete_records", "archive"])
      .openapi({ description: "what DELETE does for this kind of source" }),
    sentence: z.string().openapi({ description: "what the Delete control says, in words" }),
    files: z.int(),
    bytes: z.int(),
    versions: z.int(),
    permanent: z.boolean(),
  })
  .openapi("DeletePlan");

const DeleteResultSchema = z
  .object({ deleted: z.boolean(), bundle_id: Uuid, files_removed: z.int() })
  .openapi("BundleDeleted");

function encodeCursor(slug: string): string {
  return Buffer.from(JSON.stringify({ s: slug })).toString("base64url");
}

function decodeCursor(cursor: string): string {
  try {
    const v = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { s?: unknown };
    if (typeof v.s === "string") return v.s;
  } catch {
    /* fall through */
  }
  throw new ApiError("bad_cursor", "cursor is not a next_cursor this server gave out");
}

export default function bundleRoutes() {
  const r = createRouter();

  r.openapi(
    createRoute({
      method: "get",
      path: "/bundles",
      summary: "list bundles and the invalid bundle-like folders",
      tags: ["bundles"],
      request: { query: ListQuery },
      responses: { 200: jsonResponse(BundleListSchema, "A page of bundles, by slug"), ...errorResponses },
    }),
    async (c) => {
      const { store, index, mode, waivers } = deps(c);
      const { limit, cursor } = c.req.valid("query");
      const archived = c.req.valid("query").archived === "true";
      const after = cursor === undefined ? undefined : decodeCursor(cursor);
      const actor = c.get("actor");
      const visible = visibleTo(mode, actor);
      const bodyOf = (page: { items: Bundle[]; more: boolean }, problems: DiscoveryProblem[]) => {
        const body: z.infer<typeof BundleListSchema> = { items: page.items, problems };
        const last = page.items[page.items.length - 1];
        if (page.more && last) body.next_cursor = encodeCursor(last.slug);
        return body;
      };
      if (visible) {
        // A list filtered for this caller; folders that failed to become bundles are
        // workspace business, not a guest's.
        const problems = actor?.role === "guest" ? [] : store.problems();
        const page = await index.page(limit, after, visible, archived);
        const items = (await waivers.personalize(actor, page.items)) ?? page.items;
        return c.json(bodyOf({ ...page, items }, problems), 200);
      }
      // The caller's own next actions (a waiver to decide, ...; server/waivers) make a page of its own.
      const page = await index.page(limit, after, undefined, archived);
      const personal = await waivers.personalize(actor, page.items);
      if (personal) return c.json(bodyOf({ ...page, items: personal }, store.problems()), 200);
      // Everyone sees everything (local mode, an admin): the same page is written as JSON
      // once until a bundle (or the problems list) changes.
      const bytes = await index.pageJson(limit, after, store.problems(), bodyOf, archived);
      return c.body(bytes, 200, { "content-type": "application/json" }) as unknown as ReturnType<
        typeof c.json<z.infer<typeof BundleListSchema>, 200>
      >;
    },
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/bundles/{bundleId}",
      summary: "one bundle with its spec docs",
      tags: ["bundles"],
      request: { params: BundleIdParams },
      responses: { 200: jsonResponse(BundleSchema, "The bundle"), ...errorResponses },
    }),
    async (c) => {
      const { store, runs } = deps(c);
      const { bundleId } = c.req.valid("param");
      await store.refreshBundle(bundleId);
      const row = await store.bundle(bundleId);
      await runs.settled(row.doc.id);
      const view = bundleView(row, (await runs.latestRuns([row.doc.id])).get(row.doc.id));
      // A single read: the caller's next action with its target ids (server/waivers/next-action.ts).
      view.docs = await deps(c).waivers.withNextActions(c.get("actor"), view.docs, true);
      return c.json(view, 200);
    },
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/bundles/{bundleId}/delete-plan",
      summary: "what the Delete control offers for this bundle, by the kind of source",
      tags: ["bundles"],
      request: { params: BundleIdParams },
      responses: { 200: jsonResponse(DeletePlanSchema, "What DELETE would do"), ...errorResponses },
    }),
    async (c) => {
      const { store } = deps(c);
      const { bundleId } = c.req.valid("param");
      await store.refreshBundle(bundleId);
      const row = await store.bundle(bundleId);
      const stats = await store.bundleStats(bundleId);
      if (row.bundle.sourceKind === "repohost") return c.json(await repohostDeletePlan(c, row, stats), 200);
      const where = row.bundle.slug === "." ? "the served folder" : `the folder ${row.bundle.slug}`;
      return c.json(
        {
          bundle_id: bundleId,
          slug: row.bundle.slug,
          source_kind: "local" as const,
          action: "delete_files" as const,
          sentence: `Deletes the ${stats.files} files of this bundle from ${where} on disk (nested bundles stay) and its ${stats.versions} versions, runs and threads. This cannot be undone.`,
          files: stats.files,
          bytes: stats.bytes,
          versions: stats.versions,
          permanent: true,
        },
        200,
      );
    },
  );

  r.openapi(
    createRoute({
      method: "delete",
      path: "/bundles/{bundleId}",
      summary: "delete a bundle whose text the service holds, with everything that hangs off it; permanent",
      tags: ["bundles"],
      request: { params: BundleIdParams },
      responses: { 200: jsonResponse(DeleteResultSchema, "The bundle is gone"), ...errorResponses },
    }),
    async (c) => {
      const { store } = deps(c);
      const { bundleId } = c.req.valid("param");
      const { files } = await store.deleteBundle(bundleId);
      return c.json({ deleted: true, bundle_id: bundleId, files_removed: files }, 200);
    },
  );

  registerBundleWrites(r);
  return r;
}
