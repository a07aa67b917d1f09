/** Who can see a bundle: access, visibility and the share link of a bundle. */
import { createRoute } from "@hono/zod-openapi";
import { createRouter, deps, errorResponses, jsonBody, jsonResponse, type Router } from "../../http.js";
import {
  BundleAccessSchema,
  NewShareLinkBodySchema,
  ShareLinkCreatedSchema,
  VisibilityBodySchema,
} from "../../schemas/access.js";
import { BundleIdParams } from "../../schemas/params.js";
import { noContent } from "../stub.js";
import { caller } from "../../auth/actor.js";
import {
  bundleAccess,
  createShareLink as newShareLink,
  revokeShareLink as revokeLink,
  setVisibility,
} from "../../auth/share-links.js";

const tags = ["access"];

export const getBundleAccess = createRoute({
  method: "get",
  path: "/bundles/{bundleId}/access",
  operationId: "getBundleAccess",
  summary: "who can see the bundle, and its share link state",
  tags,
  request: { params: BundleIdParams },
  responses: { 200: jsonResponse(BundleAccessSchema, "Access of the bundle"), ...errorResponses },
});

export const setBundleVisibility = createRoute({
  method: "put",
  path: "/bundles/{bundleId}/visibility",
  operationId: "setBundleVisibility",
  summary: "set visibility; leaving link visibility revokes the share link",
  tags,
  request: { params: BundleIdParams, body: jsonBody(VisibilityBodySchema) },
  responses: {
    200: jsonResponse(BundleAccessSchema, "Access of the bundle after the change"),
    ...errorResponses,
  },
});

export const createShareLink = createRoute({
  method: "post",
  path: "/bundles/{bundleId}/share",
  operationId: "createShareLink",
  summary: "make a new share link; replaces the old one, sets link visibility; URL appears one time",
  tags,
  request: {
    params: BundleIdParams,
    body: { ...jsonBody(NewShareLinkBodySchema), required: false },
  },
  responses: { 201: jsonResponse(ShareLinkCreatedSchema, "The new link"), ...errorResponses },
});

export const revokeShareLink = createRoute({
  method: "delete",
  path: "/bundles/{bundleId}/share",
  operationId: "revokeShareLink",
  summary: "revoke the share link",
  tags,
  request: { params: BundleIdParams },
  responses: { 204: noContent("Revoked; the link is not found from now on"), ...errorResponses },
});

export default function accessRoutes(): Router {
  const r = createRouter();
  r.openapi(getBundleAccess, async (c) =>
    c.json(await bundleAccess(deps(c), c.req.valid("param").bundleId), 200),
  );
  r.openapi(setBundleVisibility, async (c) => {
    const { bundleId } = c.req.valid("param");
    return c.json(await setVisibility(deps(c), bundleId, c.req.valid("json").visibility), 200);
  });
  r.openapi(createShareLink, async (c) => {
    const { bundleId } = c.req.valid("param");
    const body = (c.req.valid("json") as { expires_in_days?: number } | undefined) ?? {};
    return c.json(await newShareLink(deps(c), bundleId, caller(c), body.expires_in_days), 201);
  });
  r.openapi(revokeShareLink, async (c) => {
    const { bundleId } = c.req.valid("param");
    await bundleAccess(deps(c), bundleId); // 404 for a bundle that does not exist
    await revokeLink(deps(c), bundleId);
    return c.body(null, 204);
  });
  return r;
}
