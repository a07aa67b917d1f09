/**
 * What the service calls on an MCP server, against the test wiki over streamable HTTP: only
 * allowlisted tools, never a destructive one (refused before anything is sent), and how
 * targets and searches read their answers.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../../server/deps.js";
import { McpCallError, McpSession, type McpEndpoint } from "../../../server/mcp/client.js";
import type { McpUse } from "../../../server/mcp/connections.js";
import { searchHits, mcpGrounding } from "../../../server/mcp/grounding.js";
import {
  connectionFor,
  McpSessions,
  pinnedCommit,
  plainUrl,
  readTargets,
} from "../../../server/mcp/targets.js";
import { startMcpHttpServer, type McpHttpServer } from "../../helpers/mcp-server.js";

const SHA = "3f9c1a7b2d4e5f60718293a4b5c6d7e8f9012345";

let wiki: McpHttpServer;
beforeAll(async () => {
  wiki = await startMcpHttpServer({
    pages: {
      "https://wiki.example.com/a": { text: "Page A" },
      "https://code.example.com/x.ts": { text: "export {}", commit: "c".repeat(40) },
    },
    search: [
      { match: "nightly", url: "https://blog.example.com/nightly", title: "Nightly", snippet: "At 02:00." },
    ],
  });
});
afterAll(async () => {
  await wiki.close();
});

const endpoint = (toolAllowlist: string[]): McpEndpoint => ({
  id: "00000000-0000-4000-8000-000000000001",
  name: "Wiki",
  transport: "http",
  url: wiki.url,
  toolAllowlist,
});

async function failure(p: Promise<unknown>): Promise<McpCallError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(McpCallError);
  return err as McpCallError;
}

describe("an MCP session", () => {
  it("calls only allowlisted tools and never a destructive one, even when allowlisted", async () => {
    const session = await McpSession.open(endpoint(["fetch", "delete_page", "nope"]));
    try {
      const before = { ...wiki.calls };
      expect((await failure(session.call("env", {}))).failure).toBe("not_allowed");
      const destructive = await failure(session.call("delete_page", { url: "https://wiki.example.com/a" }));
      expect(destructive.failure).toBe("destructive");
      expect(destructive.message).toContain("annotated destructive");
      expect((await failure(session.call("nope", {}))).failure).toBe("unknown_tool");
      expect(wiki.calls).toEqual(before);
      expect(wiki.calls.delete_page).toBeUndefined();

      const miss = await failure(session.call("fetch", { url: "https://wiki.example.com/none" }));
      expect(miss).toMatchObject({ failure: "tool_failed" });
      expect(miss.message).toContain("no page https://wiki.example.com/none");
    } finally {
      await session.close();
    }
  });

  it("cannot open a server that does not answer", async () => {
    const err = await failure(
      McpSession.open({ ...endpoint([]), url: "http://127.0.0.1:9/mcp" }, { timeoutMs: 2_000 }),
    );
    expect(err.failure).toBe("unavailable");
  });
});

describe("reading targets and searching", () => {
  const use = (extra: Partial<McpUse> = {}): McpUse => ({
    endpoint: endpoint(["fetch", "search"]),
    hosts: ["wiki.example.com", "*.example.com"],
    fetchTool: "fetch",
    searchTool: "search",
    ...extra,
  });

  it("picks the connection of a host: exact first, then a wildcard; none for other hosts", () => {
    const exact = use({ hosts: ["wiki.example.com"] });
    const wild = use({ hosts: ["*.example.com"] });
    expect(connectionFor([wild, exact], "https://wiki.example.com/x")).toBe(exact);
    expect(connectionFor([wild, exact], "https://code.example.com/x")).toBe(wild);
    expect(connectionFor([wild, exact], "https://example.com/x")).toBeUndefined();
    expect(connectionFor([wild, exact], "https://example.org/x")).toBeUndefined();
  });

  it("records the commit a code URL pins, and reads GitHub file pages as raw files", () => {
    expect(pinnedCommit(`https://github.com/acme/shop/blob/${SHA}/src/a.ts#L3`)).toBe(SHA);
    expect(pinnedCommit(`https://raw.githubusercontent.com/acme/shop/${SHA}/src/a.ts`)).toBe(SHA);
    expect(pinnedCommit(`https://gitlab.example.com/g/p/-/blob/${SHA.toUpperCase()}/a.ts`)).toBe(SHA);
    expect(pinnedCommit(`https://bitbucket.org/acme/shop/src/${SHA}/a.ts`)).toBe(SHA);
    expect(pinnedCommit("https://github.com/acme/shop/blob/main/src/a.ts")).toBeUndefined();
    expect(pinnedCommit("https://github.com/acme/shop/issues/12")).toBeUndefined();
    expect(plainUrl(`https://github.com/acme/shop/blob/${SHA}/src/a.ts#L3`)).toBe(
      `https://raw.githubusercontent.com/acme/shop/${SHA}/src/a.ts`,
    );
    expect(plainUrl("https://github.com/acme/shop/issues/12")).toBe("https://github.com/acme/shop/issues/12");
  });

  it("reads each target through its host's fetch tool, or says why it was not read", async () => {
    const sessions = new McpSessions({ logger: silentLogger });
    try {
      const read = await readTargets(
        [
          "https://wiki.example.com/a",
          "https://code.example.com/x.ts",
          "https://wiki.example.com/gone",
          "http://10.0.0.8/x",
        ],
        sessions,
        { uses: [use()], logger: silentLogger, fetch: { allowPrivate: false } },
      );
      expect(read).toEqual([
        { url: "https://wiki.example.com/a", text: "Page A" },
        { url: "https://code.example.com/x.ts", text: "export {}", commit: "c".repeat(40) },
        {
          url: "https://wiki.example.com/gone",
          unread: expect.stringMatching(/^mcp_tool_failed: .*no page/),
        },
        {
          url: "http://10.0.0.8/x",
          unread: expect.stringMatching(/^disallowed: 10\.0\.0\.8 is not a public address/),
        },
      ]);
      // Another run, whose connection (wrongly) names the destructive tool as its fetch tool.
      const other = new McpSessions({ logger: silentLogger });
      const destructive = await readTargets(["https://wiki.example.com/a"], other, {
        uses: [use({ endpoint: endpoint(["delete_page"]), fetchTool: "delete_page" })],
        logger: silentLogger,
      });
      await other.close();
      expect(destructive[0]!.unread).toMatch(/^mcp_destructive: /);
      expect(wiki.calls.delete_page).toBeUndefined();
    } finally {
      await sessions.close();
    }
  });

  it("labels a claim with the search tool's sources; a failed search gives none", async () => {
    const sessions = new McpSessions({ logger: silentLogger });
    const clock = { now: () => new Date("2026-11-20T10:00:00Z") };
    try {
      const plain = mcpGrounding({
        use: use(),
        sessions,
        resolveSources: false,
        clock,
        logger: silentLogger,
      });
      expect(await plain.sources("Orders are exported nightly.")).toEqual([
        { text: "At 02:00.", found: false, url: "https://blog.example.com/nightly", title: "Nightly" },
      ]);
      expect(await plain.sources("Something else.")).toEqual([]);
      const resolved = mcpGrounding({
        use: use(),
        sessions,
        resolveSources: true,
        clock,
        logger: silentLogger,
        fetch: { resolve: () => Promise.resolve(["192.168.0.4"]), allowPrivate: false },
      });
      expect(await resolved.sources("nightly")).toEqual([
        expect.objectContaining({
          redirect_chain: [],
          resolve_error: expect.stringMatching(/^disallowed: blog\.example\.com resolves to 192\.168\.0\.4/),
        }),
      ]);
      const broken = mcpGrounding({
        use: use({ endpoint: endpoint(["fetch"]) }),
        sessions: new McpSessions({ logger: silentLogger }),
        resolveSources: false,
        clock,
        logger: silentLogger,
      });
      expect(await broken.sources("nightly")).toEqual([]);
    } finally {
      await sessions.close();
    }
  });

  it("reads search answers as structured results, JSON text or resource links", () => {
    const hit = { url: "https://a.example.com/", title: "A", snippet: "s" };
    expect(searchHits({ content: [], structuredContent: { results: [hit] } })).toEqual([hit]);
    expect(
      searchHits({ content: [{ type: "text", text: JSON.stringify([hit, { url: "ftp://x" }]) }] }),
    ).toEqual([hit]);
    expect(
      searchHits({
        content: [
          { type: "resource_link", uri: "https://b.example.com/", name: "B", description: "about b" },
        ],
      }),
    ).toEqual([{ url: "https://b.example.com/", title: "B", snippet: "about b" }]);
    expect(searchHits({ content: [{ type: "text", text: "no results" }] })).toEqual([]);
  });
});
