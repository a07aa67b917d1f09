/** Verification: checking a code repo or a folder against a bundle's trace IDs. */
import { createRoute, z } from "@hono/zod-openapi";
import { createRouter, errorResponses, jsonBody, jsonResponse, type Router } from "../../http.js";
import {
  ResolveTargetBodySchema,
  ResolvedTargetSchema,
  VerificationDefaultSchema,
  VerificationRequestSchema,
  VerificationRunSchema,
} from "../../schemas/verifications.js";
import { DocIdParams, RunIdParams, listOf } from "../../schemas/params.js";
import { eventStreamResponse, stub } from "../stub.js";

const tags = ["verifications"];

export const listVerifications = createRoute({
  method: "get",
  path: "/docs/{docId}/verifications",
  operationId: "listVerifications",
  summary: "verification runs of a bundle, newest first",
  tags,
  request: { params: DocIdParams },
  responses: {
    200: jsonResponse(
      listOf(VerificationRunSchema, "VerificationRunList"),
      "Verification runs, newest first",
    ),
    ...errorResponses,
  },
});

export const startVerification = createRoute({
  method: "post",
  path: "/docs/{docId}/verifications",
  operationId: "startVerification",
  summary: "queue a verification of one build against a code repo at one commit, or a folder",
  tags,
  request: { params: DocIdParams, body: { ...jsonBody(VerificationRequestSchema), required: false } },
  responses: {
    202: jsonResponse(VerificationRunSchema, "The queued run (`status` `queued`)"),
    ...errorResponses,
  },
});

export const resolveVerificationTarget = createRoute({
  method: "post",
  path: "/docs/{docId}/verifications/resolve",
  operationId: "resolveVerificationTarget",
  summary: "say which repo and commit or folder a pasted target names, before a run starts",
  tags,
  request: { params: DocIdParams, body: jsonBody(ResolveTargetBodySchema) },
  responses: { 200: jsonResponse(ResolvedTargetSchema, "What the target names"), ...errorResponses },
});

export const getVerificationDefaults = createRoute({
  method: "get",
  path: "/docs/{docId}/verifications/defaults",
  operationId: "getVerificationDefaults",
  summary: "targets that prefill the verify field: implemented-by links first, else the repo of the last run",
  tags,
  request: { params: DocIdParams },
  responses: {
    200: jsonResponse(z.object({ items: z.array(VerificationDefaultSchema) }), "Targets, best first"),
    ...errorResponses,
  },
});

export const followVerification = createRoute({
  method: "get",
  path: "/verifications/{runId}/events",
  operationId: "followVerification",
  summary: "follow a verification run by trace ID, as server-sent events",
  tags,
  request: { params: RunIdParams },
  responses: {
    200: eventStreamResponse("Progress by trace ID until the run is done or failed"),
    ...errorResponses,
  },
});

export const getVerification = createRoute({
  method: "get",
  path: "/verifications/{runId}",
  operationId: "getVerification",
  summary: "one verification run with the outcome of each trace ID",
  tags,
  request: { params: RunIdParams },
  responses: { 200: jsonResponse(VerificationRunSchema, "The run"), ...errorResponses },
});

export default function verificationRoutes(): Router {
  const r = createRouter();
  stub(r, listVerifications);
  stub(r, startVerification);
  stub(r, resolveVerificationTarget);
  stub(r, getVerificationDefaults);
  stub(r, followVerification);
  stub(r, getVerification);
  return r;
}
