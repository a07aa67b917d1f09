import { createRoute, z } from "@hono/zod-openapi";
import { setFrontmatterKeys } from "../../../core/markdown/frontmatter.js";
import { createRouter, deps, errorResponses, jsonBody, jsonResponse } from "../../http.js";
import { ApiError } from "../../errors.js";
import { BundleListSchema } from "../../schemas/common.js";
import { bundleView } from "../../views.js";
import { caller } from "../../auth/actor.js";
import { recordCreated } from "../../auth/share-links.js";

export const ProfileKey = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, "a profile key: lowercase letters, digits, - and _")
  .openapi({ description: "profile key (doc type)" });

const SkippedSchema = z.object({ items: z.array(z.object({ path: z.string() })) }).openapi("SkippedDocs");

const AdoptSkippedBody = z
  .object({
    docs: z
      .array(z.object({ path: z.string().min(1), profile: ProfileKey }))
      .min(1)
      .openapi({ description: "every picked doc with the type to write into it" }),
  })
  .openapi("AdoptSkipped");

const DismissedSchema = z
  .object({ path: z.string(), created_by: z.string(), created_at: z.iso.datetime() })
  .openapi("DismissedDoc");

export default function skippedRoutes() {
  const r = createRouter();

  r.openapi(
    createRoute({
      method: "get",
      path: "/skipped",
      summary: "markdown files the local scan passed over because they name no type; empty in hosted mode",
      tags: ["adoption"],
      responses: { 200: jsonResponse(SkippedSchema, "Skipped markdown files, by path"), ...errorResponses },
    }),
    async (c) => {
      const d = deps(c);
      const items = d.mode === "local" ? (await d.store.skipped()).map((path) => ({ path })) : [];
      return c.json({ items }, 200);
    },
  );

  r.openapi(
    createRoute({
      method: "post",
      path: "/skipped",
      summary:
        "write a type into skipped files so they become spec docs; one request takes every picked doc, so the order of picks does not matter",
      tags: ["adoption"],
      request: { body: jsonBody(AdoptSkippedBody) },
      responses: { 200: jsonResponse(BundleListSchema, "The bundles the picks became"), ...errorResponses },
    }),
    async (c) => {
      const { store } = deps(c);
      const { docs } = c.req.valid("json");
      const seen = new Set<string>();
      for (const d of docs) {
        if (seen.has(d.path)) throw new ApiError("validation_failed", `${d.path} is picked twice`);
        seen.add(d.path);
      }
      const ids = await store.adoptSkipped(docs, (text, type) => {
        try {
          return setFrontmatterKeys(text, { type });
        } catch (err) {
          throw new ApiError(
            "validation_failed",
            `cannot write the type: the frontmatter is not valid YAML (${err instanceof Error ? err.message : String(err)})`,
          );
        }
      });
      await recordCreated(deps(c), ids, caller(c));
      const items = (await store.bundlesByIds(ids))
        .map((row) => bundleView(row))
        .sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
      return c.json({ items, problems: store.problems() }, 200);
    },
  );

  r.openapi(
    createRoute({
      method: "get",
      path: "/dismissed-docs",
      summary: "markdown files a person marked as not a spec",
      tags: ["adoption"],
      responses: {
        200: jsonResponse(z.object({ items: z.array(DismissedSchema) }), "Dismissed files, by path"),
        ...errorResponses,
      },
    }),
    async (c) => c.json({ items: await deps(c).store.dismissed() }, 200),
  );

  r.openapi(
    createRoute({
      method: "post",
      path: "/dismissed-docs",
      summary: "mark a markdown file as not a spec so it is no longer offered for adoption",
      tags: ["adoption"],
      request: { body: jsonBody(z.object({ path: z.string().min(1) })) },
      responses: { 200: jsonResponse(DismissedSchema, "The mark"), ...errorResponses },
    }),
    async (c) => c.json(await deps(c).store.dismiss(c.req.valid("json").path, caller(c).id), 200),
  );

  r.openapi(
    createRoute({
      method: "delete",
      path: "/dismissed-docs",
      summary: "take the mark off a file",
      tags: ["adoption"],
      request: { query: z.object({ path: z.string().min(1) }) },
      responses: {
        200: jsonResponse(z.object({ path: z.string(), removed: z.literal(true) }), "The mark is gone"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const { path } = c.req.valid("query");
      if (!(await deps(c).store.undismiss(path))) throw new ApiError("not_found", `${path} is not dismissed`);
      return c.json({ path, removed: true as const }, 200);
    },
  );
  return r;
}
