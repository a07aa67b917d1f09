import { createRoute, z } from "@hono/zod-openapi";
import { createRouter, deps, errorResponses, jsonResponse } from "../../http.js";
import { API_VERSION } from "../../version.js";

export const MetaSchema = z
  .object({
    api_version: z.string().openapi({ example: "0.1.0" }),
    server_version: z.string(),
    mode: z.enum(["local", "hosted"]),
  })
  .openapi("Meta");

export const UserSchema = z
  .object({ id: z.string(), name: z.string(), kind: z.enum(["user", "guest", "ai"]), role: z.string() })
  .openapi("User");

export const MeSchema = z
  .object({ signed_in: z.boolean(), user: UserSchema.optional(), mode: z.enum(["local", "hosted"]) })
  .openapi("Me");

export default function metaRoutes() {
  const r = createRouter();
  r.openapi(
    createRoute({
      method: "get",
      path: "/meta",
      summary: "server version and mode",
      tags: ["meta"],
      responses: { 200: jsonResponse(MetaSchema, "Server version and mode"), ...errorResponses },
    }),
    (c) => {
      const d = deps(c);
      return c.json({ api_version: API_VERSION, server_version: d.serverVersion, mode: d.mode }, 200);
    },
  );
  r.openapi(
    createRoute({
      method: "get",
      path: "/me",
      summary: "who the caller is; anonymous callers get `signed_in` false",
      tags: ["meta"],
      responses: { 200: jsonResponse(MeSchema, "The caller"), ...errorResponses },
    }),
    (c) => {
      // In local mode the caller is always the local admin (server/auth/actor.ts).
      const { mode } = deps(c);
      const actor = c.get("actor");
      if (!actor) return c.json({ signed_in: false, mode }, 200);
      const { id, name, kind, role } = actor;
      return c.json({ signed_in: true, user: { id, name, kind, role }, mode }, 200);
    },
  );
  return r;
}
