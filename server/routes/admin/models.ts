/** Administration of the AI: model backends, agent CLI presets, role assignments. */
import { createRoute, z } from "@hono/zod-openapi";
import { errorResponses, jsonBody, jsonResponse } from "../../http.js";
import {
  BackendBodySchema,
  BackendSchema,
  BackendTestBodySchema,
  BackendTestResultSchema,
  PresetSchema,
  RoleAssignmentBodySchema,
  RoleAssignmentSchema,
} from "../../schemas/admin.js";
import { BackendIdParams, RoleParams } from "../../schemas/params.js";
import { noContent } from "../stub.js";

const tags = ["admin"];

export const listBackends = createRoute({
  method: "get",
  path: "/admin/backends",
  operationId: "listBackends",
  summary: "list model backends; secrets show their last 4 characters only",
  tags,
  responses: {
    200: jsonResponse(z.object({ items: z.array(BackendSchema) }).openapi("BackendList"), "Backends"),
    ...errorResponses,
  },
});

export const createBackend = createRoute({
  method: "post",
  path: "/admin/backends",
  operationId: "createBackend",
  summary: "add a model backend",
  tags,
  request: { body: jsonBody(BackendBodySchema) },
  responses: { 201: jsonResponse(BackendSchema, "The new backend"), ...errorResponses },
});

export const updateBackend = createRoute({
  method: "put",
  path: "/admin/backends/{backendId}",
  operationId: "updateBackend",
  summary: "change a backend; leave the secret out to keep the stored one",
  tags,
  request: { params: BackendIdParams, body: jsonBody(BackendBodySchema) },
  responses: { 200: jsonResponse(BackendSchema, "The backend"), ...errorResponses },
});

export const deleteBackend = createRoute({
  method: "delete",
  path: "/admin/backends/{backendId}",
  operationId: "deleteBackend",
  summary: "delete a backend that no role uses",
  tags,
  request: { params: BackendIdParams },
  responses: { 204: noContent("Deleted"), ...errorResponses },
});

export const testBackend = createRoute({
  method: "post",
  path: "/admin/backends/{backendId}/test",
  operationId: "testBackend",
  summary: "send one short call to a backend and model",
  tags,
  request: { params: BackendIdParams, body: jsonBody(BackendTestBodySchema) },
  responses: { 200: jsonResponse(BackendTestResultSchema, "What the call did"), ...errorResponses },
});

export const listPresets = createRoute({
  method: "get",
  path: "/admin/presets",
  operationId: "listPresets",
  summary: "agent CLI presets and whether each CLI is installed",
  tags,
  responses: {
    200: jsonResponse(z.object({ items: z.array(PresetSchema) }).openapi("AgentPresetList"), "Presets"),
    ...errorResponses,
  },
});

export const listRoles = createRoute({
  method: "get",
  path: "/admin/roles",
  operationId: "listRoles",
  summary: "roles with their backend and model",
  tags,
  responses: {
    200: jsonResponse(
      z.object({ items: z.array(RoleAssignmentSchema) }).openapi("RoleAssignmentList"),
      "Roles",
    ),
    ...errorResponses,
  },
});

export const assignRole = createRoute({
  method: "put",
  path: "/admin/roles/{role}",
  operationId: "assignRole",
  summary: "assign a backend and model to a role",
  tags,
  request: { params: RoleParams, body: jsonBody(RoleAssignmentBodySchema) },
  responses: { 200: jsonResponse(RoleAssignmentSchema, "The role assignment"), ...errorResponses },
});

export const unassignRole = createRoute({
  method: "delete",
  path: "/admin/roles/{role}",
  operationId: "unassignRole",
  summary: "remove a role's assignment",
  tags,
  request: { params: RoleParams },
  responses: { 204: noContent("Removed"), ...errorResponses },
});
