/** Threads on a doc: opening, reading, messages, decisions, blocking and status. */
import { createRoute } from "@hono/zod-openapi";
import { createRouter, deps, errorResponses, jsonBody, jsonResponse, type Router } from "../../http.js";
import { caller } from "../../auth/actor.js";
import { authorOf } from "../../threads/service.js";
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
  r.openapi(listThreads, async (c) => {
    const { docId } = c.req.valid("param");
    return c.json({ items: await deps(c).threads.list(docId) }, 200);
  });
  r.openapi(openThread, async (c) => {
    const { docId } = c.req.valid("param");
    const body = c.req.valid("json");
    return c.json(await deps(c).threads.open(authorOf(caller(c)), docId, body), 201);
  });
  r.openapi(getThread, async (c) => {
    const { threadId } = c.req.valid("param");
    return c.json(await deps(c).threads.get(threadId), 200);
  });
  r.openapi(postMessage, async (c) => {
    const { threadId } = c.req.valid("param");
    const { body } = c.req.valid("json");
    return c.json(await deps(c).threads.post(authorOf(caller(c)), threadId, body), 201);
  });
  r.openapi(markDecision, async (c) => {
    const { threadId } = c.req.valid("param");
    const { message_id } = c.req.valid("json");
    return c.json(await deps(c).threads.decide(threadId, message_id), 200);
  });
  r.openapi(setThreadBlocking, async (c) => {
    const { threadId } = c.req.valid("param");
    const { blocking } = c.req.valid("json");
    return c.json(await deps(c).threads.setBlocking(threadId, blocking), 200);
  });
  r.openapi(setThreadStatus, async (c) => {
    const { threadId } = c.req.valid("param");
    const { open } = c.req.valid("json");
    return c.json(await deps(c).threads.setStatus(threadId, open), 200);
  });
  return r;
}
