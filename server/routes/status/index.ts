/** Review status and approval, people, the inbox, insights. */
import { createRoute } from "@hono/zod-openapi";
import { createRouter, deps, errorResponses, jsonBody, jsonResponse, type Router } from "../../http.js";
import { ArchivedParam, DocIdParams, PageQuery } from "../../schemas/params.js";
import {
  ApproveBodySchema,
  InboxReadBodySchema,
  InboxSchema,
  InsightsSchema,
  PeopleSchema,
  ReviewRequestBodySchema,
  ReviewStatusSchema,
} from "../../schemas/status.js";
import { noContent } from "../stub.js";
import { caller } from "../../auth/actor.js";
import { insights } from "../../waivers/insights.js";
import { inboxRoutes } from "./inbox.js";

const tags = ["status"];

export const getReviewStatus = createRoute({
  method: "get",
  path: "/docs/{docId}/status",
  operationId: "getReviewStatus",
  summary: "review status of a bundle",
  tags,
  request: { params: DocIdParams },
  responses: { 200: jsonResponse(ReviewStatusSchema, "The review status"), ...errorResponses },
});

export const requestReview = createRoute({
  method: "post",
  path: "/docs/{docId}/review-request",
  operationId: "requestReview",
  summary: "ask for a review and assign reviewers; a draft moves to in review",
  tags,
  request: { params: DocIdParams, body: jsonBody(ReviewRequestBodySchema) },
  responses: { 200: jsonResponse(ReviewStatusSchema, "The review status"), ...errorResponses },
});

export const approveDoc = createRoute({
  method: "post",
  path: "/docs/{docId}/approve",
  operationId: "approveDoc",
  summary: "approve the current version",
  tags,
  request: { params: DocIdParams, body: { ...jsonBody(ApproveBodySchema), required: false } },
  responses: {
    200: jsonResponse(ReviewStatusSchema, "The review status with the approval"),
    ...errorResponses,
  },
});

export const listPeople = createRoute({
  method: "get",
  path: "/people",
  operationId: "listPeople",
  summary: "workspace members, for reviewers and mentions; empty in local mode",
  tags,
  responses: { 200: jsonResponse(PeopleSchema, "Members"), ...errorResponses },
});

export const getInbox = createRoute({
  method: "get",
  path: "/inbox",
  operationId: "getInbox",
  summary: "the caller's inbox",
  tags,
  request: { query: PageQuery.extend({ archived: ArchivedParam }) },
  responses: { 200: jsonResponse(InboxSchema, "Inbox items, newest first"), ...errorResponses },
});

export const markInboxSeen = createRoute({
  method: "post",
  path: "/inbox/seen",
  operationId: "markInboxSeen",
  summary: "mark the inbox as read up to now",
  tags,
  responses: { 204: noContent("Marked"), ...errorResponses },
});

export const markInboxItemRead = createRoute({
  method: "post",
  path: "/inbox/read",
  operationId: "markInboxItemRead",
  summary: "mark one inbox item read",
  tags,
  request: { body: jsonBody(InboxReadBodySchema) },
  responses: { 204: noContent("Marked"), ...errorResponses },
});

export const getInsights = createRoute({
  method: "get",
  path: "/insights",
  operationId: "getInsights",
  summary: "metrics per profile; maintainers and admins",
  tags,
  responses: { 200: jsonResponse(InsightsSchema, "Metrics per profile"), ...errorResponses },
});

export default function statusRoutes(): Router {
  const r = createRouter();
  r.openapi(getReviewStatus, async (c) => {
    const { docId } = c.req.valid("param");
    return c.json(await deps(c).waivers.status.status(docId, c.get("actor")), 200);
  });
  r.openapi(requestReview, async (c) => {
    const { docId } = c.req.valid("param");
    const { reviewers, message } = c.req.valid("json");
    return c.json(await deps(c).waivers.status.requestReview(docId, caller(c), reviewers, message), 200);
  });
  r.openapi(approveDoc, async (c) => {
    const { docId } = c.req.valid("param");
    // The body is optional: an empty POST approves the current version.
    const body = (c.req.valid("json") as { base_version?: string; comment?: string } | undefined) ?? {};
    return c.json(await deps(c).waivers.status.approve(docId, caller(c), body), 200);
  });
  r.openapi(listPeople, async (c) => {
    const d = deps(c);
    // Local mode has one implicit admin and no members.
    if (d.mode !== "hosted") return c.json({ items: [] }, 200);
    const people = await d.accounts.people();
    return c.json(
      {
        items: people.map(({ id, name, email, role, github_login }) => ({
          id,
          name,
          email,
          role,
          github_login,
        })),
      },
      200,
    );
  });
  inboxRoutes(r, { getInbox, markInboxSeen, markInboxItemRead });
  r.openapi(getInsights, async (c) => {
    const d = deps(c);
    const items = await insights(
      d.db,
      d.runs,
      d.profiles.list().map((p) => p.key),
    );
    return c.json({ items }, 200);
  });
  return r;
}
