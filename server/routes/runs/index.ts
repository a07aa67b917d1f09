/** Review runs: starting and following them, their findings, claims, questions, report and fixes. */
import { createRoute, z } from "@hono/zod-openapi";
import { createRouter, deps, errorResponses, jsonBody, jsonResponse, type Router } from "../../http.js";
import { docVerdict } from "../../runs.js";
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
import { eventStreamResponse, htmlResponse } from "../stub.js";
import { caller } from "../../auth/actor.js";
import { followEvents } from "./events.js";
import { reviewReportHtml } from "./report-html.js";

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
  responses: {
    202: jsonResponse(RunSchema, "The queued run"),
    ...errorResponses,
  },
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
    await store.refreshBundle(await store.bundleIdOfDoc(docId));
    await runs.settled(docId);
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
  r.openapi(startRun, async (c) => {
    const { docId } = c.req.valid("param");
    const row = await deps(c).review.start(docId, caller(c).id);
    return c.json(runView(row, 0), 202);
  });
  r.openapi(reviewFiles, async (c) => {
    const body = c.req.valid("json");
    const result = await deps(c).review.adhoc(body, caller(c).id);
    return c.json(result, 200);
  });
  r.openapi(getReviewReport, async (c) => {
    const { reviewId } = c.req.valid("param");
    const result = await deps(c).review.adhocResult(reviewId);
    return c.html(reviewReportHtml(result), 200);
  });
  r.openapi(estimateRun, async (c) => {
    const { docId } = c.req.valid("param");
    return c.json(await deps(c).review.estimate(docId), 200);
  });
  r.openapi(followRun, async (c) => {
    const { runId } = c.req.valid("param");
    return followEvents(c, runId);
  });
  r.openapi(listClaims, async (c) => {
    const { runId } = c.req.valid("param");
    return c.json({ items: await deps(c).review.claims(runId) }, 200);
  });
  r.openapi(listQuestions, async (c) => {
    const { runId } = c.req.valid("param");
    return c.json({ items: await deps(c).review.questions(runId) }, 200);
  });
  r.openapi(getRun, async (c) => {
    const { runId } = c.req.valid("param");
    const { runs } = deps(c);
    const row = await runs.get(runId);
    return c.json(runView(row, (await runs.findingCounts([runId])).get(runId) ?? 0), 200);
  });
  r.openapi(getTour, async (c) => {
    const { docId } = c.req.valid("param");
    return c.json({ items: await deps(c).review.tour(docId) }, 200);
  });
  r.openapi(summarizeDiff, async (c) => {
    const { docId } = c.req.valid("param");
    const { from, to } = c.req.valid("json");
    return c.json(await deps(c).review.diffSummary(docId, from, to), 200);
  });
  r.openapi(getRunReport, async (c) => {
    const { runId } = c.req.valid("param");
    return c.json(await deps(c).review.report(runId), 200);
  });
  r.openapi(suggestFix, async (c) => {
    const { runId, findingId } = c.req.valid("param");
    return c.json(await deps(c).review.fix(runId, findingId), 200);
  });
  r.openapi(acceptFix, async (c) => {
    const { runId, findingId } = c.req.valid("param");
    const { base_version } = c.req.valid("query");
    const { runs } = deps(c);
    const result = await deps(c).review.acceptFix(runId, findingId, base_version, caller(c).id);
    const run = await runs.get(runId);
    const lint = await runs.lintVersion(run.bundleId, run.docId, result.version.id, result.version.number);
    const verdict = docVerdict(lint, result.version.number);
    return c.json(verdict ? { ...result, verdict } : result, 200);
  });
  r.openapi(listFindings, async (c) => {
    const { runId } = c.req.valid("param");
    const rows = await deps(c).runs.findings(runId);
    return c.json({ items: rows.map(findingView) }, 200);
  });
  return r;
}
