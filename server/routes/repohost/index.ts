/** Repohost sources and the draft of a repohost bundle (publish, discard). */
import { createRoute } from "@hono/zod-openapi";
import { createRouter, errorResponses, jsonBody, jsonResponse, type Router } from "../../http.js";
import { SpecDocSchema } from "../../schemas/common.js";
import { DocIdParams, SourceIdParams } from "../../schemas/params.js";
import {
  AcceptTypesBodySchema,
  PublishBodySchema,
  PullRequestSchema,
  ResolvedSourceSchema,
  SourceListSchema,
  SourceSchema,
  SourceSkippedListSchema,
  SourceUrlBodySchema,
} from "../../schemas/repohost.js";
import { caller } from "../../auth/actor.js";
import { deps } from "../../http.js";
import { repohostOf } from "../../repohost/routes.js";
import { docView } from "../../views.js";
import { noContent } from "../stub.js";

const tags = ["repohost"];

export const listSources = createRoute({
  method: "get",
  path: "/repohost/sources",
  operationId: "listSources",
  summary: "repos, branches and folders the service reads bundles from",
  tags,
  responses: { 200: jsonResponse(SourceListSchema, "Sources"), ...errorResponses },
});

export const createSource = createRoute({
  method: "post",
  path: "/repohost/sources",
  operationId: "createSource",
  summary: "make a source from a source URL and keep its bundles in step",
  tags,
  request: { body: jsonBody(SourceUrlBodySchema) },
  responses: { 201: jsonResponse(SourceSchema, "The new source"), ...errorResponses },
});

export const resolveSource = createRoute({
  method: "post",
  path: "/repohost/resolve",
  operationId: "resolveSource",
  summary: "read a source URL and say what it names, before the source is made",
  tags,
  request: { body: jsonBody(SourceUrlBodySchema) },
  responses: { 200: jsonResponse(ResolvedSourceSchema, "What the URL names"), ...errorResponses },
});

export const deleteSource = createRoute({
  method: "delete",
  path: "/repohost/sources/{sourceId}",
  operationId: "deleteSource",
  summary: "stop reading a source; bundles archived",
  tags,
  request: { params: SourceIdParams },
  responses: { 204: noContent("Reading stopped; reviews and threads stay"), ...errorResponses },
});

export const listSourceSkipped = createRoute({
  method: "get",
  path: "/repohost/sources/{sourceId}/skipped",
  operationId: "listSourceSkipped",
  summary: "markdown files under the source that the scan passed over, each with a guessed doc type",
  tags,
  request: { params: SourceIdParams },
  responses: { 200: jsonResponse(SourceSkippedListSchema, "Skipped files"), ...errorResponses },
});

export const acceptSourceTypes = createRoute({
  method: "post",
  path: "/repohost/sources/{sourceId}/skipped",
  operationId: "acceptSourceTypes",
  summary: "accept a doc type for skipped docs of the source, held in the service; the repo takes no commit",
  tags,
  request: { params: SourceIdParams, body: jsonBody(AcceptTypesBodySchema) },
  responses: {
    200: jsonResponse(SourceSkippedListSchema, "Skipped files after the change"),
    ...errorResponses,
  },
});

export const openMappingPullRequest = createRoute({
  method: "post",
  path: "/repohost/sources/{sourceId}/mapping",
  operationId: "openMappingPullRequest",
  summary: "open a pull request that writes the accepted types into the repo's service configuration file",
  tags,
  request: { params: SourceIdParams },
  responses: { 200: jsonResponse(PullRequestSchema, "The pull request"), ...errorResponses },
});

export const syncSource = createRoute({
  method: "post",
  path: "/repohost/sources/{sourceId}/sync",
  operationId: "syncSource",
  summary: "read the source's branch now",
  tags,
  request: { params: SourceIdParams },
  responses: {
    200: jsonResponse(SourceSchema, "The source after the read"),
    202: jsonResponse(
      SourceSchema,
      "The source waits for the repo host's rate limit (`sync_state: waiting_rate_limit`, `resume_at`); the read resumes by itself then",
    ),
    ...errorResponses,
  },
});

export const publishDraft = createRoute({
  method: "post",
  path: "/docs/{docId}/publish",
  operationId: "publishDraft",
  summary: "publish the draft of a repohost bundle as a branch, a commit and a pull request",
  tags,
  request: { params: DocIdParams, body: { ...jsonBody(PublishBodySchema), required: false } },
  responses: { 200: jsonResponse(PullRequestSchema, "The pull request"), ...errorResponses },
});

export const discardDraft = createRoute({
  method: "post",
  path: "/docs/{docId}/draft/discard",
  operationId: "discardDraft",
  summary: "drop the draft of a repohost bundle",
  tags,
  request: { params: DocIdParams },
  responses: {
    200: jsonResponse(SpecDocSchema, "The doc; the version from the repo host is current again"),
    ...errorResponses,
  },
});

export default function repohostRoutes(): Router {
  const r = createRouter();
  r.openapi(listSources, async (c) => c.json({ items: await repohostOf(c).list() }, 200));
  r.openapi(createSource, async (c) => c.json(await repohostOf(c).create(c.req.valid("json").url), 201));
  r.openapi(resolveSource, async (c) => c.json(await repohostOf(c).resolve(c.req.valid("json").url), 200));
  r.openapi(deleteSource, async (c) => {
    await repohostOf(c).remove(c.req.valid("param").sourceId);
    return c.body(null, 204);
  });
  r.openapi(listSourceSkipped, async (c) =>
    c.json(await repohostOf(c).skipped(c.req.valid("param").sourceId, deps(c).profiles.list()), 200),
  );
  r.openapi(acceptSourceTypes, async (c) =>
    c.json(
      await repohostOf(c).accept(
        c.req.valid("param").sourceId,
        c.req.valid("json").docs,
        deps(c).profiles.list(),
      ),
      200,
    ),
  );
  r.openapi(openMappingPullRequest, async (c) =>
    c.json(await repohostOf(c).openMapping(c.req.valid("param").sourceId), 200),
  );
  r.openapi(syncSource, async (c) => {
    const view = await repohostOf(c).sync(c.req.valid("param").sourceId);
    return view.sync_state === "waiting_rate_limit" ? c.json(view, 202) : c.json(view, 200);
  });
  r.openapi(publishDraft, async (c) => {
    const { docId } = c.req.valid("param");
    const body = (c.req.valid("json") as { message?: string } | undefined) ?? {};
    return c.json(await repohostOf(c).store.publish(docId, body.message), 200);
  });
  r.openapi(discardDraft, async (c) => {
    const { docId } = c.req.valid("param");
    await repohostOf(c).store.discardDraft(docId, caller(c).id);
    const { store, runs } = deps(c);
    const row = await store.doc(docId);
    return c.json(docView(row, (await runs.latestRuns([docId])).get(docId)), 200);
  });
  return r;
}
