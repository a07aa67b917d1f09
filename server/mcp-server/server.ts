/**
 * The MCP server for coding agents: spec-review's own tools and resources, over whatever
 * transport the caller connects (stdio in `spec-review mcp`, streamable HTTP at `/mcp`).
 * Every tool is a call of the HTTP API (api.ts), so the agent can do exactly what its
 * caller may, and an operation that is not built yet answers its 501 as a tool error.
 * docs/mcp-server.md lists the tools and resources for people.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { packageVersion } from "../paths.js";
import type { ApiFetch } from "./api.js";
import { PacketCache } from "./packets.js";
import { registerResources } from "./resources.js";
import { registerHandoffTools } from "./tools-handoff.js";
import { registerReadTools } from "./tools-read.js";
import { registerThreadTools } from "./tools-threads.js";
import { registerVerifyTools } from "./tools-verify.js";

export const MCP_SERVER_NAME = "spec-review";

const INSTRUCTIONS = `spec-review decides whether a spec is ready to be built from.
Find the doc with list_bundles (each doc has an id and a verdict). Before building, read its
findings (get_findings) and open threads (list_threads); ask about anything unclear with
ask_question (the AI answers from the bundle; read the answer with get_thread). Take the build
packet with take_handoff and read its prompt.md first. When done, or blocked, tell the authors
with report_handoff, and check the build with start_verification and get_verification.`;

export interface McpServerOptions {
  /** How tools reach the HTTP API: in process, or a running service. */
  api: ApiFetch;
  /**
   * The server lives as long as a session (stdio): handoff packets stay listed as resources and
   * the client is told when the list changes. False for a server built per HTTP request.
   */
  session?: boolean;
  /** get_verification's pause between reads of a queued run (tests shorten it). */
  sleep?: (ms: number) => Promise<unknown>;
}

export function createMcpServer(opts: McpServerOptions): McpServer {
  const server = new McpServer(
    { name: MCP_SERVER_NAME, version: packageVersion() },
    {
      instructions: INSTRUCTIONS,
      capabilities: { resources: { listChanged: opts.session === true } },
    },
  );
  const packets = new PacketCache();
  registerReadTools(server, opts.api);
  registerThreadTools(server, opts.api);
  registerHandoffTools(server, opts.api, {
    packets,
    ...(opts.session === true
      ? { onPacket: () => server.isConnected() && server.sendResourceListChanged() }
      : {}),
  });
  registerVerifyTools(server, opts.api, opts.sleep ? { sleep: opts.sleep } : {});
  registerResources(server, opts.api, packets);
  return server;
}
