/**
 * Three hosted instances on one Postgres (issue 19): what one writes the others read at
 * once; a client on one follows a run executed on another, with Last-Event-ID resume
 * across instances; 50 concurrent saves on one base spread over the three: one wins.
 * Needs TEST_DATABASE_URL (skipped without it: several instances need a server).
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshPostgres } from "../helpers/app.js";
import { startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { answerFor } from "../core/review/e2e-helpers.js";
import { newSecretKey, startInstance, type Instance } from "./instances.js";
import { LISTENER_NAME } from "../../server/cluster.js";
import type { BundleList, SpecDoc, WriteResult } from "../helpers/types.js";

const PG = process.env.TEST_DATABASE_URL;
const CHECKOUT = readFileSync(resolve(import.meta.dirname, "../../fixtures/review/checkout/spec.md"), "utf8");

/** An RFC-shaped spec with CRLF line ends and an emoji, as people paste them. */
const RFC = [
  "---",
  "type: rfc",
  "---",
  "# RFC 12: Rate limits per workspace 🚦",
  "",
  "## Summary",
  "",
  "Each workspace gets 600 requests a minute.",
  "",
  "## Motivation",
  "",
  "One noisy tenant slowed everyone on 3 March.",
  "",
].join("\r\n");

function form(parts: Record<string, string>): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(parts)) f.append(k, v);
  return f;
}

async function body<T>(res: Response | Promise<Response>): Promise<T> {
  const r = await res;
  const text = await r.text();
  if (r.status >= 300) throw new Error(`${r.status}: ${text}`);
  return JSON.parse(text) as T;
}

/** Read an event stream until it closes, noting when each event arrived. */
async function readEvents(
  res: Response,
): Promise<Array<{ id?: string; event: string; data: unknown; at: number }>> {
  const out: Array<{ id?: string; event: string; data: unknown; at: number }> = [];
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let buf = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buf += dec.decode(value as Uint8Array, { stream: true });
    let i;
    while ((i = buf.indexOf("\n\n")) >= 0) {
      const chunk = buf.slice(0, i);
      buf = buf.slice(i + 2);
      const ev: { id?: string; event?: string; data: string[] } = { data: [] };
      for (const line of chunk.split("\n")) {
        if (line.startsWith("id:")) ev.id = line.slice(3).trim();
        else if (line.startsWith("event:")) ev.event = line.slice(6).trim();
        else if (line.startsWith("data:")) ev.data.push(line.slice(5).trim());
      }
      if (ev.event)
        out.push({ id: ev.id, event: ev.event, data: JSON.parse(ev.data.join("\n")), at: Date.now() });
    }
  }
  return out;
}

describe.skipIf(!PG)("three instances on one Postgres", () => {
  let pg: { url: string; drop: () => Promise<void> };
  let fake: FakeOpenAI;
  const nodes: Instance[] = [];
  let a: Instance, b: Instance, c: Instance;

  beforeAll(async () => {
    pg = await freshPostgres();
    fake = await startFakeOpenAI({ handler: answerFor });
    const secretKey = newSecretKey();
    // Only A runs reviews: B and C serve requests (they would take a run A abandoned).
    a = await startInstance("A", pg.url, { secretKey, worker: { pollMs: 5000 } });
    b = await startInstance("B", pg.url, { secretKey });
    c = await startInstance("C", pg.url, { secretKey });
    nodes.push(a, b, c);
  }, 120_000);
  afterAll(async () => {
    for (const n of nodes) await n.close();
    await fake?.close();
    await pg?.drop();
  });

  it("a bundle created, saved and deleted through one is read at once through the others", async () => {
    // Warm every instance's bundle list first, so a stale cache would show.
    for (const n of nodes) expect((await body<BundleList>(n.req("GET", "/bundles"))).items).toEqual([]);
    const doc = await body<SpecDoc>(
      a.req("POST", "/bundles", { profile: "rfc", name: "platform/rate-limits" }),
    );
    for (const n of [b, c]) {
      const list = await body<BundleList>(n.req("GET", "/bundles"));
      expect(list.items.map((x) => x.slug)).toEqual(["platform/rate-limits"]);
    }
    const saved = await body<WriteResult>(
      b.req(
        "PUT",
        `/docs/${doc.id}/files/content?path=${encodeURIComponent(doc.path)}&base_version=${doc.current_version.id}`,
        RFC,
      ),
    );
    for (const n of [a, c]) {
      const list = await body<BundleList>(n.req("GET", "/bundles"));
      expect(list.items[0]!.docs[0]!.current_version.id).toBe(saved.version.id);
      const text = await (
        await n.req("GET", `/docs/${doc.id}/files/content?path=${encodeURIComponent(doc.path)}`)
      ).text();
      expect(text).toBe(RFC);
    }
    const del = await c.req("DELETE", `/bundles/${doc.bundle_id}`);
    expect(del.status, await del.clone().text()).toBeLessThan(300);
    for (const n of [a, b]) expect((await body<BundleList>(n.req("GET", "/bundles"))).items).toEqual([]);
  });

  it("a thread answered and decided through one changes the next action the others list", async () => {
    const doc = await body<SpecDoc>(a.req("POST", "/bundles", { profile: "adr", name: "decisions/clock" }));
    const next = async (n: Instance) =>
      (await body<BundleList>(n.req("GET", "/bundles"))).items.find((x) => x.slug === "decisions/clock")!
        .docs[0]!.next_action?.kind;
    // Every instance lists the doc first, so a list that missed the change would show it.
    for (const n of nodes) expect(await next(n)).not.toBe("decide");
    const thread = await body<{ id: string }>(
      a.req("POST", `/docs/${doc.id}/threads`, {
        anchor_kind: "section",
        anchor: { heading_path: [] },
        addressed_to: "humans",
        title: "Which clock?",
        body: "Host or NTP?",
      }),
    );
    const reply = await body<{ id: string }>(
      a.req("POST", `/threads/${thread.id}/messages`, { body: "NTP." }),
    );
    for (const n of [b, c]) expect(await next(n)).toBe("decide");
    await body(b.req("POST", `/threads/${thread.id}/decision`, { message_id: reply.id }));
    for (const n of [a, c]) expect(await next(n)).not.toBe("decide");
  });

  it("after the listening connections drop, the bundle lists are read afresh and notices flow again", async () => {
    for (const n of nodes) await body(n.req("GET", "/bundles"));
    const { default: postgres } = await import("postgres");
    const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
    const killed = await sql`
      select pg_terminate_backend(pid) from pg_stat_activity
      where application_name = ${LISTENER_NAME} and datname = current_database()`;
    expect(killed.length).toBe(3);
    // Written while nobody listens: the notice is lost, the read must not be.
    const doc = await body<SpecDoc>(a.req("POST", "/bundles", { profile: "adr", name: "decisions/queue" }));
    for (const n of [b, c]) {
      const list = await body<BundleList>(n.req("GET", "/bundles"));
      expect(list.items.map((x) => x.slug)).toContain("decisions/queue");
    }
    // Listening again: the next change travels as a notice.
    for (let i = 0; i < 100 && nodes.some((n) => !n.services.cluster.listening); i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(nodes.every((n) => n.services.cluster.listening)).toBe(true);
    const [row] = await sql<Array<{ n: number }>>`
      select count(*)::int as n from pg_stat_activity where application_name = ${LISTENER_NAME} and datname = current_database()`;
    expect(row!.n).toBe(3);
    await sql.end();
    expect((await b.req("DELETE", `/bundles/${doc.bundle_id}`)).status).toBeLessThan(300);
    for (const n of [a, c])
      expect((await body<BundleList>(n.req("GET", "/bundles"))).items.map((x) => x.slug)).not.toContain(
        "decisions/queue",
      );
  });

  it("a client on B follows a run executed on A, within 100 ms, and resumes on C with Last-Event-ID", async () => {
    const imported = await body<{ items: Array<{ docs: SpecDoc[] }> }>(
      b.req("POST", "/bundles/import", form({ text: CHECKOUT, name: "checkout" })),
    );
    const doc = imported.items[0]!.docs[0]!;
    const backend = await body<{ id: string }>(
      c.req("POST", "/admin/backends", {
        kind: "provider_1",
        name: "fake",
        base_url: fake.baseUrl,
        secret: "sk-test-0000",
      }),
    );
    for (const role of ["reviewer", "reader", "judge"])
      await body(c.req("PUT", `/admin/roles/${role}`, { backend_id: backend.id, model: `${role}-model` }));
    // Slow model calls: the run takes long enough to be followed live.
    fake.handler = (req) => ({ ...answerFor(req), delayMs: 40 });
    const started = await body<{ id: string }>(b.req("POST", `/docs/${doc.id}/runs`));
    // When A has written each event (its bus hears it as the insert returns).
    const written = new Map<string, number>();
    const off = a.services.bus.onRun(started.id, (seq) => written.set(String(seq), Date.now()));
    const stream = await b.req("GET", `/runs/${started.id}/events`);
    expect(stream.headers.get("content-type")).toContain("text/event-stream");
    const events = await readEvents(stream);
    off();
    expect(events.at(-1)!.event).toBe("done");
    const run = await body<{ status: string }>(c.req("GET", `/runs/${started.id}`));
    expect(run.status).toBe("done");
    // Every event reached B soon after A wrote it (B's fallback poll is 10 s: this is NOTIFY).
    const lags = events.filter((e) => e.id && written.has(e.id)).map((e) => e.at - written.get(e.id!)!);
    expect(lags.length, JSON.stringify(lags)).toBeGreaterThan(3);
    // The three instances share this test's one event loop on a shared machine, which the
    // run's own lint and parsing block now and then: the median is within a few tens of ms,
    // and none waits for the 10 s safety poll (test/scale/takeover.test.ts measures
    // separate processes).
    const sorted = [...lags].sort((x, y) => x - y);
    expect(sorted[Math.floor(sorted.length / 2)]!, JSON.stringify(lags)).toBeLessThan(50);
    expect(sorted.at(-1)!, JSON.stringify(lags)).toBeLessThan(1000);
    // Resume on another instance from the middle: only what came after.
    const mid = events[Math.floor(events.length / 2)]!.id!;
    const rest = await readEvents(
      await c.req("GET", `/runs/${started.id}/events`, undefined, { "Last-Event-ID": mid }),
    );
    expect(rest.map((e) => e.id)).toEqual(events.filter((e) => Number(e.id) > Number(mid)).map((e) => e.id));
    expect(rest.at(-1)!.event).toBe("done");
    // The bundle list of an instance that did not run it shows the full verdict.
    const list = await body<BundleList>(c.req("GET", "/bundles"));
    const v = list.items.find((x) => x.slug === "checkout")!.docs[0]!.verdict as {
      kind: string;
      run_id: string;
    };
    expect(v).toMatchObject({ kind: "full", run_id: started.id });
  }, 60_000);

  it("50 concurrent saves on one base, spread over three instances: exactly one wins, the others get version_conflict", async () => {
    const doc = await body<SpecDoc>(a.req("POST", "/bundles", { profile: "rfc", name: "platform/quotas" }));
    const path = encodeURIComponent(doc.path);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        nodes[i % 3]!.req(
          "PUT",
          `/docs/${doc.id}/files/content?path=${path}&base_version=${doc.current_version.id}`,
          RFC.replace("600", String(1000 + i)),
        ),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200 || s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(49);
    for (const r of results.filter((r) => r.status === 409))
      expect(((await r.json()) as { code: string }).code).toBe("version_conflict");
    const winner = results.findIndex((r) => r.status < 300);
    // Every instance reads the winner's text, and there are exactly two versions.
    for (const n of nodes) {
      const text = await (await n.req("GET", `/docs/${doc.id}/files/content?path=${path}`)).text();
      expect(text).toBe(RFC.replace("600", String(1000 + winner)));
      const versions = await body<{ items: unknown[] }>(n.req("GET", `/docs/${doc.id}/versions`));
      expect(versions.items).toHaveLength(2);
    }
  }, 60_000);
});
