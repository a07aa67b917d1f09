/** Threads on a doc: opening, reading, messages, decisions, blocking and status. */
import { createRoute } from "@hono/zod-openapi";
import { createRouter, errorResponses, jsonBody, jsonResponse, type Router } from "../../http.js";
import { DocIdParams, ThreadIdParams } from "../../schemas/params.js";
import {
  BlockingBodySchema,
  DecisionBodySchema,
  MessageSchema,
  NewMessageBodySchema,
  NewThreadBodySchema,
  ThreadListSchema,
  ThreadSchema,
  ThreadStatusBodySchema,
} from "../../schemas/threads.js";
import { stub } from "../stub.js";

const tags = ["threads"];

export const listThreads = createRoute({
  method: "get",
  path: "/docs/{docId}/threads",
  operationId: "listThreads",
  summary: "threads of a bundle, open first",
  tags,
  request: { params: DocIdParams },
  responses: { 200: jsonResponse(ThreadListSchema, "Threads, open first"), ...errorResponses },
});

export const openThread = createRoute({
  method: "post",
  path: "/docs/{docId}/threads",
  operationId: "openThread",
  summary: "open a thread anchored to text, a section or a finding; a guest opens threads for humans only",
  tags,
  request: { params: DocIdParams, body: jsonBody(NewThreadBodySchema) },
  responses: { 201: jsonResponse(ThreadSchema, "The new thread"), ...errorResponses },
});

export const getThread = createRoute({
  method: "get",
  path: "/threads/{threadId}",
  operationId: "getThread",
  summary: "a thread with its messages",
  tags,
  request: { params: ThreadIdParams },
  responses: { 200: jsonResponse(ThreadSchema, "The thread"), ...errorResponses },
});

export const postMessage = createRoute({
  method: "post",
  path: "/threads/{threadId}/messages",
  operationId: "postMessage",
  summary: "post a message; in a thread for the AI, the AI answers with sources",
  tags,
  request: { params: ThreadIdParams, body: jsonBody(NewMessageBodySchema) },
  responses: {
    201: jsonResponse(MessageSchema, "The message; an AI answer follows in the thread"),
    ...errorResponses,
  },
});

export const markDecision = createRoute({
  method: "post",
  path: "/threads/{threadId}/decision",
  operationId: "markDecision",
  summary: "mark a message as the thread's decision",
  tags,
  request: { params: ThreadIdParams, body: jsonBody(DecisionBodySchema) },
  responses: { 200: jsonResponse(ThreadSchema, "The thread"), ...errorResponses },
});

export const setThreadBlocking = createRoute({
  method: "put",
  path: "/threads/{threadId}/blocking",
  operationId: "setThreadBlocking",
  summary: "mark the thread blocking or not",
  tags,
  request: { params: ThreadIdParams, body: jsonBody(BlockingBodySchema) },
  responses: { 200: jsonResponse(ThreadSchema, "The thread"), ...errorResponses },
});

export const setThreadStatus = createRoute({
  method: "put",
  path: "/threads/{threadId}/status",
  operationId: "setThreadStatus",
  summary: "resolve or reopen the thread",
  tags,
  request: { params: ThreadIdParams, body: jsonBody(ThreadStatusBodySchema) },
  responses: { 200: jsonResponse(ThreadSchema, "The thread"), ...errorResponses },
});

export default function threadRoutes(): Router {
  const r = createRouter();
  stub(r, listThreads);
  stub(r, openThread);
  stub(r, getThread);
  stub(r, postMessage);
  stub(r, markDecision);
  stub(r, setThreadBlocking);
  stub(r, setThreadStatus);
  return r;
}
