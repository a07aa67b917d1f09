/**
 * The MCP server over streamable HTTP at `/mcp`, on the running service.
 *
 * Stateless, as the SDK recommends for a server that sends nothing unasked: each POST gets
 * a fresh server and transport, answered as JSON, so any instance behind a load balancer
 * can answer any request and nothing is held between requests. `GET` (a stream of
 * server-initiated messages) and `DELETE` (ending a session) have nothing to do and answer
 * 405.
 *
 * `/mcp` sits behind the same middleware as the API (host guard, `--allow-remote` token,
 * body limit, caller). In hosted mode it takes an API token (`Authorization: Bearer`,
 * server/auth/hosted.ts), and every tool call passes that header on to the API in process,
 * so the agent has exactly the token owner's permissions.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { ApiError } from "../errors.js";
import type { Env } from "../http.js";
import { bearerToken } from "../auth/hosted.js";
import { caller } from "../auth/actor.js";
import { inProcessApi } from "./api.js";
import { createMcpServer } from "./server.js";

export const MCP_PATH = "/mcp";

function methodNotAllowed(): Response {
  return new Response(
    JSON.stringify({
      jsonrpc: "2.0",
      error: {
        code: -32000,
        message: "Method not allowed: this MCP server is stateless; POST JSON-RPC to /mcp",
      },
      id: null,
    }),
    { status: 405, headers: { "content-type": "application/json", allow: "POST" } },
  );
}

export function mountMcp(app: OpenAPIHono<Env>): void {
  app.on(["POST", "GET", "DELETE"], MCP_PATH, async (c) => {
    const { mode } = c.get("deps");
    if (mode === "hosted") {
      // A browser's session cookie is not enough: a coding agent holds an API token of its own.
      if (bearerToken(c.req.raw) === undefined)
        throw new ApiError(
          "unauthenticated",
          "the MCP server takes an API token: make one (POST /api/v1/me/tokens) and send it as Authorization: Bearer <token>",
        );
      caller(c);
    }
    if (c.req.method !== "POST") return methodNotAllowed();
    const env = c.env;
    const api = inProcessApi((req) => app.fetch(req, env), c.req.header("authorization"));
    const server = createMcpServer({ api });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw);
    } finally {
      // The JSON answer is complete: nothing of this request's server outlives it.
      await server.close();
    }
  });
}
