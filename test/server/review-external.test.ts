/**
 * External links and grounding in a full review, end to end: a design doc whose frontmatter
 * links a PRD page, code and runbooks; an MCP connection (the test wiki over streamable HTTP)
 * that reads the wiki and GitHub hosts and searches; a local intranet server read over plain
 * HTTP only when SPEC_REVIEW_ALLOW_PRIVATE_TARGETS allows it; the model scripted through the
 * fake OpenAI server.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { z } from "@hono/zod-openapi";
import { DB_KINDS, json, makeTestApp, type TestApp } from "../helpers/app.js";
import { startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { startMcpHttpServer, type McpHttpServer } from "../helpers/mcp-server.js";
import { answerFor, configureModels, docIdOf, settle } from "../core/review/e2e-helpers.js";
import type { Items } from "../helpers/types.js";
import type { ClaimSchema, RunSchema } from "../../server/schemas/runs.js";
import { linkCheckStates } from "../../server/mcp/link-checks.js";
import type { Clock } from "../../server/deps.js";

type Run = z.infer<typeof RunSchema>;
type Claim = z.infer<typeof ClaimSchema>;

const PINNED = "3f9c1a7b2d4e5f60718293a4b5c6d7e8f9012345";
const HEAD = "9d8c7b6a5f4e3d2c1b0a99887766554433221100";
const PRD = "https://wiki.example.com/prd/order-export";
const CODE_MAIN = "https://github.com/acme/shop/blob/main/src/export/orders.ts";
const CODE_PINNED = `https://github.com/acme/shop/blob/${PINNED}/docs/export-format.md`;
const RUNBOOK = "https://wiki.example.com/runbooks/order-export";
const MISSING = "https://wiki.example.com/runbooks/retired";

let intranet: Server;
let intranetUrl: string;
const intranetHits: string[] = [];
let wiki: McpHttpServer;
let fake: FakeOpenAI;

beforeAll(async () => {
  intranet = createServer((req, res) => {
    intranetHits.push(req.url ?? "");
    if (req.url === "/retention")
      res.writeHead(200, { "content-type": "text/plain" }).end("Exports are kept 30 days.");
    else if (req.url === "/big")
      res.writeHead(200, { "content-type": "text/plain" }).end("x".repeat(3 * 1024 * 1024));
    else if (req.url === "/sources/old") res.writeHead(301, { location: "/sources/new" }).end();
    else res.writeHead(200, { "content-type": "text/plain" }).end("Export schedule: 02:00 UTC.");
  });
  await new Promise<void>((r) => intranet.listen(0, "127.0.0.1", r));
  intranetUrl = `http://127.0.0.1:${(intranet.address() as AddressInfo).port}`;
  wiki = await startMcpHttpServer(
    {
      pages: {
        [PRD]: { text: "Order export PRD\nOrders are exported nightly as CSV, one row per order." },
        [CODE_MAIN]: {
          text: "Drift: the exporter now also writes Parquet.\nexport function exportOrders() {}",
          commit: HEAD,
        },
        [CODE_PINNED]: { text: "Export format\nOne CSV row per order, UTF-8." },
        [RUNBOOK]: { text: "Runbook\nConflict: the export runs every hour." },
      },
      search: [
        {
          match: "Fact:",
          url: `${intranetUrl}/sources/old`,
          title: "Export schedule",
          snippet: "Exports run at 02:00 UTC.",
        },
      ],
    },
    { token: "wiki-bearer-token-8842" },
  );
  fake = await startFakeOpenAI({ handler: answerFor });
});
afterAll(async () => {
  await fake.close();
  await wiki.close();
  await new Promise<void>((r) => intranet.close(() => r()));
});

function spec(): string {
  return [
    "---",
    "type: design",
    "size: standard",
    "title: Nightly order export",
    'authors: ["Dana Ruiz"]',
    `implements: ${PRD}`,
    `refines: ${CODE_MAIN}`,
    "references:",
    `  - ${CODE_PINNED}`,
    `  - ${RUNBOOK}`,
    `  - ${MISSING}`,
    `  - ${intranetUrl}/retention`,
    `  - ${intranetUrl}/big`,
    "supersedes: order-export-v1",
    "---",
    "",
    "# Nightly order export",
    "",
    "## Context",
    "",
    "Finance reconciles orders every morning from a CSV export.",
    "",
    "Fact: Orders are exported nightly at 02:00 UTC.",
    "",
    "## Proposed design",
    "",
    "- REQ-001 The exporter writes one CSV row per order.",
    "- REQ-002 Files are kept for 30 days.",
    "",
  ].join("\n");
}

describe.each(DB_KINDS)("external links and grounding in a full review on %s", (kind) => {
  let t: TestApp;
  let now = new Date("2026-11-20T09:00:00.000Z");
  const clock: Clock = { now: () => new Date(now) };

  beforeEach(async () => {
    fake.reset();
    intranetHits.length = 0;
    now = new Date("2026-11-20T09:00:00.000Z");
    const fixture = mkdtempSync(join(tmpdir(), "sr-external-"));
    mkdirSync(join(fixture, "order-export"));
    writeFileSync(join(fixture, "order-export", "design.md"), spec());
    t = await makeTestApp({ kind, clock, fixture, worker: { pollMs: 20 } });
    rmSync(fixture, { recursive: true });
    await configureModels(t, fake.baseUrl);
    const res = await t.req("POST", "/admin/mcp", {
      name: "Wiki",
      transport: "http",
      url: wiki.url,
      secret: "wiki-bearer-token-8842",
      tool_allowlist: ["fetch", "search"],
      hosts: ["wiki.example.com", "github.com"],
      fetch_tool: "fetch",
      is_search: true,
      search_tool: "search",
    });
    expect(res.status, await res.clone().text()).toBe(201);
  });
  afterEach(async () => {
    vi.unstubAllEnvs();
    await t.close();
  });

  const review = async () => {
    const docId = await docIdOf(t);
    const run = await settle(t, (await json<Run>(t.req("POST", `/docs/${docId}/runs`))).id, 60_000);
    expect(run.status, run.error).toBe("done");
    return run;
  };
  const bundleId = async () => t.store.bundleIdOfDoc(await docIdOf(t));

  it("checks each external target once and records its state, reason, time and commit", async () => {
    const run = await review();
    expect((run.stages as Array<{ name: string }>).map((s) => s.name)).toContain("external");
    const asked = fake.completions.filter(
      (r) => r.body.response_format?.json_schema?.name === "external_link",
    );
    expect(asked).toHaveLength(4);
    expect(intranetHits).toEqual([]); // private targets are refused before any connection

    const states = await linkCheckStates(t.database.db, await bundleId());
    const checkedAt = "2026-11-20T09:00:00.000Z";
    expect(Object.fromEntries(states)).toEqual({
      [PRD]: {
        state: "aligned",
        state_reason: "The target says: Order export PRD",
        checked_at: checkedAt,
      },
      [CODE_MAIN]: {
        state: "drifted",
        state_reason: "The target says: Drift: the exporter now also writes Parquet.",
        checked_at: checkedAt,
        commit: HEAD,
      },
      [CODE_PINNED]: {
        state: "aligned",
        state_reason: "The target says: Export format",
        checked_at: checkedAt,
        commit: PINNED,
      },
      [RUNBOOK]: {
        state: "conflicting",
        state_reason: "The target says: Runbook",
        checked_at: checkedAt,
      },
      [MISSING]: {
        state: "unchecked",
        state_reason: expect.stringMatching(/^mcp_tool_failed: .*no page/),
        checked_at: checkedAt,
      },
      [`${intranetUrl}/retention`]: {
        state: "unchecked",
        state_reason: expect.stringMatching(/^disallowed: 127\.0\.0\.1 is not a public address/),
        checked_at: checkedAt,
      },
      [`${intranetUrl}/big`]: {
        state: "unchecked",
        state_reason: expect.stringMatching(/^disallowed: /),
        checked_at: checkedAt,
      },
    });
    // The wiki got the bearer token on every request.
    expect(wiki.authorizations.every((a) => a === "Bearer wiki-bearer-token-8842")).toBe(true);

    // Grounding: the claim carries the search connection's source; the redirect could not be
    // followed (the source is on a private address).
    const claims = (await json<Items<Claim>>(t.req("GET", `/runs/${run.id}/claims`))).items;
    const fact = claims.find((c) => c.text.startsWith("Fact:"))!;
    expect(fact.sources).toEqual([
      { text: "Fact: Orders are exported nightly at 02:00 UTC.", found: true, file: "design.md" },
      {
        text: "Exports run at 02:00 UTC.",
        found: false,
        url: `${intranetUrl}/sources/old`,
        title: "Export schedule",
        redirect_chain: [],
        resolve_error: expect.stringMatching(/^disallowed: /),
      },
    ]);
  }, 120_000);

  it("reads private targets and follows source redirects when allowed, and leaves sources unresolved with resolve_sources off", async () => {
    vi.stubEnv("SPEC_REVIEW_ALLOW_PRIVATE_TARGETS", "1");
    const first = await review();
    const states = await linkCheckStates(t.database.db, await bundleId());
    expect(states.get(`${intranetUrl}/retention`)).toMatchObject({
      state: "aligned",
      state_reason: "The target says: Exports are kept 30 days.",
    });
    expect(states.get(`${intranetUrl}/big`)).toMatchObject({
      state: "unchecked",
      state_reason: expect.stringMatching(/^too_large: /),
    });
    const fact = (await json<Items<Claim>>(t.req("GET", `/runs/${first.id}/claims`))).items.find((c) =>
      c.text.startsWith("Fact:"),
    )!;
    expect(fact.sources[1]).toEqual({
      text: "Exports run at 02:00 UTC.",
      found: false,
      url: `${intranetUrl}/sources/old`,
      title: "Export schedule",
      redirect_chain: [`${intranetUrl}/sources/new`],
      retrieved_at: "2026-11-20T09:00:00.000Z",
    });

    // A later run replaces the states (the latest run's), and resolve_sources off drops the
    // redirect chain and the date.
    now = new Date("2026-11-21T09:00:00.000Z");
    const put = await t.req("PUT", "/admin/settings", {
      max_file_mb: 10,
      max_bundle_mb: 50,
      invite_ttl_days: 7,
      parallel_calls: 4,
      resolve_sources: false,
    });
    expect(put.status).toBe(200);
    const second = await review();
    const again = await linkCheckStates(t.database.db, await bundleId());
    expect(again.get(PRD)).toMatchObject({ state: "aligned", checked_at: "2026-11-21T09:00:00.000Z" });
    const grounded = (await json<Items<Claim>>(t.req("GET", `/runs/${second.id}/claims`))).items.find((c) =>
      c.text.startsWith("Fact:"),
    )!;
    expect(grounded.sources[1]).toEqual({
      text: "Exports run at 02:00 UTC.",
      found: false,
      url: `${intranetUrl}/sources/old`,
      title: "Export schedule",
    });
  }, 180_000);
});
