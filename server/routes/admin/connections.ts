/** Administration of outside connections: MCP servers and the repohost token. */
import { createRoute, z } from "@hono/zod-openapi";
import { deps, errorResponses, jsonBody, jsonResponse, type Router } from "../../http.js";
import {
  McpConnectionBodySchema,
  McpConnectionSchema,
  McpToolSchema,
  RepohostConnectionSchema,
  RepohostTokenBodySchema,
} from "../../schemas/admin.js";
import { ConnectionIdParams } from "../../schemas/params.js";
import { ProblemSchema } from "../../schemas/common.js";
import { noContent } from "../stub.js";

const tags = ["admin"];

export const listMcpConnections = createRoute({
  method: "get",
  path: "/admin/mcp",
  operationId: "listMcpConnections",
  summary: "list MCP connections",
  tags,
  responses: {
    200: jsonResponse(
      z.object({ items: z.array(McpConnectionSchema) }).openapi("McpConnectionList"),
      "Connections",
    ),
    ...errorResponses,
  },
});

export const createMcpConnection = createRoute({
  method: "post",
  path: "/admin/mcp",
  operationId: "createMcpConnection",
  summary: "add an MCP connection",
  tags,
  request: { body: jsonBody(McpConnectionBodySchema) },
  responses: { 201: jsonResponse(McpConnectionSchema, "The new connection"), ...errorResponses },
});

export const updateMcpConnection = createRoute({
  method: "put",
  path: "/admin/mcp/{connectionId}",
  operationId: "updateMcpConnection",
  summary: "change an MCP connection; leave the secret out to keep the stored one",
  tags,
  request: { params: ConnectionIdParams, body: jsonBody(McpConnectionBodySchema) },
  responses: { 200: jsonResponse(McpConnectionSchema, "The connection"), ...errorResponses },
});

export const deleteMcpConnection = createRoute({
  method: "delete",
  path: "/admin/mcp/{connectionId}",
  operationId: "deleteMcpConnection",
  summary: "delete an MCP connection",
  tags,
  request: { params: ConnectionIdParams },
  responses: { 204: noContent("Deleted"), ...errorResponses },
});

export const listMcpTools = createRoute({
  method: "get",
  path: "/admin/mcp/{connectionId}/tools",
  operationId: "listMcpTools",
  summary: "connect and list the server's tools, to choose the allowlist",
  tags,
  request: { params: ConnectionIdParams },
  responses: {
    200: jsonResponse(
      z.object({ items: z.array(McpToolSchema) }).openapi("McpToolList"),
      "The server's tools",
    ),
    ...errorResponses,
    502: {
      description: "The MCP server could not be reached (`mcp_unavailable`)",
      content: { "application/problem+json": { schema: ProblemSchema } },
    },
  },
});

/** The MCP operations (server/mcp/connections.ts does the work). */
export function registerMcpRoutes(r: Router): void {
  r.openapi(listMcpConnections, async (c) => c.json({ items: await deps(c).mcp.list() }, 200));
  r.openapi(createMcpConnection, async (c) => c.json(await deps(c).mcp.create(c.req.valid("json")), 201));
  r.openapi(updateMcpConnection, async (c) =>
    c.json(await deps(c).mcp.update(c.req.valid("param").connectionId, c.req.valid("json")), 200),
  );
  r.openapi(deleteMcpConnection, async (c) => {
    await deps(c).mcp.delete(c.req.valid("param").connectionId);
    return c.body(null, 204);
  });
  r.openapi(listMcpTools, async (c) =>
    c.json({ items: await deps(c).mcp.tools(c.req.valid("param").connectionId) }, 200),
  );
}

export const getRepohostConnection = createRoute({
  method: "get",
  path: "/admin/repohost",
  operationId: "getRepohostConnection",
  summary: "the workspace's repohost token state",
  tags,
  responses: { 200: jsonResponse(RepohostConnectionSchema, "The token state"), ...errorResponses },
});

export const setRepohostToken = createRoute({
  method: "put",
  path: "/admin/repohost",
  operationId: "setRepohostToken",
  summary: "set the fine-grained personal access token that reads repos and opens pull requests",
  tags,
  request: { body: jsonBody(RepohostTokenBodySchema) },
  responses: {
    200: jsonResponse(RepohostConnectionSchema, "The connection, after a check with the repo host"),
    ...errorResponses,
  },
});

export const removeRepohostToken = createRoute({
  method: "delete",
  path: "/admin/repohost",
  operationId: "removeRepohostToken",
  summary: "remove the token; repohost sources stop syncing",
  tags,
  responses: { 204: noContent("Removed"), ...errorResponses },
});
