/** Review status and approval, people, the inbox, insights. */
import { createRoute } from "@hono/zod-openapi";
import { createRouter, deps, errorResponses, jsonBody, jsonResponse, type Router } from "../../http.js";
import { DocIdParams, PageQuery } from "../../schemas/params.js";
import {
  ApproveBodySchema,
  InboxReadBodySchema,
  InboxSchema,
  InsightsSchema,
  PeopleSchema,
  ReviewRequestBodySchema,
  ReviewStatusSchema,
} from "../../schemas/status.js";
import { noContent, stub } from "../stub.js";

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
  request: { query: PageQuery },
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
  stub(r, getReviewStatus);
  stub(r, requestReview);
  stub(r, approveDoc);
  r.openapi(listPeople, async (c) => {
    const d = deps(c);
    // Local mode has one implicit admin and no members.
    if (d.mode !== "hosted") return c.json({ items: [] }, 200);
    const people = await d.accounts.people();
    return c.json({ items: people.map(({ id, name, email, role }) => ({ id, name, email, role })) }, 200);
  });
  stub(r, getInbox);
  stub(r, markInboxSeen);
  stub(r, markInboxItemRead);
  stub(r, getInsights);
  return r;
}
