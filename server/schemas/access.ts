/**
 * Share links, guests and bundle visibility (contract sections 3 and 5).
 * The records themselves are "not shown"; see docs/api-decisions.md, "access".
 */
import { z } from "@hono/zod-openapi";
import { Uuid } from "./common.js";

export const Visibility = z.enum(["private", "internal", "link"]);

export const ShareLinkStateSchema = z
  .object({
    active: z.boolean().openapi({ description: "false when there is no link, or it was revoked or expired" }),
    created_at: z.iso.datetime().optional(),
    created_by: z.string().optional(),
    expires_at: z.iso.datetime().optional(),
  })
  .openapi("ShareLinkState");

export const BundleAccessSchema = z
  .looseObject({
    bundle_id: Uuid,
    visibility: Visibility,
    share: ShareLinkStateSchema,
    created_by: z
      .string()
      .nullable()
      .openapi({ description: "the author's id (who created the bundle); null for a bundle found on disk" }),
    audience: z.string().openapi({ description: "who can see the bundle, in words" }),
    people: z.array(z.looseObject({ id: z.string(), name: z.string(), role: z.string() })).openapi({
      description:
        "who can see the bundle besides the workspace's members: the guests inside by the active share link",
    }),
  })
  .openapi("BundleAccess");

export const VisibilityBodySchema = z
  .object({ visibility: Visibility })
  .openapi("VisibilityChange", { description: "leaving `link` revokes the share link" });

export const NewShareLinkBodySchema = z
  .object({
    expires_in_days: z
      .int()
      .min(1)
      .max(365)
      .optional()
      .openapi({ description: "no value: the link does not expire" }),
  })
  .openapi("NewShareLink");

export const ShareLinkCreatedSchema = z
  .object({
    url: z.string().openapi({ description: "the link; returned this one time only" }),
    visibility: z.literal("link"),
    share: ShareLinkStateSchema,
  })
  .openapi("ShareLinkCreated");

/** GET /share/{token}: what a share link opens. */
export const ShareLinkSchema = z
  .looseObject({
    bundle_id: Uuid,
    slug: z.string(),
    title: z.string(),
    doc_id: Uuid.optional().openapi({ description: "the bundle's main spec doc" }),
    expires_at: z.iso.datetime().optional(),
  })
  .openapi("ShareLink");

export const GuestEntryBodySchema = z
  .object({ name: z.string().trim().min(1).max(100).openapi({ description: "display name of the guest" }) })
  .openapi("GuestEntry");

export const GuestSchema = z
  .looseObject({
    id: z.string(),
    name: z.string(),
    kind: z.literal("guest"),
    bundle_id: Uuid,
  })
  .openapi("Guest", { description: "the guest the cookie now names" });
