/**
 * Issue 9, "No secret in any answer, log or stored error": a provider that echoes the
 * Authorization header into its error body does not get the key into the run's error, the
 * database, the run's events, an answer or the log.
 */
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { json, makeTestApp, type TestApp } from "../../helpers/app.js";
import { startFakeOpenAI, type FakeOpenAI } from "../../helpers/fake-openai.js";
import { docIdOf, settle } from "../../core/review/e2e-helpers.js";
import { jsonLogger } from "../../../server/deps.js";
import { runEvents, runs } from "../../../server/db/schema.js";
import { redact, redactDeep, registerSecret } from "../../../server/redact.js";
import { SecretBox } from "../../../server/models/secrets.js";

const FIXTURE = resolve(import.meta.dirname, "../../../fixtures/review");
/** Not shaped like any known key format: only knowing it finds it. */
const SECRET = "local-echo-SECRET-4321-q7Zx";
/** A third party's token in the provider's answer: found by its shape. */
const GITHUB_TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";

describe("a provider echoing the key", () => {
  let fake: FakeOpenAI;
  let t: TestApp;
  const lines: string[] = [];

  beforeAll(async () => {
    fake = await startFakeOpenAI({
      handler: (req) => {
        const auth = String(req.headers.authorization ?? "");
        return {
          status: 401,
          body: {
            error: {
              message: `Incorrect credential. You sent "${auth}" (that is ${auth.slice(7)}); also seen: ${GITHUB_TOKEN}`,
              type: "invalid_request_error",
              code: "invalid_api_key",
            },
          },
        };
      },
    });
    t = await makeTestApp({
      fixture: FIXTURE,
      worker: { pollMs: 20 },
      logger: jsonLogger({ debug: true, write: (line) => lines.push(line) }),
    });
    const res = await t.req("POST", "/admin/backends", {
      kind: "provider_1",
      name: "echo",
      base_url: fake.baseUrl,
      secret: SECRET,
    });
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: string };
    for (const role of ["reviewer", "reader", "judge"])
      expect((await t.req("PUT", `/admin/roles/${role}`, { backend_id: id, model: "m" })).status).toBe(200);
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  const leaks = (text: string) => [SECRET, GITHUB_TOKEN, "SECRET-4321"].filter((s) => text.includes(s));

  it("keeps the key out of the run's error, the database row, the events and the log", async () => {
    const docId = await docIdOf(t);
    const started = await t.req("POST", `/docs/${docId}/runs`);
    expect(started.status).toBe(202);
    const { id: runId } = (await started.json()) as { id: string };
    const run = await settle(t, runId);
    expect(run.status).toBe("failed");
    // The provider did get the key, and did echo it.
    expect(fake.completions[0]!.headers.authorization).toBe(`Bearer ${SECRET}`);

    const list = await json<{ items: Array<{ id: string; error?: string }> }>(
      t.req("GET", `/docs/${docId}/runs`),
    );
    const listed = list.items.find((r) => r.id === runId)!;
    expect(listed.error).toMatch(/401/);
    expect(listed.error).toContain("****");
    expect(leaks(listed.error!)).toEqual([]);
    expect(leaks(JSON.stringify(run))).toEqual([]);

    const [row] = await t.database.db.select().from(runs).where(eq(runs.id, runId));
    expect(row!.error).toContain("****");
    expect(leaks(row!.error!)).toEqual([]);
    const events = await t.database.db.select().from(runEvents).where(eq(runEvents.runId, runId));
    expect(events.length).toBeGreaterThan(0);
    expect(leaks(JSON.stringify(events.map((e) => e.data)))).toEqual([]);

    const sse = await t.req("GET", `/runs/${runId}/events`);
    expect(leaks(await sse.text())).toEqual([]);
    expect(leaks(lines.join("\n"))).toEqual([]);
  });

  it("keeps the key out of a synchronous answer (POST /reviews with full) and of the backend test", async () => {
    const res = await t.req("POST", "/reviews", {
      files: [{ path: "spec.md", content: "---\ntype: prd\n---\n# A spec\n\nSome text.\n" }],
      full: true,
    });
    const text = await res.text();
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(leaks(text)).toEqual([]);
    const backends = await json<{ items: Array<{ id: string }> }>(t.req("GET", "/admin/backends"));
    const tested = await t.req("POST", `/admin/backends/${backends.items[0]!.id}/test`, { model: "m" });
    const body = await tested.text();
    expect(body).toContain("401");
    expect(leaks(body)).toEqual([]);
    expect(leaks(lines.join("\n"))).toEqual([]);
  });
});

describe("the redactor", () => {
  it("masks credential-shaped values it was never told about", () => {
    const text = [
      "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig",
      "key sk-proj-abcdefghijklmnop1234 and sk-ant-api03-ZZZZZZZZZZZZZZZZ",
      "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
      "slack xoxb-1234567890-abcdefghij",
      "url https://x.test/?api_key=0123456789abcdef0123&token=QUJDREVGR0hJSktMTU5PUA==",
      `{"password": "hunter2hunter2hunter2"}`,
      "AKIAABCDEFGHIJKLMNOP",
    ].join("\n");
    const out = redact(text);
    for (const secret of [
      "eyJhbGciOiJIUzI1NiJ9",
      "abcdefghijklmnop1234",
      "ZZZZZZZZZZZZZZZZ",
      "abcdefghijklmnopqrstuvwxyz",
      "1234567890-abcdefghij",
      "0123456789abcdef0123",
      "QUJDREVGR0hJSktMTU5PUA",
      "hunter2hunter2",
      "ABCDEFGHIJKLMNOP",
    ])
      expect(out).not.toContain(secret);
    expect(out).toContain("api_key=****");
  });

  it("leaves ordinary text alone", () => {
    const text =
      "the model server answered 429: Rate limit reached for gpt-4o; the primary key is the slug. Basic authentication is off. token budget used up.";
    expect(redact(text)).toBe(text);
  });

  it("masks a registered secret anywhere, and the server's secret key in every spelling, in log lines", () => {
    registerSecret("plain-words-secret-value");
    expect(redact("a plain-words-secret-value b")).toBe("a **** b");
    const key = Buffer.alloc(32, 7);
    new SecretBox(key);
    const lines: string[] = [];
    const logger = jsonLogger({ write: (l) => lines.push(l) });
    logger.error("oops", { key: key.toString("base64"), nested: { hex: key.toString("hex") } });
    expect(lines[0]).not.toContain(key.toString("base64"));
    expect(lines[0]).not.toContain(key.toString("hex"));
    expect(redactDeep({ a: [key.toString("base64url")] })).toEqual({ a: ["****"] });
  });
});
