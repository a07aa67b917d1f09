/** Share links as a guest sees them: GET and POST /share/{token}. */
import { createRoute } from "@hono/zod-openapi";
import { setCookie } from "hono/cookie";
import { createRouter, deps, errorResponses, jsonBody, jsonResponse, type Router } from "../../http.js";
import { GuestEntryBodySchema, GuestSchema, ShareLinkSchema } from "../../schemas/access.js";
import { TokenParams } from "../../schemas/params.js";
import { enterAsGuest, findShareLink, publicBase } from "../../auth/share-links.js";
import { GUEST_COOKIE } from "../../auth/guests.js";

const tags = ["share"];

export const getShareLink = createRoute({
  method: "get",
  path: "/share/{token}",
  operationId: "getShareLink",
  summary: "look up a share link; a revoked or expired link is not found",
  tags,
  request: { params: TokenParams },
  responses: { 200: jsonResponse(ShareLinkSchema, "What the link opens"), ...errorResponses },
});

export const enterShareLink = createRoute({
  method: "post",
  path: "/share/{token}",
  operationId: "enterShareLink",
  summary: "enter a share link as a guest with a display name; sets the guest cookie",
  tags,
  request: { params: TokenParams, body: jsonBody(GuestEntryBodySchema) },
  responses: {
    200: {
      ...jsonResponse(GuestSchema, "The guest; the guest cookie is set"),
      headers: { "set-cookie": { schema: { type: "string" }, description: "the guest cookie" } },
    },
    ...errorResponses,
  },
});

export default function shareRoutes(): Router {
  const r = createRouter();
  r.openapi(getShareLink, async (c) => {
    const { link: _link, ...shared } = await findShareLink(deps(c), c.req.valid("param").token);
    return c.json(shared, 200);
  });
  r.openapi(enterShareLink, async (c) => {
    const d = deps(c);
    const entered = await enterAsGuest(d, c.req.valid("param").token, c.req.valid("json").name);
    setCookie(c, GUEST_COOKIE, entered.cookie, {
      httpOnly: true,
      sameSite: "Lax",
      secure: publicBase(d).startsWith("https:"),
      path: "/",
      expires: entered.expires,
    });
    return c.json(entered.guest, 200);
  });
  return r;
}
