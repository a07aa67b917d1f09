/**
 * Accounts and sign-in (not in the contract; docs/accounts.md): sign-up with an invite,
 * sign-in, sign-out, password reset, and the caller's API tokens.
 */
import { z } from "@hono/zod-openapi";
import { Uuid } from "./common.js";
import { PASSWORD_MAX, PASSWORD_MIN } from "../auth/secrets.js";

const password = z
  .string()
  .max(4096)
  .openapi({
    description: `${PASSWORD_MIN} to ${PASSWORD_MAX} characters, at least 5 different ones, not containing your email address or name`,
  });
const secretToken = z.string().min(1).max(200);

export const SignupBodySchema = z
  .strictObject({
    token: secretToken.openapi({ description: "the token of the invite link (`/invite/<token>`)" }),
    name: z.string().trim().min(1).max(200),
    email: z.string().min(3).max(254),
    password,
  })
  .openapi("SignupRequest");

export const SignInBodySchema = z
  .strictObject({ email: z.string().min(1).max(254), password: z.string().min(1).max(4096) })
  .openapi("SignInRequest");

export const ResetBodySchema = z
  .strictObject({
    token: secretToken.openapi({ description: "the token of the reset link (`/reset/<token>`)" }),
    password,
  })
  .openapi("ResetPasswordRequest");

export const NewTokenBodySchema = z
  .strictObject({
    name: z.string().trim().min(1).max(200).openapi({ description: "what the token is for, e.g. `CI`" }),
    expires_in_days: z.int().min(1).max(365).optional().openapi({ default: 90 }),
  })
  .openapi("NewApiToken");

export const ApiTokenSchema = z
  .object({
    id: Uuid,
    name: z.string(),
    last4: z.string().openapi({ description: "the token's last 4 characters" }),
    created_at: z.iso.datetime(),
    expires_at: z.iso.datetime(),
    last_used_at: z.iso.datetime().optional().openapi({ description: "to within an hour" }),
  })
  .openapi("ApiToken", { description: "the token itself is never listed; it appears once, when made" });

export const ApiTokenCreatedSchema = ApiTokenSchema.extend({
  token: z
    .string()
    .openapi({ description: "send as `Authorization: Bearer <token>`; returned this one time only" }),
}).openapi("ApiTokenCreated");

export const TokenIdParams = z.object({ tokenId: Uuid.openapi({ param: { name: "tokenId", in: "path" } }) });
