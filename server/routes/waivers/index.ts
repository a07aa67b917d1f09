/** Waivers of findings, acknowledgements, and verification waivers. */
import { createRoute } from "@hono/zod-openapi";
import { createRouter, errorResponses, jsonBody, jsonResponse, type Router } from "../../http.js";
import { DocIdParams, WaiverIdParams } from "../../schemas/params.js";
import {
  ApproveWaiverBodySchema,
  NewWaiverBodySchema,
  RejectWaiverBodySchema,
  VerificationWaiverBodySchema,
  WaiverListSchema,
  WaiverSchema,
  WithdrawAcknowledgementBodySchema,
} from "../../schemas/waivers.js";
import { stub } from "../stub.js";
import { verificationWaiverRoute } from "../verifications/waivers.js";

const tags = ["waivers"];

export const requestVerificationWaiver = createRoute({
  method: "post",
  path: "/docs/{docId}/verification-waivers",
  operationId: "requestVerificationWaiver",
  summary: "ask to excuse one trace ID in one code repo; never goes in the sidecar",
  tags,
  request: { params: DocIdParams, body: jsonBody(VerificationWaiverBodySchema) },
  responses: { 201: jsonResponse(WaiverSchema, "The requested waiver"), ...errorResponses },
});

export const listWaivers = createRoute({
  method: "get",
  path: "/docs/{docId}/waivers",
  operationId: "listWaivers",
  summary: "waivers of a bundle",
  tags,
  request: { params: DocIdParams },
  responses: { 200: jsonResponse(WaiverListSchema, "Waivers and acknowledgements"), ...errorResponses },
});

export const requestWaiver = createRoute({
  method: "post",
  path: "/docs/{docId}/waivers",
  operationId: "requestWaiver",
  summary: "request a waiver for one finding, with a reason of at least 20 characters",
  tags,
  request: { params: DocIdParams, body: jsonBody(NewWaiverBodySchema) },
  responses: { 201: jsonResponse(WaiverSchema, "The requested waiver"), ...errorResponses },
});

export const withdrawAcknowledgement = createRoute({
  method: "post",
  path: "/docs/{docId}/acknowledgements/withdraw",
  operationId: "withdrawAcknowledgement",
  summary: "withdraw one acknowledgement (trace entry or standalone); takes effect at once",
  tags,
  request: { params: DocIdParams, body: jsonBody(WithdrawAcknowledgementBodySchema) },
  responses: { 200: jsonResponse(WaiverSchema, "The acknowledgement, now `withdrawn`"), ...errorResponses },
});

export const approveWaiver = createRoute({
  method: "post",
  path: "/waivers/{waiverId}/approve",
  operationId: "approveWaiver",
  summary: "approve a waiver under the profile's policy",
  tags,
  request: { params: WaiverIdParams, body: { ...jsonBody(ApproveWaiverBodySchema), required: false } },
  responses: {
    200: jsonResponse(WaiverSchema, "The waiver; `approved` after the final approval"),
    ...errorResponses,
  },
});

export const rejectWaiver = createRoute({
  method: "post",
  path: "/waivers/{waiverId}/reject",
  operationId: "rejectWaiver",
  summary: "reject a waiver with a decision reason",
  tags,
  request: { params: WaiverIdParams, body: jsonBody(RejectWaiverBodySchema) },
  responses: { 200: jsonResponse(WaiverSchema, "The waiver, `rejected`"), ...errorResponses },
});

export default function waiverRoutes(): Router {
  const r = createRouter();
  verificationWaiverRoute(r, requestVerificationWaiver);
  stub(r, listWaivers);
  stub(r, requestWaiver);
  stub(r, withdrawAcknowledgement);
  stub(r, approveWaiver);
  stub(r, rejectWaiver);
  return r;
}
