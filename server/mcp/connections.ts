/**
 * MCP connections kept in the database (contract 2.13, docs/mcp.md): the admin operations
 * under /admin/mcp, and what runs need of them (the search connection, the connection that
 * reads a host). Secrets are sealed with the server's SecretBox (server/models/secrets.ts),
 * never returned (only `has_secret` and the last 4 characters) and never logged.
 */
import { randomUUID } from "node:crypto";
import { asc, eq } from "drizzle-orm";
import type { Db } from "../db/index.js";
import { mcpConnections } from "../db/schema.js";
import type { Clock, Logger } from "../deps.js";
import { ApiError, NotFoundError, ValidationError, type FieldIssue } from "../errors.js";
import { BASE_ENV, NEVER_ENV } from "../models/agent-cli.js";
import { secretColumns, type SecretBox } from "../models/secrets.js";
import { registerSecret } from "../redact.js";
import { McpCallError, McpSession, type McpEndpoint, type McpToolView } from "./client.js";

export type McpTransport = "stdio" | "http";

export interface McpConnectionInput {
  name: string;
  transport: McpTransport;
  command?: string[];
  url?: string;
  secret_env?: string;
  /** Write-only. Left out on PUT: keep the stored one; `""`: remove it. */
  secret?: string;
  tool_allowlist?: string[];
  is_search?: boolean;
  search_tool?: string;
  hosts?: string[];
  fetch_tool?: string;
}

export interface McpConnectionView {
  id: string;
  name: string;
  transport: McpTransport;
  command?: string[];
  url?: string;
  secret_env?: string;
  has_secret: boolean;
  secret_last4: string;
  tool_allowlist: string[];
  is_search: boolean;
  search_tool: string;
  hosts: string[];
  fetch_tool: string;
}

type Row = typeof mcpConnections.$inferSelect;

/** A connection as a run uses it: the endpoint (secret opened) and its tool choices. */
export interface McpUse {
  endpoint: McpEndpoint;
  hosts: string[];
  fetchTool: string;
  searchTool: string;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HOST = /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;

/** A host as connections list it: lower case, no trailing dot. */
export function normalizeHost(host: string): string {
  return host.trim().toLowerCase().replace(/\.$/, "");
}

/** `docs.example.com` matches itself; `*.example.com` matches every name under example.com (not example.com). */
export function hostMatches(pattern: string, host: string): boolean {
  const h = normalizeHost(host);
  return pattern.startsWith("*.") ? h.endsWith(pattern.slice(1)) : h === pattern;
}

function isHttpUrl(value: string): boolean {
  try {
    return ["http:", "https:"].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

/** Field problems of a connection body (what the schema alone cannot say). */
export function connectionIssues(input: McpConnectionInput, hasSecret: boolean): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const issue = (field: string, message: string) => issues.push({ field: `body.${field}`, message });
  if (!input.name.trim()) issue("name", "must not be blank");
  if (input.transport === "stdio") {
    if (!input.command?.length)
      issue("command", "required for transport stdio: the program and its arguments");
    if (input.url !== undefined) issue("url", "only for transport http");
    if (input.secret_env !== undefined) {
      const name = input.secret_env;
      if (!ENV_NAME.test(name))
        issue("secret_env", "must be an environment variable name (letters, digits, _)");
      else if ([...BASE_ENV, ...NEVER_ENV].includes(name as never) || name.startsWith("SPEC_REVIEW_"))
        issue("secret_env", `${name} is a variable the server sets or withholds; choose another name`);
    } else if (hasSecret) issue("secret_env", "required with a secret: the variable the server gets it in");
  } else {
    if (input.url === undefined || !isHttpUrl(input.url))
      issue("url", "required for transport http: an http:// or https:// address");
    if (input.command !== undefined) issue("command", "only for transport stdio");
    if (input.secret_env !== undefined)
      issue("secret_env", "only for transport stdio; an http server gets the secret as a bearer token");
  }
  const allow = input.tool_allowlist ?? [];
  if (new Set(allow).size !== allow.length) issue("tool_allowlist", "names a tool twice");
  const hosts = (input.hosts ?? []).map(normalizeHost);
  hosts.forEach((h, i) => {
    if (!HOST.test(h))
      issue(`hosts.${i}`, "must be a host name (docs.example.com) or *.example.com, without scheme or path");
  });
  if (new Set(hosts).size !== hosts.length) issue("hosts", "names a host twice");
  const fetchTool = input.fetch_tool ?? "";
  if (hosts.length > 0 && !fetchTool)
    issue("fetch_tool", "required with hosts: the tool that reads a target of those hosts");
  if (fetchTool && hosts.length === 0) issue("fetch_tool", "needs hosts: the hosts whose targets it reads");
  if (fetchTool && !allow.includes(fetchTool))
    issue("fetch_tool", `${fetchTool} must be on the tool_allowlist`);
  const searchTool = input.search_tool ?? "";
  if (input.is_search && !searchTool) issue("search_tool", "required with is_search: the tool that searches");
  if (searchTool && !input.is_search) issue("search_tool", "only with is_search");
  if (searchTool && !allow.includes(searchTool))
    issue("search_tool", `${searchTool} must be on the tool_allowlist`);
  return issues;
}

export interface McpConnectionsOptions {
  db: Db;
  box: SecretBox;
  clock: Clock;
  logger: Logger;
  /** Per handshake and per tool call, in ms (default 30 s). */
  timeoutMs?: number;
}

export class McpConnections {
  readonly #db: Db;
  readonly #box: SecretBox;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly timeoutMs: number;

  constructor(opts: McpConnectionsOptions) {
    this.#db = opts.db;
    this.#box = opts.box;
    this.#clock = opts.clock;
    this.#logger = opts.logger;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
  }

  #view(row: Row): McpConnectionView {
    const view: McpConnectionView = {
      id: row.id,
      name: row.name,
      transport: row.transport as McpTransport,
      has_secret: row.secretCipher !== null,
      secret_last4: row.secretLast4,
      tool_allowlist: row.toolAllowlist,
      is_search: row.isSearch,
      search_tool: row.searchTool,
      hosts: row.hosts,
      fetch_tool: row.fetchTool,
    };
    if (row.command !== null) view.command = row.command;
    if (row.url !== null) view.url = row.url;
    if (row.secretEnv !== null) view.secret_env = row.secretEnv;
    return view;
  }

  async #rows(): Promise<Row[]> {
    return this.#db
      .select()
      .from(mcpConnections)
      .orderBy(asc(mcpConnections.createdAt), asc(mcpConnections.id));
  }

  async #row(id: string): Promise<Row> {
    const [row] = await this.#db.select().from(mcpConnections).where(eq(mcpConnections.id, id));
    if (!row) throw new NotFoundError("MCP connection", id);
    return row;
  }

  async list(): Promise<McpConnectionView[]> {
    return (await this.#rows()).map((r) => this.#view(r));
  }

  /** The columns of a body (secret sealed), after its checks; a host another connection lists is a conflict. */
  async #columns(id: string, input: McpConnectionInput, stored: Row | undefined) {
    const hasSecret = input.secret === undefined ? stored?.secretCipher != null : input.secret !== "";
    const issues = connectionIssues(input, hasSecret);
    if (issues.length)
      throw new ValidationError(issues.map((i) => `${i.field}: ${i.message}`).join("; "), issues);
    const hosts = (input.hosts ?? []).map(normalizeHost);
    for (const other of await this.#rows()) {
      if (other.id === id) continue;
      const shared = other.hosts.find((h) => hosts.includes(h));
      if (shared !== undefined)
        throw new ApiError("mcp_host_taken", `MCP connection "${other.name}" already reads ${shared}`, {
          connection_id: other.id,
          host: shared,
        });
    }
    const stdio = input.transport === "stdio";
    const columns = {
      name: input.name.trim(),
      transport: input.transport,
      command: stdio ? (input.command ?? null) : null,
      url: stdio ? null : (input.url ?? null),
      secretEnv: stdio ? (input.secret_env ?? null) : null,
      toolAllowlist: input.tool_allowlist ?? [],
      isSearch: input.is_search ?? false,
      searchTool: input.search_tool ?? "",
      hosts,
      fetchTool: input.fetch_tool ?? "",
    };
    return { columns, secret: secretColumns(this.#box, input.secret, `mcp:${id}`) };
  }

  async create(input: McpConnectionInput): Promise<McpConnectionView> {
    const id = randomUUID();
    const { columns, secret } = await this.#columns(id, input, undefined);
    const now = this.#clock.now();
    const [row] = await this.#db
      .insert(mcpConnections)
      .values({
        id,
        ...columns,
        secretCipher: null,
        secretLast4: "",
        ...secret,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    this.#logger.info("MCP connection added", {
      connection_id: id,
      transport: input.transport,
      has_secret: row!.secretCipher !== null,
    });
    return this.#view(row!);
  }

  async update(id: string, input: McpConnectionInput): Promise<McpConnectionView> {
    const stored = await this.#row(id);
    const { columns, secret } = await this.#columns(id, input, stored);
    const [row] = await this.#db
      .update(mcpConnections)
      .set({ ...columns, ...secret, updatedAt: this.#clock.now() })
      .where(eq(mcpConnections.id, id))
      .returning();
    if (!row) throw new NotFoundError("MCP connection", id);
    this.#logger.info("MCP connection changed", {
      connection_id: id,
      secret: secret === undefined ? "kept" : secret.secretCipher === null ? "removed" : "replaced",
    });
    return this.#view(row);
  }

  async delete(id: string): Promise<void> {
    await this.#row(id);
    await this.#db.delete(mcpConnections).where(eq(mcpConnections.id, id));
    this.#logger.info("MCP connection deleted", { connection_id: id });
  }

  /** Connect and list the server's tools (every tool, so the admin can choose the allowlist). */
  async tools(id: string): Promise<McpToolView[]> {
    const endpoint = this.#endpoint(await this.#row(id));
    let session: McpSession;
    try {
      session = await McpSession.open(endpoint, { timeoutMs: this.timeoutMs });
    } catch (err) {
      throw unavailable(err);
    }
    try {
      return await session.tools();
    } catch (err) {
      throw unavailable(err);
    } finally {
      await session
        .close()
        .catch((err: unknown) =>
          this.#logger.warn("closing an MCP session failed", { connection_id: id, error: String(err) }),
        );
    }
  }

  #endpoint(row: Row): McpEndpoint {
    let secret: string | undefined;
    if (row.secretCipher !== null) {
      try {
        secret = this.#box.open(row.secretCipher, `mcp:${row.id}`);
      } catch (err) {
        throw new Error(
          `the secret of MCP connection ${row.id} cannot be decrypted with this server's key (was SPEC_REVIEW_SECRET_KEY or secret.key changed?); set the secret again`,
          { cause: err },
        );
      }
      registerSecret(secret);
    }
    return {
      id: row.id,
      name: row.name,
      transport: row.transport as McpTransport,
      ...(row.command ? { command: row.command } : {}),
      ...(row.url ? { url: row.url } : {}),
      ...(row.secretEnv ? { secretEnv: row.secretEnv } : {}),
      ...(secret !== undefined ? { secret } : {}),
      toolAllowlist: row.toolAllowlist,
    };
  }

  /** Every connection, as runs use them (search connections and those that read hosts). */
  async uses(): Promise<McpUse[]> {
    return (await this.#rows())
      .filter((r) => (r.isSearch && r.searchTool) || (r.hosts.length > 0 && r.fetchTool))
      .map((r) => ({
        endpoint: this.#endpoint(r),
        hosts: r.hosts,
        fetchTool: r.fetchTool,
        searchTool: r.isSearch ? r.searchTool : "",
      }));
  }
}

function unavailable(err: unknown): ApiError {
  const message = err instanceof Error ? err.message : String(err);
  return new ApiError(
    "mcp_unavailable",
    message,
    {},
    err instanceof McpCallError ? undefined : { cause: err },
  );
}
