/**
 * One session with an MCP server, through the official SDK client (docs/mcp.md):
 *
 * - `stdio`: the connection's `command` runs as a subprocess with a minimal environment
 *   (the one agent CLIs get, server/models/agent-cli.ts: PATH, HOME, locale, temp, proxies,
 *   CA certificates; never DATABASE_URL or the secret key) plus the secret in `secret_env`.
 *   Its stderr is kept (the last 4 KiB, redacted) to explain a failed start.
 * - `http`: streamable HTTP at `url`, the secret sent as `Authorization: Bearer <secret>`.
 *
 * `call` is the only way a tool is called, and it refuses a tool that is not on the
 * connection's allowlist or that the server annotates as destructive (`destructiveHint`),
 * before anything is sent.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { agentEnv } from "../models/agent-cli.js";
import { redact } from "../redact.js";

/** What a session needs of a connection: where the server is, its secret, its allowlist. */
export interface McpEndpoint {
  id: string;
  name: string;
  transport: "stdio" | "http";
  command?: string[];
  url?: string;
  secretEnv?: string;
  secret?: string;
  toolAllowlist: readonly string[];
}

/** A tool as the admin API lists it (contract 2.13). */
export interface McpToolView {
  name: string;
  description: string;
  read_only: boolean;
  destructive: boolean;
}

export type McpFailure =
  /** The server could not be started or reached, or the handshake failed. */
  | "unavailable"
  /** The tool is not on the connection's allowlist. */
  | "not_allowed"
  /** The server annotates the tool as destructive. */
  | "destructive"
  /** The server has no such tool. */
  | "unknown_tool"
  /** The tool answered with an error, or the call failed or timed out. */
  | "tool_failed";

export class McpCallError extends Error {
  constructor(
    readonly failure: McpFailure,
    message: string,
  ) {
    super(message);
    this.name = "McpCallError";
  }
}

export interface McpSessionOptions {
  /** Time limit of the handshake and of each request, in ms (default 30 s). */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** The environment the minimal one is taken from (default: this process's). */
  env?: Record<string, string | undefined>;
}

const STDERR_KEEP = 4096;

export function toolView(tool: Tool): McpToolView {
  return {
    name: tool.name,
    description: tool.description ?? tool.annotations?.title ?? "",
    read_only: tool.annotations?.readOnlyHint === true,
    destructive: tool.annotations?.destructiveHint === true,
  };
}

function transportFor(
  endpoint: McpEndpoint,
  opts: McpSessionOptions,
): { transport: Transport; stderr: () => string } {
  if (endpoint.transport === "http") {
    const headers: Record<string, string> = endpoint.secret
      ? { authorization: `Bearer ${endpoint.secret}` }
      : {};
    return {
      transport: new StreamableHTTPClientTransport(new URL(endpoint.url!), { requestInit: { headers } }),
      stderr: () => "",
    };
  }
  const [command, ...args] = endpoint.command!;
  const transport = new StdioClientTransport({
    command: command!,
    args,
    env: agentEnv(opts.env ?? process.env, { secret: endpoint.secret, secretEnv: endpoint.secretEnv }),
    stderr: "pipe",
  });
  let tail = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    tail = (tail + chunk.toString("utf8")).slice(-STDERR_KEEP);
  });
  return { transport, stderr: () => tail };
}

export class McpSession {
  #tools: Map<string, Tool> | undefined;

  private constructor(
    readonly endpoint: McpEndpoint,
    private readonly client: Client,
    private readonly opts: McpSessionOptions,
  ) {}

  /** Start or reach the server and complete the MCP handshake. */
  static async open(endpoint: McpEndpoint, opts: McpSessionOptions = {}): Promise<McpSession> {
    const { transport, stderr } = transportFor(endpoint, opts);
    const client = new Client({ name: "spec-review", version: "1" });
    try {
      await client.connect(transport, { timeout: opts.timeoutMs ?? 30_000, signal: opts.signal });
    } catch (err) {
      await client.close().catch(() => undefined);
      const said = stderr().trim();
      throw new McpCallError(
        "unavailable",
        redact(
          `MCP server "${endpoint.name}" could not be reached: ${err instanceof Error ? err.message : String(err)}` +
            (said ? `; it said: ${said.slice(-500)}` : ""),
          [endpoint.secret],
        ),
      );
    }
    return new McpSession(endpoint, client, opts);
  }

  #request() {
    return { timeout: this.opts.timeoutMs ?? 30_000, signal: this.opts.signal };
  }

  #failed(what: string, err: unknown, failure: McpFailure = "tool_failed"): McpCallError {
    if (err instanceof McpCallError) return err;
    const message = err instanceof Error ? err.message : String(err);
    return new McpCallError(failure, redact(`${what}: ${message}`, [this.endpoint.secret]));
  }

  async #toolMap(): Promise<Map<string, Tool>> {
    if (this.#tools) return this.#tools;
    const map = new Map<string, Tool>();
    let cursor: string | undefined;
    try {
      do {
        const page = await this.client.listTools(cursor ? { cursor } : {}, this.#request());
        for (const t of page.tools) map.set(t.name, t);
        cursor = page.nextCursor;
      } while (cursor && map.size < 10_000);
    } catch (err) {
      throw this.#failed(`MCP server "${this.endpoint.name}" did not list its tools`, err, "unavailable");
    }
    return (this.#tools = map);
  }

  /** Every tool the server offers, allowed or not (the admin picks the allowlist from these). */
  async tools(): Promise<McpToolView[]> {
    return [...(await this.#toolMap()).values()].map(toolView).sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Call a tool: refused unless it is on the allowlist, offered by the server and not destructive. */
  async call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    const where = `tool "${name}" of MCP server "${this.endpoint.name}"`;
    if (!this.endpoint.toolAllowlist.includes(name))
      throw new McpCallError("not_allowed", `${where} is not on the connection's tool_allowlist`);
    const tool = (await this.#toolMap()).get(name);
    if (!tool) throw new McpCallError("unknown_tool", `${where} does not exist on the server`);
    if (toolView(tool).destructive)
      throw new McpCallError("destructive", `${where} is annotated destructive; it is never called`);
    let result: CallToolResult;
    try {
      result = (await this.client.callTool(
        { name, arguments: args },
        undefined,
        this.#request(),
      )) as CallToolResult;
    } catch (err) {
      throw this.#failed(`${where} failed`, err);
    }
    if (result.isError)
      throw new McpCallError(
        "tool_failed",
        redact(`${where} answered an error: ${textOf(result).slice(0, 300)}`, [this.endpoint.secret]),
      );
    return result;
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

/** The text items of a tool result, joined. */
export function textOf(result: CallToolResult): string {
  return result.content
    .map((c) =>
      c.type === "text" ? c.text : c.type === "resource" && "text" in c.resource ? c.resource.text : "",
    )
    .filter((t) => t !== "")
    .join("\n");
}
