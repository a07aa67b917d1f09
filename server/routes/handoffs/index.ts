/** Handoff: build packets (JSON and .zip), the handoff list, and the builder's report. */
import { createRoute } from "@hono/zod-openapi";
import { createRouter, errorResponses, jsonBody, jsonResponse, type Router } from "../../http.js";
import {
  BuildPacketSchema,
  HandoffBodySchema,
  HandoffReportBodySchema,
  HandoffReportSchema,
  HandoffSchema,
} from "../../schemas/handoffs.js";
import { DocIdParams, HandoffIdParams, listOf } from "../../schemas/params.js";
import { stub, zipResponse } from "../stub.js";

const tags = ["handoffs"];

export const reportHandoff = createRoute({
  method: "post",
  path: "/handoffs/{handoffId}/report",
  operationId: "reportHandoff",
  summary: "report what the build learned about the doc; a blocked report opens a blocking thread",
  tags,
  request: { params: HandoffIdParams, body: jsonBody(HandoffReportBodySchema) },
  responses: { 201: jsonResponse(HandoffReportSchema, "The recorded report"), ...errorResponses },
});

export const listHandoffs = createRoute({
  method: "get",
  path: "/docs/{docId}/handoff",
  operationId: "listHandoffs",
  summary: "handoffs of a bundle, newest first",
  tags,
  request: { params: DocIdParams },
  responses: {
    200: jsonResponse(listOf(HandoffSchema, "HandoffList"), "Handoffs, newest first"),
    ...errorResponses,
  },
});

export const takeHandoff = createRoute({
  method: "post",
  path: "/docs/{docId}/handoff",
  operationId: "takeHandoff",
  summary: "take the build packet of a Build Ready bundle and record the handoff",
  tags,
  request: { params: DocIdParams, body: { ...jsonBody(HandoffBodySchema), required: false } },
  responses: { 200: jsonResponse(BuildPacketSchema, "The build packet"), ...errorResponses },
});

export const takeHandoffZip = createRoute({
  method: "post",
  path: "/docs/{docId}/handoff/zip",
  operationId: "takeHandoffZip",
  summary:
    "take the build packet as a .zip file, record the handoff; the .zip holds the files the service's handoff command writes",
  tags,
  request: { params: DocIdParams, body: { ...jsonBody(HandoffBodySchema), required: false } },
  responses: {
    200: zipResponse("The build packet as the files the handoff command writes"),
    ...errorResponses,
  },
});

export default function handoffRoutes(): Router {
  const r = createRouter();
  stub(r, reportHandoff);
  stub(r, listHandoffs);
  stub(r, takeHandoff);
  stub(r, takeHandoffZip);
  return r;
}
