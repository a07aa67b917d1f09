/** Profiles: the doc types, their versions and maintainers, and a doc's profile. */
import { createRoute } from "@hono/zod-openapi";
import { createRouter, errorResponses, jsonBody, jsonResponse, type Router } from "../../http.js";
import { WriteResultSchema } from "../../schemas/common.js";
import { BaseVersionQuery, DocIdParams, ProfileKeyParams } from "../../schemas/params.js";
import {
  AdoptBodySchema,
  AssumptionsSchema,
  ChangeProfileBodySchema,
  GuessProfileBodySchema,
  MaintainersBodySchema,
  NewProfileBodySchema,
  NewProfileThreadBodySchema,
  ProfileDiffQuery,
  ProfileDiffSchema,
  ProfileGuessSchema,
  ProfileListSchema,
  ProfileSchema,
  RollbackBodySchema,
  SaveProfileBodySchema,
} from "../../schemas/profiles.js";
import { ThreadListSchema, ThreadSchema } from "../../schemas/threads.js";
import { noContent, stub } from "../stub.js";

const tags = ["profiles"];

export const adoptProfile = createRoute({
  method: "post",
  path: "/docs/{docId}/adopt",
  operationId: "adoptProfile",
  summary: "write the type and size the review used into the main doc's frontmatter",
  tags,
  request: {
    params: DocIdParams,
    query: BaseVersionQuery,
    body: { ...jsonBody(AdoptBodySchema), required: false },
  },
  responses: { 200: jsonResponse(WriteResultSchema, "The new version"), ...errorResponses },
});

export const changeDocProfile = createRoute({
  method: "put",
  path: "/docs/{docId}/profile",
  operationId: "changeDocProfile",
  summary: "change the profile of the bundle's main doc",
  tags,
  request: { params: DocIdParams, query: BaseVersionQuery, body: jsonBody(ChangeProfileBodySchema) },
  responses: { 200: jsonResponse(WriteResultSchema, "The new version"), ...errorResponses },
});

export const listAssumptions = createRoute({
  method: "get",
  path: "/docs/{docId}/assumptions",
  operationId: "listAssumptions",
  summary: "sentences of the current main doc that start with `Assumption:`",
  tags,
  request: { params: DocIdParams },
  responses: { 200: jsonResponse(AssumptionsSchema, "Assumptions in document order"), ...errorResponses },
});

export const getProfile = createRoute({
  method: "get",
  path: "/profiles/{key}",
  operationId: "getProfile",
  summary: "a profile with its YAML, template, versions, maintainers",
  tags,
  request: { params: ProfileKeyParams },
  responses: { 200: jsonResponse(ProfileSchema, "The profile"), ...errorResponses },
});

export const saveProfile = createRoute({
  method: "put",
  path: "/profiles/{key}",
  operationId: "saveProfile",
  summary: "save a profile as a new version; maintainers of the profile and admins",
  tags,
  request: { params: ProfileKeyParams, body: jsonBody(SaveProfileBodySchema) },
  responses: { 200: jsonResponse(ProfileSchema, "The profile with its new version"), ...errorResponses },
});

export const deleteProfile = createRoute({
  method: "delete",
  path: "/profiles/{key}",
  operationId: "deleteProfile",
  summary: "delete a profile; admins only; refused for a built-in and while a bundle names its key",
  tags,
  request: { params: ProfileKeyParams },
  responses: { 204: noContent("Deleted"), ...errorResponses },
});

export const setProfileMaintainers = createRoute({
  method: "put",
  path: "/profiles/{key}/maintainers",
  operationId: "setProfileMaintainers",
  summary: "set the maintainers of a profile; admins only",
  tags,
  request: { params: ProfileKeyParams, body: jsonBody(MaintainersBodySchema) },
  responses: { 200: jsonResponse(ProfileSchema, "The profile"), ...errorResponses },
});

export const diffProfile = createRoute({
  method: "get",
  path: "/profiles/{key}/diff",
  operationId: "diffProfile",
  summary: "YAML diff and template diff between two versions",
  tags,
  request: { params: ProfileKeyParams, query: ProfileDiffQuery },
  responses: { 200: jsonResponse(ProfileDiffSchema, "The diffs"), ...errorResponses },
});

export const rollbackProfile = createRoute({
  method: "post",
  path: "/profiles/{key}/rollback",
  operationId: "rollbackProfile",
  summary: "write a new version whose text equals an earlier one",
  tags,
  request: { params: ProfileKeyParams, body: jsonBody(RollbackBodySchema) },
  responses: { 200: jsonResponse(ProfileSchema, "The profile with its new version"), ...errorResponses },
});

export const listProfileThreads = createRoute({
  method: "get",
  path: "/profiles/{key}/threads",
  operationId: "listProfileThreads",
  summary: "suggestions for a profile, as threads on its checks",
  tags,
  request: { params: ProfileKeyParams },
  responses: { 200: jsonResponse(ThreadListSchema, "Threads, open first"), ...errorResponses },
});

export const suggestProfileChange = createRoute({
  method: "post",
  path: "/profiles/{key}/threads",
  operationId: "suggestProfileChange",
  summary: "suggest a change to a check, the template or a limit",
  tags,
  request: { params: ProfileKeyParams, body: jsonBody(NewProfileThreadBodySchema) },
  responses: { 201: jsonResponse(ThreadSchema, "The new thread"), ...errorResponses },
});

export const listProfiles = createRoute({
  method: "get",
  path: "/profiles",
  operationId: "listProfiles",
  summary: "list profiles with current versions",
  tags,
  responses: { 200: jsonResponse(ProfileListSchema, "Profiles"), ...errorResponses },
});

export const createProfile = createRoute({
  method: "post",
  path: "/profiles",
  operationId: "createProfile",
  summary: "create a profile for a new doc type; admins only",
  tags,
  request: { body: jsonBody(NewProfileBodySchema) },
  responses: { 201: jsonResponse(ProfileSchema, "The new profile"), ...errorResponses },
});

export const guessProfile = createRoute({
  method: "post",
  path: "/profiles/guess",
  operationId: "guessProfile",
  summary: "the profile that fits a markdown doc, from its headings",
  tags,
  request: { body: jsonBody(GuessProfileBodySchema) },
  responses: { 200: jsonResponse(ProfileGuessSchema, "The best fit and the candidates"), ...errorResponses },
});

export default function profileRoutes(): Router {
  const r = createRouter();
  stub(r, adoptProfile);
  stub(r, changeDocProfile);
  stub(r, listAssumptions);
  stub(r, guessProfile);
  stub(r, listProfiles);
  stub(r, createProfile);
  stub(r, getProfile);
  stub(r, saveProfile);
  stub(r, deleteProfile);
  stub(r, setProfileMaintainers);
  stub(r, diffProfile);
  stub(r, rollbackProfile);
  stub(r, listProfileThreads);
  stub(r, suggestProfileChange);
  return r;
}
