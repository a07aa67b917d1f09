/**
 * Driving spec-review's MCP server with the SDK's own client: over streamable HTTP against
 * an app listening on a real port, or over stdio against `spec-review mcp` as a process.
 */
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { packageRoot } from "../../../node/package.js";

export interface Listening {
  /** `http://127.0.0.1:<port>` */
  url: string;
  close(): Promise<void>;
}

/** The app on 127.0.0.1, on a port the system picks. */
export async function listen(app: { fetch: (req: Request, env?: unknown) => Response | Promise<Response> }) {
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        // A stateless server keeps no stream open: closing waits for nothing but idle sockets.
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      }),
  } satisfies Listening;
}

/** A client connected to `<url>/mcp` over streamable HTTP, sending `headers` on every request. */
export async function httpClient(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "test-agent", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", url), { requestInit: { headers } }));
  return client;
}

const MAIN = join(packageRoot(), "cli", "main.ts");

/** The CLI's environment: this one, without a database URL or a token unless given. */
function cliEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && k !== "DATABASE_URL" && k !== "SPEC_REVIEW_TOKEN" && k !== "LOG_LEVEL") env[k] = v;
  return { ...env, ...extra };
}

/** `spec-review mcp <args>` as a real process (from source, through tsx), with the SDK's stdio client. */
export async function stdioClient(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--import", "tsx", MAIN, "mcp", ...args],
    cwd: packageRoot(),
    env: cliEnv(env),
    stderr: "pipe",
  });
  let err = "";
  transport.stderr?.on("data", (chunk: Buffer) => (err += chunk.toString("utf8")));
  const client = new Client({ name: "test-agent", version: "1.0.0" });
  await client.connect(transport);
  return { client, stderr: () => err };
}

/** A tool call's result, typed. */
export async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The text of a result's first content item. */
export function textOf(result: CallToolResult): string {
  const first = result.content[0];
  if (first?.type !== "text") throw new Error(`no text content: ${JSON.stringify(result)}`);
  return first.text;
}

/** The structured content of a successful call (fails the test with the error text otherwise). */
export function ok<T = Record<string, unknown>>(result: CallToolResult): T {
  if (result.isError) throw new Error(`tool error: ${textOf(result)}`);
  return result.structuredContent as T;
}

/** The API problem a failed call carries. */
export function problemOf(result: CallToolResult): {
  code: string;
  status: number;
  title: string;
  detail?: string;
} {
  if (!result.isError) throw new Error(`expected a tool error, got ${JSON.stringify(result).slice(0, 300)}`);
  return (result.structuredContent as { problem: { code: string; status: number; title: string } }).problem;
}
