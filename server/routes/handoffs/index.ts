/** Handoff: build packets (JSON and .zip), the handoff list, and the builder's report. */
import { createRoute } from "@hono/zod-openapi";
import { createRouter, deps, errorResponses, jsonBody, jsonResponse, type Router } from "../../http.js";
import { caller } from "../../auth/actor.js";
import { listHandoffs as list, reportHandoff as report, takeHandoff as take } from "../../handoff/service.js";
import { zipPacket } from "../../../node/handoff-packet.js";
import {
  BuildPacketSchema,
  HandoffBodySchema,
  HandoffReportBodySchema,
  HandoffReportSchema,
  HandoffSchema,
} from "../../schemas/handoffs.js";
import { DocIdParams, HandoffIdParams, listOf } from "../../schemas/params.js";
import { zipResponse } from "../stub.js";

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
  r.openapi(reportHandoff, async (c) => {
    const { handoffId } = c.req.valid("param");
    const body = c.req.valid("json");
    return c.json(await report(deps(c), handoffId, body, caller(c)), 201);
  });
  r.openapi(listHandoffs, async (c) => {
    const { docId } = c.req.valid("param");
    return c.json({ items: await list(deps(c), docId) }, 200);
  });
  r.openapi(takeHandoff, async (c) => {
    const { docId } = c.req.valid("param");
    const body = (c.req.valid("json") as { acknowledged?: boolean; label?: string } | undefined) ?? {};
    return c.json(await take(deps(c), docId, body, caller(c)), 200);
  });
  r.openapi(takeHandoffZip, async (c) => {
    const { docId } = c.req.valid("param");
    const body = (c.req.valid("json") as { acknowledged?: boolean; label?: string } | undefined) ?? {};
    const packet = await take(deps(c), docId, body, caller(c));
    const name = `${packet.slug.replace(/[^A-Za-z0-9._-]+/g, "-")}-handoff.zip`;
    return c.body(Buffer.from(zipPacket(packet)), 200, {
      "content-type": "application/zip",
      "content-disposition": `attachment; filename="${name}"`,
    });
  });
  return r;
}
