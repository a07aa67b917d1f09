/**
 * MCP connections over HTTP (contract 2.13, 4.1, 5): add, list, change and delete them with a
 * write-only sealed secret; list the tools of a real MCP server built with the SDK, over stdio
 * (a subprocess with a minimal environment) and over streamable HTTP (a bearer token); and
 * every bad input refused with nothing written.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { z } from "@hono/zod-openapi";
import { DB_KINDS, json, makeTestApp, problem, type TestApp } from "../helpers/app.js";
import type { Items } from "../helpers/types.js";
import {
  startMcpHttpServer,
  stdioCommand,
  writeWikiConfig,
  type McpHttpServer,
} from "../helpers/mcp-server.js";
import { sha256 } from "../helpers/mcp-tools.js";
import { mcpConnections } from "../../server/db/schema.js";
import type { McpConnectionSchema, McpToolSchema } from "../../server/schemas/admin.js";

type Connection = z.infer<typeof McpConnectionSchema>;
type Tool = z.infer<typeof McpToolSchema>;

const SECRET = "wiki-token-do-not-leak-5c1e";
const WIKI = {
  pages: { "https://wiki.example.com/orders": { text: "Orders are exported nightly." } },
  tokenEnv: "WIKI_TOKEN",
  tokenSha256: sha256(SECRET),
};

let http: McpHttpServer;
let configFile: string;
beforeAll(async () => {
  http = await startMcpHttpServer(WIKI, { token: SECRET });
  configFile = writeWikiConfig(WIKI);
});
afterAll(async () => {
  await http.close();
});

/** A stdio server is a node subprocess loading TypeScript (tsx): slow to start on a busy machine. */
const SUBPROCESS_MS = 120_000;

const TOOLS: Tool[] = [
  { name: "calls", description: "Tool calls so far", read_only: true, destructive: false },
  { name: "delete_page", description: "Delete a wiki page", read_only: false, destructive: true },
  { name: "env", description: "What the server process sees", read_only: true, destructive: false },
  { name: "fetch", description: "Read a wiki page as text", read_only: true, destructive: false },
  { name: "search", description: "Search the wiki", read_only: true, destructive: false },
];

describe.each(DB_KINDS)("admin: MCP connections on %s", (kind) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await makeTestApp({ kind });
  });
  afterEach(async () => {
    await t.close();
  });

  const stdio = (extra: Record<string, unknown> = {}) => ({
    name: "Team wiki",
    transport: "stdio",
    command: stdioCommand(configFile),
    secret_env: "WIKI_TOKEN",
    secret: SECRET,
    tool_allowlist: ["fetch", "search"],
    hosts: ["wiki.example.com", "*.docs.example.com"],
    fetch_tool: "fetch",
    is_search: true,
    search_tool: "search",
    ...extra,
  });

  const add = async (body: Record<string, unknown>) => {
    const res = await t.req("POST", "/admin/mcp", body);
    const text = await res.text();
    expect(res.status, text).toBe(201);
    expect(text).not.toContain(SECRET);
    return JSON.parse(text) as Connection;
  };

  const rows = () => t.database.db.select().from(mcpConnections);

  it("adds, lists, changes and deletes a connection; the secret is write-only and sealed", async () => {
    const c = await add(stdio());
    expect(c).toEqual({
      id: expect.any(String),
      name: "Team wiki",
      transport: "stdio",
      command: stdioCommand(configFile),
      secret_env: "WIKI_TOKEN",
      has_secret: true,
      secret_last4: SECRET.slice(-4),
      tool_allowlist: ["fetch", "search"],
      is_search: true,
      search_tool: "search",
      hosts: ["wiki.example.com", "*.docs.example.com"],
      fetch_tool: "fetch",
    });
    const [row] = await rows();
    expect(row!.secretCipher).toMatch(/^v1:/);
    expect(JSON.stringify(row)).not.toContain(SECRET);

    const listed = await t.req("GET", "/admin/mcp");
    const text = await listed.text();
    expect(text).not.toContain(SECRET);
    expect((JSON.parse(text) as Items<Connection>).items).toEqual([c]);

    // PUT without the secret keeps it; hosts are stored in lower case.
    const kept = await json<Connection>(
      t.req("PUT", `/admin/mcp/${c.id}`, { ...stdio({ hosts: ["WIKI.example.com."] }), secret: undefined }),
    );
    expect(kept).toMatchObject({
      has_secret: true,
      secret_last4: SECRET.slice(-4),
      hosts: ["wiki.example.com"],
    });
    expect((await rows())[0]!.secretCipher).toBe(row!.secretCipher);

    // Switching to http drops the stdio fields; an empty secret removes the secret.
    const moved = await json<Connection>(
      t.req("PUT", `/admin/mcp/${c.id}`, {
        name: "Wiki over HTTP",
        transport: "http",
        url: http.url,
        secret: "",
      }),
    );
    expect(moved).toEqual({
      id: c.id,
      name: "Wiki over HTTP",
      transport: "http",
      url: http.url,
      has_secret: false,
      secret_last4: "",
      tool_allowlist: [],
      is_search: false,
      search_tool: "",
      hosts: [],
      fetch_tool: "",
    });
    expect((await rows())[0]!.secretCipher).toBeNull();

    expect((await t.req("DELETE", `/admin/mcp/${c.id}`)).status).toBe(204);
    expect(await rows()).toEqual([]);
    await problem(await t.req("DELETE", `/admin/mcp/${c.id}`), 404, "not_found");
    await problem(await t.req("PUT", `/admin/mcp/${c.id}`, stdio()), 404, "not_found");
    await problem(await t.req("GET", `/admin/mcp/${c.id}/tools`), 404, "not_found");
  });

  it(
    "lists a stdio server's tools, annotations included; the server gets the secret and a minimal environment",
    async () => {
      const c = await add(stdio({ tool_allowlist: ["fetch", "search", "env"] }));
      const { items } = await json<Items<Tool>>(t.req("GET", `/admin/mcp/${c.id}/tools`));
      expect(items).toEqual(TOOLS);

      // What the subprocess saw, through the service's own session (the `env` tool is allowed here).
      const [use] = await t.services.mcp.uses();
      const { McpSession, textOf } = await import("../../server/mcp/client.js");
      const session = await McpSession.open(use!.endpoint, {
        env: {
          ...process.env,
          DATABASE_URL: "postgres://leak",
          SPEC_REVIEW_SECRET_KEY: "key-leak",
          AWS_SECRET_ACCESS_KEY: "x",
        },
      });
      try {
        const seen = JSON.parse(textOf(await session.call("env", {}))) as {
          names: string[];
          token_ok: boolean;
        };
        expect(seen.token_ok).toBe(true);
        for (const name of [
          "DATABASE_URL",
          "SPEC_REVIEW_SECRET_KEY",
          "AWS_SECRET_ACCESS_KEY",
          "TEST_DATABASE_URL",
        ])
          expect(seen.names).not.toContain(name);
        expect(seen.names).toContain("PATH");
        expect(seen.names).toContain("WIKI_TOKEN");
      } finally {
        await session.close();
      }
    },
    SUBPROCESS_MS,
  );

  it("lists a streamable HTTP server's tools with the secret as a bearer token", async () => {
    const c = await add({ name: "Wiki", transport: "http", url: http.url, secret: SECRET });
    const before = http.authorizations.length;
    const { items } = await json<Items<Tool>>(t.req("GET", `/admin/mcp/${c.id}/tools`));
    expect(items).toEqual(TOOLS);
    expect(http.authorizations.slice(before).every((a) => a === `Bearer ${SECRET}`)).toBe(true);

    // Without the token the server refuses: 502 mcp_unavailable, the token nowhere in the answer.
    await t.req("PUT", `/admin/mcp/${c.id}`, { name: "Wiki", transport: "http", url: http.url, secret: "" });
    const refused = await problem(await t.req("GET", `/admin/mcp/${c.id}/tools`), 502, "mcp_unavailable");
    expect(String(refused.detail)).toContain('MCP server "Wiki" could not be reached');
  });

  it(
    "says why a server cannot be reached, with its stderr and no secret",
    async () => {
      const c = await add(
        stdio({
          command: [
            process.execPath,
            "-e",
            `process.stderr.write("boom: token " + process.env.WIKI_TOKEN); process.exit(3)`,
          ],
        }),
      );
      const body = await problem(await t.req("GET", `/admin/mcp/${c.id}/tools`), 502, "mcp_unavailable");
      expect(String(body.detail)).toContain("boom: token ****");
      expect(JSON.stringify(body)).not.toContain(SECRET);

      const missing = await add(
        stdio({ name: "Missing", command: ["/no/such/mcp-server"], hosts: [], fetch_tool: undefined }),
      );
      const gone = await problem(
        await t.req("GET", `/admin/mcp/${missing.id}/tools`),
        502,
        "mcp_unavailable",
      );
      expect(String(gone.detail)).toContain("ENOENT");
    },
    SUBPROCESS_MS,
  );

  it("refuses a host another connection reads, and every bad body, writing nothing", async () => {
    const first = await add(stdio());
    const taken = await problem(
      await t.req(
        "POST",
        "/admin/mcp",
        stdio({ name: "Other", hosts: ["Wiki.Example.com"], is_search: false, search_tool: undefined }),
      ),
      409,
      "mcp_host_taken",
    );
    expect(taken).toMatchObject({ connection_id: first.id, host: "wiki.example.com" });

    const bad: Array<[Record<string, unknown>, string]> = [
      [stdio({ command: undefined }), "body.command"],
      [stdio({ url: "https://x.example.com/mcp" }), "body.url"],
      [stdio({ secret_env: undefined }), "body.secret_env"],
      [stdio({ secret_env: "DATABASE_URL" }), "body.secret_env"],
      [stdio({ secret_env: "PATH" }), "body.secret_env"],
      [stdio({ secret_env: "SPEC_REVIEW_SECRET_KEY" }), "body.secret_env"],
      [stdio({ secret_env: "NOT-A-NAME" }), "body.secret_env"],
      [{ name: "h", transport: "http" }, "body.url"],
      [{ name: "h", transport: "http", url: "file:///etc/passwd" }, "body.url"],
      [{ name: "h", transport: "http", url: http.url, command: ["x"] }, "body.command"],
      [{ name: "h", transport: "http", url: http.url, secret_env: "TOKEN" }, "body.secret_env"],
      [stdio({ fetch_tool: "delete_page" }), "body.fetch_tool"],
      [stdio({ fetch_tool: undefined }), "body.fetch_tool"],
      [stdio({ hosts: [], name: "x" }), "body.fetch_tool"],
      [stdio({ hosts: ["https://wiki.example.com/page"] }), "body.hosts.0"],
      [stdio({ hosts: ["a.example.com", "A.example.com"] }), "body.hosts"],
      [stdio({ search_tool: undefined }), "body.search_tool"],
      [stdio({ is_search: false }), "body.search_tool"],
      [stdio({ search_tool: "env" }), "body.search_tool"],
      [stdio({ tool_allowlist: ["fetch", "fetch", "search"] }), "body.tool_allowlist"],
      [stdio({ name: "   " }), "body.name"],
      [stdio({ transport: "sse" }), "body.transport"],
      [stdio({ token: "x" }), "body"],
      [stdio({ command: [] }), "body.command"],
    ];
    for (const [body, field] of bad) {
      const res = await t.req("POST", "/admin/mcp", body);
      const p = await problem(res, 400, "validation_failed");
      const fields = (p.errors as Array<{ field: string }>).map((e) => e.field);
      expect(
        fields.some((f) => f === field || f.startsWith(field)),
        `${JSON.stringify(body).slice(0, 120)} → ${fields.join(", ")}`,
      ).toBe(true);
    }
    await problem(
      await t.req("PUT", `/admin/mcp/${first.id}`, stdio({ secret: undefined, secret_env: undefined })),
      400,
      "validation_failed",
    );
    await problem(await t.req("PUT", "/admin/mcp/not-a-uuid", stdio()), 400, "validation_failed");
    expect(await rows()).toHaveLength(1);
    expect((await rows())[0]!.name).toBe("Team wiki");
  });
});
