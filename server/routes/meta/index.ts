import { createRoute, z } from "@hono/zod-openapi";
import type { Actor } from "../../auth/actor.js";
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
  .object({
    id: z.string(),
    name: z.string(),
    kind: z.enum(["user", "guest", "ai"]),
    role: z.string(),
    email: z.string().optional().openapi({ description: "a signed-in person's (hosted mode)" }),
  })
  .openapi("User");

export const MeSchema = z
  .object({
    signed_in: z.boolean(),
    user: UserSchema.optional(),
    guest: z.literal(true).optional().openapi({
      description: "present for a guest who entered by a share link (`user.name` is its display name)",
    }),
    bundle_id: z
      .string()
      .optional()
      .openapi({ description: "a guest's: the bundle whose share link it entered" }),
    mode: z.enum(["local", "hosted"]),
  })
  .openapi("Me");

/** The answer of `GET /me` (and of signing in) for a caller. */
export function meOf(mode: "local" | "hosted", actor: Actor | undefined): z.infer<typeof MeSchema> {
  if (!actor) return { signed_in: false, mode };
  const { id, name, kind, role, email, guestBundleId } = actor;
  const user = { id, name, kind, role, ...(email ? { email } : {}) };
  if (kind === "guest")
    return {
      signed_in: true,
      user,
      guest: true,
      ...(guestBundleId ? { bundle_id: guestBundleId } : {}),
      mode,
    };
  return { signed_in: true, user, mode };
}

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
      return c.json(meOf(deps(c).mode, c.get("actor")), 200);
    },
  );
  return r;
}
