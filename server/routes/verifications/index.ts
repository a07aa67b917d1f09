/** Verification: checking a code repo or a folder against a bundle's trace IDs. */
import { createRoute, z } from "@hono/zod-openapi";
import { createRouter, deps, errorResponses, jsonBody, jsonResponse, type Router } from "../../http.js";
import { caller } from "../../auth/actor.js";
import { followPersisted } from "../../jobs/follow.js";
import { verificationEvents } from "../../db/schema.js";
import { runView } from "../../verify/service.js";
import {
  ResolveTargetBodySchema,
  ResolvedTargetSchema,
  VerificationDefaultSchema,
  VerificationRequestSchema,
  VerificationRunSchema,
} from "../../schemas/verifications.js";
import { DocIdParams, RunIdParams, listOf } from "../../schemas/params.js";
import { eventStreamResponse } from "../stub.js";

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
  r.openapi(listVerifications, async (c) => {
    const { docId } = c.req.valid("param");
    const d = deps(c);
    const rows = await d.verify.list(docId);
    const head = (await d.store.doc(docId)).head.number;
    return c.json({ items: rows.map((row) => runView(row, head)) }, 200);
  });
  r.openapi(startVerification, async (c) => {
    const { docId } = c.req.valid("param");
    const body = c.req.valid("json") ?? {};
    const d = deps(c);
    const row = await d.verify.start(docId, body, caller(c).id);
    return c.json(runView(row, row.versionNumber), 202);
  });
  r.openapi(resolveVerificationTarget, async (c) => {
    const { docId } = c.req.valid("param");
    const { target } = c.req.valid("json");
    const d = deps(c);
    await d.store.doc(docId);
    const plan = await d.verify.plan({ target });
    return c.json(plan.view, 200);
  });
  r.openapi(getVerificationDefaults, async (c) => {
    const { docId } = c.req.valid("param");
    return c.json({ items: await deps(c).verify.defaults(docId) }, 200);
  });
  r.openapi(followVerification, async (c) => {
    const { runId } = c.req.valid("param");
    const d = deps(c);
    await d.verify.get(runId);
    return followPersisted(c, {
      db: d.db,
      bus: d.bus,
      runId,
      table: verificationEvents,
      async state() {
        const now = await d.verify.get(runId);
        return {
          status: now.status,
          data: now.status === "done" ? { verdict: now.verdict } : { error: now.error },
        };
      },
    });
  });
  r.openapi(getVerification, async (c) => {
    const { runId } = c.req.valid("param");
    const d = deps(c);
    const row = await d.verify.get(runId);
    const head = (await d.store.doc(row.docId)).head.number;
    return c.json(runView(row, head), 200);
  });
  return r;
}
