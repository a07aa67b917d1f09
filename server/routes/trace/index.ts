/** Traceability: the trace view, links, suggested trace IDs, covering a gap, link suggestions. */
import { createRoute } from "@hono/zod-openapi";
import { createRouter, deps, errorResponses, jsonBody, jsonResponse, type Router } from "../../http.js";
import { NotFoundError } from "../../errors.js";
import { suggestLinks as suggestLinkRule } from "../../../core/trace/suggest.js";
import { WriteResultSchema } from "../../schemas/common.js";
import { BaseVersionQuery, DocIdParams } from "../../schemas/params.js";
import {
  CoverBodySchema,
  InsertTraceIdsBodySchema,
  LinkSuggestBodySchema,
  LinkSuggestionsSchema,
  RemoveLinkQuery,
  TraceSchema,
} from "../../schemas/trace.js";
import { caller } from "../../auth/actor.js";
import { decide } from "../../auth/permissions.js";
import { loadGraph } from "../../trace/load.js";
import { traceView } from "../../trace/view.js";
import {
  coverTraceId as cover,
  insertTraceIds as insertIds,
  removeLink as unlink,
} from "../../trace/edits.js";

const tags = ["trace"];

export const getTrace = createRoute({
  method: "get",
  path: "/docs/{docId}/trace",
  operationId: "getTrace",
  summary: "links, traceability matrices, suggested trace IDs",
  tags,
  request: { params: DocIdParams },
  responses: { 200: jsonResponse(TraceSchema, "The trace view"), ...errorResponses },
});

export const removeLink = createRoute({
  method: "delete",
  path: "/docs/{docId}/links",
  operationId: "removeLink",
  summary: "remove one outgoing link the service holds for the doc",
  tags,
  request: { params: DocIdParams, query: RemoveLinkQuery },
  responses: {
    200: jsonResponse(
      WriteResultSchema,
      "The current version; `changed` false when only an adopted link went",
    ),
    ...errorResponses,
  },
});

export const insertTraceIds = createRoute({
  method: "post",
  path: "/docs/{docId}/trace/ids",
  operationId: "insertTraceIds",
  summary: "insert suggested trace IDs into the main doc",
  tags,
  request: {
    params: DocIdParams,
    query: BaseVersionQuery,
    body: { ...jsonBody(InsertTraceIdsBodySchema), required: false },
  },
  responses: { 200: jsonResponse(WriteResultSchema, "The new version"), ...errorResponses },
});

export const coverTraceId = createRoute({
  method: "post",
  path: "/docs/{docId}/trace/cover",
  operationId: "coverTraceId",
  summary: "answer a coverage gap with `This doc covers it`",
  tags,
  request: { params: DocIdParams, query: BaseVersionQuery, body: jsonBody(CoverBodySchema) },
  responses: {
    200: jsonResponse(WriteResultSchema, "`Covers <ID>.` added at the end of the section"),
    ...errorResponses,
  },
});

export const suggestLinks = createRoute({
  method: "post",
  path: "/links/suggest",
  operationId: "suggestLinks",
  summary: "links offered between docs in one folder",
  tags,
  request: { body: jsonBody(LinkSuggestBodySchema) },
  responses: { 200: jsonResponse(LinkSuggestionsSchema, "Links offered"), ...errorResponses },
});

export default function traceRoutes(): Router {
  const r = createRouter();
  r.openapi(getTrace, async (c) => {
    const { docId } = c.req.valid("param");
    const d = deps(c);
    await d.store.refreshBundle(await d.store.bundleIdOfDoc(docId));
    // An archived doc is left out of the list the graph is read from, and takes no change.
    const rec = await d.store.doc(docId);
    const archived = rec.bundle.archived === true;
    const loaded = await loadGraph(d.store, d.profiles, d.db, archived ? rec : undefined);
    const editable =
      !archived &&
      decide({
        mode: d.mode,
        actor: c.get("actor"),
        operation: "POST /docs/{docId}/trace/cover",
      }).allowed;
    return c.json(await traceView(d.db, loaded, loaded.indexOf(docId), editable), 200);
  });
  r.openapi(removeLink, async (c) => {
    const { docId } = c.req.valid("param");
    const { base_version, kind, target_ref } = c.req.valid("query");
    const target = { d: deps(c), docId, base: base_version, author: caller(c).id };
    return c.json(await unlink(target, kind, target_ref), 200);
  });
  r.openapi(insertTraceIds, async (c) => {
    const { docId } = c.req.valid("param");
    const { base_version } = c.req.valid("query");
    const body = c.req.valid("json") as { ids?: string[] } | undefined;
    const target = { d: deps(c), docId, base: base_version, author: caller(c).id };
    return c.json(await insertIds(target, body?.ids), 200);
  });
  r.openapi(coverTraceId, async (c) => {
    const { docId } = c.req.valid("param");
    const { base_version } = c.req.valid("query");
    const { trace_id, section } = c.req.valid("json");
    const target = { d: deps(c), docId, base: base_version, author: caller(c).id };
    return c.json(await cover(target, trace_id, section), 200);
  });
  r.openapi(suggestLinks, async (c) => {
    const { docs, source_id, local } = c.req.valid("json");
    const d = deps(c);
    // No repohost source exists until sources are built.
    if (source_id !== undefined) throw new NotFoundError("source", source_id);
    const all = [...docs];
    if (local && d.mode === "local") {
      const named = new Set(docs.map((x) => x.path));
      for (const { bundle, doc } of await d.store.listBundles({ limit: 100_000 })) {
        const path = bundle.slug === "." ? doc.path : `${bundle.slug}/${doc.path}`;
        if (!named.has(path)) all.push({ path, profile: doc.profileKey });
      }
    }
    const asked = new Set(docs.map((x) => x.path));
    const items = suggestLinkRule(all, (key) => d.profiles.get(key)?.upstream).filter((l) =>
      asked.has(l.from),
    );
    return c.json({ items }, 200);
  });
  return r;
}
