/** Review runs: starting and following them, their findings, claims, questions, report and fixes. */
import { createRoute, z } from "@hono/zod-openapi";
import { createRouter, deps, errorResponses, jsonBody, jsonResponse, type Router } from "../../http.js";
import { decodeRunCursor, encodeRunCursor, findingView, runView } from "./views.js";
import { WriteResultSchema } from "../../schemas/common.js";
import {
  AdHocReviewBodySchema,
  AdHocReviewSchema,
  BuildQuestionListSchema,
  ClaimSchema,
  DiffSummaryBodySchema,
  DiffSummarySchema,
  FindingSchema,
  FixSchema,
  RunEstimateSchema,
  RunReportSchema,
  RunSchema,
  TourPointSchema,
} from "../../schemas/runs.js";
import {
  BaseVersionQuery,
  DocIdParams,
  PageQuery,
  ReviewIdParams,
  RunFindingParams,
  RunIdParams,
  listOf,
} from "../../schemas/params.js";
import { eventStreamResponse, htmlResponse, stub } from "../stub.js";

const tags = ["runs"];

export const listRuns = createRoute({
  method: "get",
  path: "/docs/{docId}/runs",
  operationId: "listRuns",
  summary: "review runs of a bundle, newest first",
  tags,
  request: { params: DocIdParams, query: PageQuery },
  responses: { 200: jsonResponse(listOf(RunSchema, "RunList"), "Runs, newest first"), ...errorResponses },
});

export const startRun = createRoute({
  method: "post",
  path: "/docs/{docId}/runs",
  operationId: "startRun",
  summary: "start a full review of the current version",
  tags,
  request: { params: DocIdParams },
  responses: { 202: jsonResponse(RunSchema, "The queued run"), ...errorResponses },
});

export const reviewFiles = createRoute({
  method: "post",
  path: "/reviews",
  operationId: "reviewFiles",
  summary:
    "review bundle files not saved on the server; the server keeps the files and result for 90 days for the report; changes no bundle",
  tags,
  request: { body: jsonBody(AdHocReviewBodySchema) },
  responses: { 200: jsonResponse(AdHocReviewSchema, "The review"), ...errorResponses },
});

export const getReviewReport = createRoute({
  method: "get",
  path: "/reviews/{reviewId}/report",
  operationId: "getReviewReport",
  summary: "self-contained HTML report of a review from POST /reviews",
  tags,
  request: { params: ReviewIdParams },
  responses: { 200: htmlResponse("The report"), ...errorResponses },
});

export const estimateRun = createRoute({
  method: "get",
  path: "/docs/{docId}/runs/estimate",
  operationId: "estimateRun",
  summary: "estimate tokens and cost of a full review before it starts",
  tags,
  request: { params: DocIdParams },
  responses: { 200: jsonResponse(RunEstimateSchema, "The estimate"), ...errorResponses },
});

export const followRun = createRoute({
  method: "get",
  path: "/runs/{runId}/events",
  operationId: "followRun",
  summary: "follow a run's progress by stage, as server-sent events",
  tags,
  request: { params: RunIdParams },
  responses: {
    200: eventStreamResponse("Progress by stage until the run is done or failed"),
    ...errorResponses,
  },
});

export const listClaims = createRoute({
  method: "get",
  path: "/runs/{runId}/claims",
  operationId: "listClaims",
  summary: "a run's factual claims and their labels",
  tags,
  request: { params: RunIdParams },
  responses: {
    200: jsonResponse(
      z.object({ items: z.array(ClaimSchema) }).openapi("ClaimList"),
      "Claims in document order",
    ),
    ...errorResponses,
  },
});

export const listQuestions = createRoute({
  method: "get",
  path: "/runs/{runId}/questions",
  operationId: "listQuestions",
  summary: "a run's build questions, reader answers and results",
  tags,
  request: { params: RunIdParams },
  responses: { 200: jsonResponse(BuildQuestionListSchema, "Build questions, in order"), ...errorResponses },
});

export const getRun = createRoute({
  method: "get",
  path: "/runs/{runId}",
  operationId: "getRun",
  summary: "one review run and its verdict",
  tags,
  request: { params: RunIdParams },
  responses: { 200: jsonResponse(RunSchema, "The run"), ...errorResponses },
});

export const getTour = createRoute({
  method: "get",
  path: "/docs/{docId}/tour",
  operationId: "getTour",
  summary: "ordered points of the current review that need a human decision",
  tags,
  request: { params: DocIdParams },
  responses: {
    200: jsonResponse(z.object({ items: z.array(TourPointSchema) }).openapi("Tour"), "Tour points, in order"),
    ...errorResponses,
  },
});

export const summarizeDiff = createRoute({
  method: "post",
  path: "/docs/{docId}/diff/summary",
  operationId: "summarizeDiff",
  summary: "summarize what changed in meaning between two versions, and the change in findings",
  tags,
  request: { params: DocIdParams, body: jsonBody(DiffSummaryBodySchema) },
  responses: { 200: jsonResponse(DiffSummarySchema, "The summary"), ...errorResponses },
});

export const getRunReport = createRoute({
  method: "get",
  path: "/runs/{runId}/report",
  operationId: "getRunReport",
  summary: "run report: stage timings, reader diversity, findings by category",
  tags,
  request: { params: RunIdParams },
  responses: { 200: jsonResponse(RunReportSchema, "The report"), ...errorResponses },
});

export const suggestFix = createRoute({
  method: "post",
  path: "/runs/{runId}/findings/{findingId}/fix",
  operationId: "suggestFix",
  summary: "ask the AI for a patch for one finding; the doc does not change",
  tags,
  request: { params: RunFindingParams },
  responses: { 200: jsonResponse(FixSchema, "The suggested patch"), ...errorResponses },
});

export const acceptFix = createRoute({
  method: "post",
  path: "/runs/{runId}/findings/{findingId}/fix/accept",
  operationId: "acceptFix",
  summary: "apply the finding's suggested patch as a new version",
  tags,
  request: { params: RunFindingParams, query: BaseVersionQuery },
  responses: { 200: jsonResponse(WriteResultSchema, "The new version"), ...errorResponses },
});

export const listFindings = createRoute({
  method: "get",
  path: "/runs/{runId}/findings",
  operationId: "listFindings",
  summary: "findings of a run, in document order",
  tags,
  request: { params: RunIdParams },
  responses: {
    200: jsonResponse(
      z.object({ items: z.array(FindingSchema) }).openapi("FindingList"),
      "Findings in document order",
    ),
    ...errorResponses,
  },
});

export default function runRoutes(): Router {
  const r = createRouter();
  r.openapi(listRuns, async (c) => {
    const { docId } = c.req.valid("param");
    const { cursor, limit = 50 } = c.req.valid("query");
    const { store, runs } = deps(c);
    await store.refreshBundle(store.bundleIdOfDoc(docId));
    await runs.idle();
    const rows = await runs.list(docId, {
      limit: limit + 1,
      before: cursor === undefined ? undefined : decodeRunCursor(cursor),
    });
    const page = rows.slice(0, limit);
    const findingCounts = await runs.findingCounts(page.map((p) => p.id));
    const items = page.map((row) => runView(row, findingCounts.get(row.id) ?? 0));
    const last = page[page.length - 1];
    return c.json(
      rows.length > limit && last ? { items, next_cursor: encodeRunCursor(last) } : { items },
      200,
    );
  });
  stub(r, startRun);
  stub(r, reviewFiles);
  stub(r, getReviewReport);
  stub(r, estimateRun);
  stub(r, followRun);
  stub(r, listClaims);
  stub(r, listQuestions);
  r.openapi(getRun, async (c) => {
    const { runId } = c.req.valid("param");
    const { runs } = deps(c);
    const row = await runs.get(runId);
    return c.json(runView(row, (await runs.findingCounts([runId])).get(runId) ?? 0), 200);
  });
  stub(r, getTour);
  stub(r, summarizeDiff);
  stub(r, getRunReport);
  stub(r, suggestFix);
  stub(r, acceptFix);
  r.openapi(listFindings, async (c) => {
    const { runId } = c.req.valid("param");
    const rows = await deps(c).runs.findings(runId);
    return c.json({ items: rows.map(findingView) }, 200);
  });
  return r;
}
