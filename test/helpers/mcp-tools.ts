/**
 * A tiny but real MCP server for tests, built with the official SDK (`McpServer`): a wiki
 * that serves fixed pages. Its tools, each with a zod input schema and annotations:
 *
 * - `fetch` {url} (read-only): the page's text; `structuredContent.commit` when the page
 *   names one; an error result for an unknown page;
 * - `search` {query} (read-only): `structuredContent.results` ({url, title, snippet}) of every
 *   search entry whose `match` is in the query;
 * - `delete_page` {url} (destructive): would delete a page; counts its calls in
 *   `calls.delete_page`, so a test can see it was never reached;
 * - `env` (read-only): the names of the environment variables the server process sees,
 *   and whether the token variable holds the expected secret (compared by SHA-256 only).
 *
 * Every call is counted in `calls` (the `calls` tool reports them for a stdio server).
 */
import { createHash } from "node:crypto";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

export interface WikiPage {
  text: string;
  /** A commit the page says it was read at (code targets). */
  commit?: string;
}

export interface WikiConfig {
  pages: Record<string, WikiPage>;
  search?: Array<{ match: string; url: string; title: string; snippet: string }>;
  /** The variable the token comes in, and the SHA-256 hex of the token it should hold. */
  tokenEnv?: string;
  tokenSha256?: string;
}

export function wikiServer(config: WikiConfig, calls: Record<string, number> = {}): McpServer {
  const server = new McpServer({ name: "test-wiki", version: "1.0.0" });
  const count = (name: string) => (calls[name] = (calls[name] ?? 0) + 1);

  server.registerTool(
    "fetch",
    {
      description: "Read a wiki page as text",
      inputSchema: { url: z.string() },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ url }) => {
      count("fetch");
      const page = config.pages[url];
      if (!page) return { isError: true, content: [{ type: "text", text: `no page ${url}` }] };
      return {
        content: [{ type: "text", text: page.text }],
        ...(page.commit ? { structuredContent: { commit: page.commit } } : {}),
      };
    },
  );

  server.registerTool(
    "search",
    {
      description: "Search the wiki",
      inputSchema: { query: z.string() },
      annotations: { readOnlyHint: true },
    },
    ({ query }) => {
      count("search");
      const results = (config.search ?? [])
        .filter((s) => query.includes(s.match))
        .map(({ url, title, snippet }) => ({ url, title, snippet }));
      return {
        content: [{ type: "text", text: JSON.stringify({ results }) }],
        structuredContent: { results },
      };
    },
  );

  server.registerTool(
    "delete_page",
    {
      description: "Delete a wiki page",
      inputSchema: { url: z.string() },
      annotations: { destructiveHint: true, readOnlyHint: false },
    },
    () => {
      count("delete_page");
      return { content: [{ type: "text", text: "deleted" }] };
    },
  );

  server.registerTool(
    "env",
    { description: "What the server process sees", annotations: { readOnlyHint: true } },
    () => {
      count("env");
      const token = config.tokenEnv ? process.env[config.tokenEnv] : undefined;
      const tokenOk =
        token !== undefined && createHash("sha256").update(token).digest("hex") === config.tokenSha256;
      const names = Object.keys(process.env).sort();
      return { content: [{ type: "text", text: JSON.stringify({ names, token_ok: tokenOk }) }] };
    },
  );

  server.registerTool(
    "calls",
    { description: "Tool calls so far", annotations: { readOnlyHint: true } },
    () => ({
      content: [{ type: "text", text: JSON.stringify(calls) }],
    }),
  );

  return server;
}

export const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
