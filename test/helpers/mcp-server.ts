/**
 * The test wiki MCP server (test/helpers/mcp-tools.ts) over its two transports:
 *
 * - stdio, as a subprocess: `stdioCommand(configFile)` is the `command` of a connection
 *   (`node --import tsx test/helpers/mcp-server.ts <config.json>`); `writeWikiConfig(config)`
 *   writes the JSON file it reads. The config travels as a file, because the server gets
 *   only a minimal environment.
 * - streamable HTTP, in this process: `startMcpHttpServer(config, { token })` listens on
 *   127.0.0.1 (port 0), stateless (a fresh server per request), and answers 401 unless the
 *   request carries `Authorization: Bearer <token>` when a token is set.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { wikiServer, type WikiConfig } from "./mcp-tools.js";

const SELF = resolve(import.meta.dirname, "mcp-server.ts");

/** Write a wiki config to a fresh temporary file; returns its path. */
export function writeWikiConfig(config: WikiConfig): string {
  const file = join(mkdtempSync(join(tmpdir(), "sr-mcp-")), "wiki.json");
  writeFileSync(file, JSON.stringify(config));
  return file;
}

/** The `command` of a stdio connection running the test wiki with this config file. */
export function stdioCommand(configFile: string): string[] {
  return [process.execPath, "--import", "tsx", SELF, configFile];
}

export interface McpHttpServer {
  /** `http://127.0.0.1:<port>/mcp`. */
  url: string;
  /** Tool calls answered, by tool. */
  calls: Record<string, number>;
  /** The Authorization header of every request. */
  authorizations: Array<string | undefined>;
  close(): Promise<void>;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? (JSON.parse(text) as unknown) : undefined;
}

export async function startMcpHttpServer(
  config: WikiConfig,
  opts: { token?: string } = {},
): Promise<McpHttpServer> {
  const calls: Record<string, number> = {};
  const authorizations: Array<string | undefined> = [];
  const sockets = new Set<Socket>();
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    authorizations.push(req.headers.authorization);
    if (opts.token && req.headers.authorization !== `Bearer ${opts.token}`) {
      res.writeHead(401, { "content-type": "application/json" }).end('{"error":"unauthorized"}');
      return;
    }
    if (req.method !== "POST") {
      res.writeHead(405).end();
      return;
    }
    const server = wikiServer(config, calls);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, await readJson(req));
  };
  const http = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(err));
    });
  });
  http.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    calls,
    authorizations,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        http.close(() => r());
      }),
  };
}

// Run as a program: the stdio server.
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const config = JSON.parse(readFileSync(process.argv[2]!, "utf8")) as WikiConfig;
  await wikiServer(config).connect(new StdioServerTransport());
}
