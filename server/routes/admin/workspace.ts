/** Administration of the workspace: settings, invite and reset links, the token budget. */
import { createRoute } from "@hono/zod-openapi";
import { errorResponses, jsonBody, jsonResponse } from "../../http.js";
import {
  BudgetBodySchema,
  BudgetSchema,
  InviteCreatedSchema,
  InviteSchema,
  NewInviteBodySchema,
  NewResetLinkBodySchema,
  ResetLinkSchema,
  SettingsSchema,
} from "../../schemas/admin.js";
import { InviteIdParams, listOf } from "../../schemas/params.js";

const tags = ["admin"];

export const getSettings = createRoute({
  method: "get",
  path: "/admin/settings",
  operationId: "getSettings",
  summary: "workspace settings",
  tags,
  responses: { 200: jsonResponse(SettingsSchema, "The settings"), ...errorResponses },
});

export const putSettings = createRoute({
  method: "put",
  path: "/admin/settings",
  operationId: "putSettings",
  summary: "change workspace settings",
  tags,
  request: { body: jsonBody(SettingsSchema) },
  responses: { 200: jsonResponse(SettingsSchema, "The settings after the change"), ...errorResponses },
});

export const listInvites = createRoute({
  method: "get",
  path: "/admin/invites",
  operationId: "listInvites",
  summary: "list invite links, newest first",
  tags,
  responses: {
    200: jsonResponse(listOf(InviteSchema, "InviteList"), "Invites, newest first"),
    ...errorResponses,
  },
});

export const createInvite = createRoute({
  method: "post",
  path: "/admin/invites",
  operationId: "createInvite",
  summary: "make a single-use invite link with a role; URL appears one time",
  tags,
  request: { body: jsonBody(NewInviteBodySchema) },
  responses: { 201: jsonResponse(InviteCreatedSchema, "The invite with its URL"), ...errorResponses },
});

export const revokeInvite = createRoute({
  method: "post",
  path: "/admin/invites/{inviteId}/revoke",
  operationId: "revokeInvite",
  summary: "revoke an unused invite link",
  tags,
  request: { params: InviteIdParams },
  responses: { 200: jsonResponse(InviteSchema, "The invite, `revoked`"), ...errorResponses },
});

export const createResetLink = createRoute({
  method: "post",
  path: "/admin/reset-links",
  operationId: "createResetLink",
  summary: "make a one-time password reset link for a user; URL appears one time",
  tags,
  request: { body: jsonBody(NewResetLinkBodySchema) },
  responses: { 201: jsonResponse(ResetLinkSchema, "The link"), ...errorResponses },
});

export const getBudget = createRoute({
  method: "get",
  path: "/admin/budget",
  operationId: "getBudget",
  summary: "this month's token budget and use",
  tags,
  responses: { 200: jsonResponse(BudgetSchema, "Budget and use"), ...errorResponses },
});

export const putBudget = createRoute({
  method: "put",
  path: "/admin/budget",
  operationId: "putBudget",
  summary: "set the monthly token limit; no limit means no budget",
  tags,
  request: { body: jsonBody(BudgetBodySchema) },
  responses: { 200: jsonResponse(BudgetSchema, "Budget and use"), ...errorResponses },
});
