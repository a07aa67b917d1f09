/**
 * The MCP server at /mcp over streamable HTTP, driven by the SDK's client against the app
 * listening on a real port: the built tools on real bundles (verdicts, findings, files as
 * resources), the operations not built yet answering their 501 as a tool error, input
 * validation, and hosted mode with and without a valid API token.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { DB_KINDS, json, makeTestApp, problem, type TestApp } from "../../helpers/app.js";
import { Hosted } from "../auth/helpers.js";
import { call, httpClient, listen, ok, problemOf, textOf, type Listening } from "./helpers.js";

const DEMO = resolve(import.meta.dirname, "../../../fixtures/demo");
const UNKNOWN_ID = "0b9e3f4c-5d6e-4f70-8a91-b2c3d4e5f601";

interface DocView {
  id: string;
  path: string;
  verdict: { result: string; must: number; should: number } | null;
}
interface BundleView {
  id: string;
  slug: string;
  state: string;
  docs: DocView[];
}

/** A KEP-shaped proposal with CRLF line ends, an emoji and inline HTML. */
const KEP = [
  "---",
  "type: kep",
  "size: standard",
  'title: "Pod readiness gates 🚦"',
  "status: provisional",
  "owning-sig: sig-node",
  "---",
  "",
  "# KEP-580: Pod readiness gates 🚦",
  "",
  "## Summary",
  "",
  "Let a controller hold a Pod out of Service endpoints until <b>its own</b> condition is true.",
  "",
].join("\r\n");

// Opening the file's database (PGlite: migrations) takes a while on a busy machine.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

/** The demo bundles plus the KEP, as the served folder's fixture. */
let fixture: string;
beforeAll(() => {
  fixture = mkdtempSync(join(tmpdir(), "sr-mcp-fixture-"));
  cpSync(DEMO, fixture, { recursive: true, filter: (src) => !src.includes(".spec-review") });
  mkdirSync(join(fixture, "keps", "580-readiness"), { recursive: true });
  writeFileSync(join(fixture, "keps", "580-readiness", "README.md"), KEP);
});
afterAll(() => rmSync(fixture, { recursive: true, force: true }));

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function served(
  t: TestApp,
  headers: Record<string, string> = {},
): Promise<{ s: Listening; client: Client }> {
  const s = await listen(t.app);
  cleanups.push(() => s.close());
  const client = await httpClient(s.url, headers);
  cleanups.push(() => client.close());
  return { s, client };
}

describe.each(DB_KINDS)("MCP over streamable HTTP at /mcp (%s)", (kind) => {
  describe("local mode, on the demo bundles", () => {
    async function demo() {
      const t = await makeTestApp({ kind, fixture });
      cleanups.push(() => t.close());
      // Every doc linted first, so what the tools and the API read does not move in between.
      await t.runs.idle();
      return { t, ...(await served(t)) };
    }

    it("lists every tool with its input schema, and the resource templates", async () => {
      const { client } = await demo();
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(
        [
          "ask_question",
          "get_doc",
          "get_findings",
          "get_thread",
          "get_verification",
          "list_bundles",
          "list_handoffs",
          "list_threads",
          "list_verifications",
          "reply_to_thread",
          "report_handoff",
          "start_verification",
          "take_handoff",
        ].sort(),
      );
      const ask = tools.find((t) => t.name === "ask_question")!;
      expect(ask.inputSchema.required).toEqual(expect.arrayContaining(["doc_id", "question"]));
      expect(tools.find((t) => t.name === "list_bundles")!.annotations?.readOnlyHint).toBe(true);
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates.map((r) => r.uriTemplate).sort()).toEqual([
        "spec-review://docs/{docId}/files/{+path}",
        "spec-review://handoffs/{handoffId}/{+name}",
      ]);
    });

    it("lists the bundles with the verdicts the API gives, and reads a doc and its findings", async () => {
      const { t, client } = await demo();
      const listed = ok<{ bundles: BundleView[] }>(await call(client, "list_bundles"));
      const api = await json<{
        items: Array<{
          slug: string;
          state: string;
          docs: Array<{ id: string; verdict?: { result: string; must: number } }>;
        }>;
      }>(t.req("GET", "/bundles"));
      expect(listed.bundles.map((b) => b.slug)).toEqual(api.items.map((b) => b.slug));
      expect(listed.bundles.map((b) => b.slug)).toEqual(
        expect.arrayContaining([
          "checkout",
          "checkout/api",
          "decisions/0001-use-postgres",
          "keps/580-readiness",
        ]),
      );
      for (const [i, b] of listed.bundles.entries()) {
        expect(b.state).toBe(api.items[i]!.state);
        expect(b.docs.map((d) => d.verdict?.result ?? null)).toEqual(
          api.items[i]!.docs.map((d) => d.verdict?.result ?? null),
        );
      }
      const kep = listed.bundles.find((b) => b.slug === "keps/580-readiness")!;
      const checkout = listed.bundles.find((b) => b.slug === "checkout")!.docs[0]!;
      expect(checkout.path).toBe("prd.md");

      const doc = ok<DocView & { profile_key: string }>(
        await call(client, "get_doc", { doc_id: checkout.id }),
      );
      expect(doc).toMatchObject({ id: checkout.id, profile_key: "prd", path: "prd.md" });

      const findings = ok<{
        verdict: DocView["verdict"];
        findings: Array<{ level: string; check: string; file?: string }>;
      }>(await call(client, "get_findings", { doc_id: checkout.id }));
      expect(findings.verdict).toEqual(expect.objectContaining({ result: doc.verdict!.result }));
      // The findings are the verdict's: as many MUST and SHOULD as it counts.
      expect(findings.findings.filter((f) => f.level === "MUST")).toHaveLength(doc.verdict!.must);
      expect(findings.findings.filter((f) => f.level === "SHOULD")).toHaveLength(doc.verdict!.should);
      const must = ok<{ findings: Array<{ level: string }> }>(
        await call(client, "get_findings", { doc_id: checkout.id, level: "MUST" }),
      );
      expect(must.findings.every((f) => f.level === "MUST")).toBe(true);
      expect(must.findings).toHaveLength(doc.verdict!.must);

      const kepDoc = ok<DocView & { title: string }>(
        await call(client, "get_doc", { doc_id: kep.docs[0]!.id }),
      );
      expect(kepDoc.path).toBe("README.md");
    });

    it("reads bundle files as resources: text byte for byte (CRLF, emoji, HTML), an image as base64", async () => {
      const { client } = await demo();
      const { bundles } = ok<{ bundles: BundleView[] }>(await call(client, "list_bundles"));
      const kep = bundles.find((b) => b.slug === "keps/580-readiness")!.docs[0]!;
      const text = await client.readResource({ uri: `spec-review://docs/${kep.id}/files/README.md` });
      expect(text.contents[0]).toMatchObject({ mimeType: "text/markdown", text: KEP });

      const saved = bundles.find((b) => b.slug === "saved-searches")!.docs[0]!;
      const png = await client.readResource({ uri: `spec-review://docs/${saved.id}/files/search-bar.png` });
      const blob = (png.contents[0] as { blob: string; mimeType: string }).blob;
      expect((png.contents[0] as { mimeType: string }).mimeType).toBe("image/png");
      expect(Buffer.from(blob, "base64").subarray(1, 4).toString("latin1")).toBe("PNG");

      await expect(
        client.readResource({ uri: `spec-review://docs/${kep.id}/files/missing.md` }),
      ).rejects.toThrow(/-32002.*missing\.md is not in this version \(HTTP 404, code file_not_found\)/);
      await expect(
        client.readResource({ uri: `spec-review://docs/${kep.id}/files/..%2F..%2Fetc%2Fpasswd` }),
      ).rejects.toThrow(/path/i);
      // A packet that was never taken in this session is not made up.
      await expect(
        client.readResource({ uri: `spec-review://handoffs/${UNKNOWN_ID}/prompt.md` }),
      ).rejects.toThrow(/take_handoff/);
      expect((await client.listResources()).resources).toEqual([]);
    });

    it("answers through each tool as the API answers: results, problems as tool errors, 501 for what is not built", async () => {
      const { t, client } = await demo();
      // Which of these operations are still stubs: the OpenAPI document marks them. Once one is
      // built (threads, handoff, verification are on other branches) it leaves this list, and
      // its tool is tested on the real operation instead.
      const openapi = await json<{ paths: Record<string, Record<string, Record<string, unknown>>> }>(
        t.req("GET", "/openapi.json"),
      );
      const stubbed = (operation: string) => {
        const [method, path] = operation.split(" ") as [string, string];
        return openapi.paths[path]?.[method.toLowerCase()]?.["x-not-implemented"] === true;
      };
      const { bundles } = ok<{ bundles: BundleView[] }>(await call(client, "list_bundles"));
      const docId = bundles.find((b) => b.slug === "checkout/api")!.docs[0]!.id;
      const calls: Array<[string, Record<string, unknown>, string]> = [
        [
          "take_handoff",
          { doc_id: docId, label: "acme/shop#12", acknowledged: true },
          "POST /docs/{docId}/handoff",
        ],
        ["list_handoffs", { doc_id: docId }, "GET /docs/{docId}/handoff"],
        [
          "report_handoff",
          { handoff_id: UNKNOWN_ID, result: "blocked", notes: "Which tax table?" },
          "POST /handoffs/{handoffId}/report",
        ],
        ["list_threads", { doc_id: docId }, "GET /docs/{docId}/threads"],
        ["get_thread", { thread_id: UNKNOWN_ID }, "GET /threads/{threadId}"],
        [
          "ask_question",
          { doc_id: docId, question: "Is the refund endpoint idempotent?" },
          "POST /docs/{docId}/threads",
        ],
        ["reply_to_thread", { thread_id: UNKNOWN_ID, body: "Thanks" }, "POST /threads/{threadId}/messages"],
        ["start_verification", { doc_id: docId, target: "acme/shop" }, "POST /docs/{docId}/verifications"],
        ["get_verification", { run_id: UNKNOWN_ID, wait_seconds: 5 }, "GET /verifications/{runId}"],
        ["list_verifications", { doc_id: docId }, "GET /docs/{docId}/verifications"],
      ];
      for (const [, , operation] of calls) {
        const [method, path] = operation.split(" ") as [string, string];
        expect(openapi.paths[path]?.[method.toLowerCase()], operation).toBeDefined();
      }
      // A built operation answers through its tool as the API answers it: the result, or the
      // API's problem as the tool error (an unknown id is the API's 404).
      const built = calls.filter(([, , operation]) => !stubbed(operation));
      const got: Record<string, string> = {};
      for (const [name, args] of built) {
        const result = await call(client, name, args);
        got[name] = result.isError ? `${problemOf(result)?.status} ${problemOf(result)?.code}` : "ok";
      }
      const answers: Record<string, string> = {
        take_handoff: "ok", // acknowledged: whatever the verdict
        list_handoffs: "ok",
        report_handoff: "404 handoff_not_found",
        list_threads: "ok",
        get_thread: "404 not_found",
        ask_question: "ok",
        reply_to_thread: "404 not_found",
        // Local mode has no repo host to read a GitHub repository through.
        start_verification: "409 repohost_reader_missing",
        get_verification: "404 not_found",
        list_verifications: "ok",
      };
      expect(got).toEqual(Object.fromEntries(built.map(([name]) => [name, answers[name]])));
      const pending = calls.filter(([, , operation]) => stubbed(operation));
      for (const [name, args, operation] of pending) {
        const result = await call(client, name, args);
        expect(problemOf(result), name).toMatchObject({ status: 501, code: "not_implemented" });
        expect(textOf(result), name).toBe(
          `Not implemented yet: ${operation} is in the contract but not built yet (HTTP 501, code not_implemented)`,
        );
        expect(result.content).toHaveLength(1);
      }
    });

    it("refuses bad input: the SDK checks the schema, the API answers the rest", async () => {
      const { client } = await demo();
      const missing = await call(client, "get_doc", {});
      expect(missing.isError).toBe(true);
      expect(textOf(missing)).toMatch(/Input validation error.*doc_id/);
      const notUuid = await call(client, "get_findings", { doc_id: "../admin/settings" });
      expect(textOf(notUuid)).toMatch(/Input validation error.*must be a UUID/);
      const badResult = await call(client, "report_handoff", {
        handoff_id: UNKNOWN_ID,
        result: "done",
        notes: "x",
      });
      expect(textOf(badResult)).toMatch(/Input validation error.*result/);
      const longTitle = await call(client, "ask_question", {
        doc_id: UNKNOWN_ID,
        question: "Why?",
        title: "x".repeat(201),
      });
      expect(textOf(longTitle)).toMatch(/Input validation error.*title/);
      const noCheck = await call(client, "ask_question", {
        doc_id: UNKNOWN_ID,
        question: "Is this right?",
        finding_id: UNKNOWN_ID,
      });
      expect(textOf(noCheck)).toMatch(/Input validation error: finding_id needs check_slug/);
      const tooLong = await call(client, "get_verification", { run_id: UNKNOWN_ID, wait_seconds: 3600 });
      expect(textOf(tooLong)).toMatch(/Input validation error.*wait_seconds/);
      const badCursor = await call(client, "list_bundles", { cursor: "not-a-cursor" });
      expect(problemOf(badCursor)).toMatchObject({ status: 400, code: "bad_cursor" });
      const gone = await call(client, "get_doc", { doc_id: UNKNOWN_ID });
      expect(problemOf(gone)).toMatchObject({ status: 404, code: "not_found" });
      const unknownTool = await call(client, "delete_everything", {});
      expect(textOf(unknownTool)).toMatch(/Tool delete_everything not found/);
    });

    it("answers only POST: a stateless server has no stream to GET and no session to DELETE", async () => {
      const { s } = await demo();
      for (const method of ["GET", "DELETE"]) {
        const res = await fetch(`${s.url}/mcp`, { method, headers: { accept: "text/event-stream" } });
        expect(res.status, method).toBe(405);
        expect(res.headers.get("allow")).toBe("POST");
      }
    });

    it("refuses a POST from another web page, like any API write", async () => {
      const { s } = await demo();
      const res = await fetch(`${s.url}/mcp`, {
        method: "POST",
        headers: {
          origin: "https://evil.example",
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      await problem(res, 403, "cross_origin");
    });
  });

  describe("local mode served beyond loopback (--allow-remote)", () => {
    it("needs the printed API token, as the API does, and passes it on to each tool's call", async () => {
      const t = await makeTestApp({ kind, fixture: DEMO, http: { apiToken: "srl_printed_at_start" } });
      cleanups.push(() => t.close());
      const s = await listen(t.app);
      cleanups.push(() => s.close());
      await expect(httpClient(s.url)).rejects.toThrow(/401|unauthenticated|API token/);
      await expect(httpClient(s.url, { authorization: "Bearer wrong" })).rejects.toThrow(/401|invalid_token/);
      const client = await httpClient(s.url, { authorization: "Bearer srl_printed_at_start" });
      cleanups.push(() => client.close());
      const { bundles } = ok<{ bundles: BundleView[] }>(await call(client, "list_bundles"));
      expect(bundles.length).toBeGreaterThan(3);
    });
  });

  describe("hosted mode", () => {
    async function hosted() {
      const h = await Hosted.open(kind);
      cleanups.push(() => h.t.close());
      const ada = await h.signUp("member", "ada@example.com", "Ada");
      const made = await json<{ token: string }>(h.as(ada.cookie, "POST", "/me/tokens", { name: "agent" }));
      const bearer = { authorization: `Bearer ${made.token}` };
      const created = await h.t.req(
        "POST",
        "/bundles",
        { profile: "adr", name: "0002-queue-backend" },
        bearer,
      );
      expect(created.status, await created.clone().text()).toBe(201);
      const doc = (await created.json()) as { id: string; bundle_id: string };
      const s = await listen(h.t.app);
      cleanups.push(() => s.close());
      return { h, ada, token: made.token, doc, s };
    }

    it("serves the token owner's bundles with a valid API token", async () => {
      const { token, doc, s } = await hosted();
      const client = await httpClient(s.url, { authorization: `Bearer ${token}` });
      cleanups.push(() => client.close());
      const { bundles } = ok<{ bundles: BundleView[] }>(await call(client, "list_bundles"));
      expect(bundles.map((b) => b.slug)).toEqual(["0002-queue-backend"]);
      expect(bundles[0]!.docs[0]!.id).toBe(doc.id);
      const read = ok<DocView>(await call(client, "get_doc", { doc_id: doc.id }));
      expect(read.id).toBe(doc.id);
      const file = await client.readResource({ uri: `spec-review://docs/${doc.id}/files/${read.path}` });
      expect((file.contents[0] as { text: string }).text).toMatch(/^---\n[\s\S]*type: adr/);
    });

    it("refuses a request with no token, an unknown token, or only a browser's session cookie", async () => {
      const { ada, s } = await hosted();
      await expect(httpClient(s.url)).rejects.toThrow(/401|unauthenticated/);
      await expect(httpClient(s.url, { authorization: "Bearer srt_made_up" })).rejects.toThrow(
        /401|invalid_token/,
      );
      const body = JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
      });
      const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
      await problem(await fetch(`${s.url}/mcp`, { method: "POST", headers, body }), 401, "unauthenticated");
      await problem(
        await fetch(`${s.url}/mcp`, {
          method: "POST",
          headers: { ...headers, authorization: "Bearer srt_made_up" },
          body,
        }),
        401,
        "invalid_token",
      );
      const cookie = await fetch(`${s.url}/mcp`, {
        method: "POST",
        headers: { ...headers, cookie: ada.cookie, origin: s.url },
        body,
      });
      const refused = await problem(cookie, 401, "unauthenticated");
      expect(String(refused.detail)).toMatch(/API token/);
    });

    it("holds each tool to the token owner's permissions: another member's private bundle is not found", async () => {
      const { h, doc, s } = await hosted();
      // Ada keeps her bundle private; Bo, another member, must not see it through MCP either.
      expect(
        (
          await h.t.req(
            "PUT",
            `/bundles/${doc.bundle_id}/visibility`,
            { visibility: "private" },
            {
              authorization: `Bearer ${(await json<{ token: string }>(h.as((await h.signUp("admin", "root@example.com")).cookie, "POST", "/me/tokens", { name: "root" }))).token}`,
            },
          )
        ).status,
      ).toBe(200);
      const bo = await h.signUp("member", "bo@example.com", "Bo");
      const boToken = await json<{ token: string }>(
        h.as(bo.cookie, "POST", "/me/tokens", { name: "bo-agent" }),
      );
      const client = await httpClient(s.url, { authorization: `Bearer ${boToken.token}` });
      cleanups.push(() => client.close());
      const { bundles } = ok<{ bundles: BundleView[] }>(await call(client, "list_bundles"));
      expect(bundles).toEqual([]);
      expect(problemOf(await call(client, "get_doc", { doc_id: doc.id }))).toMatchObject({
        status: 404,
        code: "not_found",
      });
    });
  });
});
