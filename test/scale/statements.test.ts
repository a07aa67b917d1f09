/**
 * Database statements per save and per full review, counted by the driver (docs/scale.md),
 * on a hosted instance (bundles in the database), with upper bounds that catch a regression.
 *
 * How they are counted: every statement the service sends is seen where it leaves the
 * driver, so transactions, migrations or drizzle's own logger do not matter:
 * - PGlite: every query goes through `execProtocolStream` as wire-protocol messages; each
 *   Parse (`P`, an extended-protocol query, as drizzle sends) or Query (`Q`, simple
 *   protocol: BEGIN, COMMIT, ROLLBACK, `exec`) message is one statement.
 * - Postgres (TEST_DATABASE_URL): postgres.js calls its `debug` option once per query it
 *   sends on a pooled connection (BEGIN and COMMIT included). The listening connection of
 *   the cluster notices is a client of its own and is not counted; neither a save nor a
 *   review reads the bundle list, the one read that uses it.
 *
 * A save is `PUT /docs/{docId}/files/content` and its lint run, until the database is
 * quiet; a full review is `POST /docs/{docId}/runs` until the run is done (30 model calls
 * to a scripted fake) and the database is quiet. Reading the run's status to wait for it
 * is one statement per look, subtracted. `SR_PRINT_STATEMENTS=1` prints the figures.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { DB_KINDS, json, makeTestApp, type TestApp } from "../helpers/app.js";
import { ACTORS } from "../helpers/actors.js";
import { startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { answerFor, configureModels } from "../core/review/e2e-helpers.js";
import type { SpecDoc, WriteResult } from "../helpers/types.js";

const RFC = readFileSync(resolve(import.meta.dirname, "../../fixtures/review/checkout/spec.md"), "utf8");

/**
 * Upper bounds: about 1.5 times the larger of the figures measured (docs/scale.md: 25 and
 * 264 on PGlite, 29 and 322 on Postgres, which adds a `pg_notify` per cluster notice), so
 * a statement added per file, per model call or per event fails here.
 */
const MAX_PER_SAVE = 45;
const MAX_PER_REVIEW = 480;

interface Counter {
  statements: number;
  texts: string[];
}

/** Counts the statements the app's database client sends from now on (see the header). */
function countStatements(t: TestApp): Counter {
  const counter: Counter = { statements: 0, texts: [] };
  const client = (t.database.db as unknown as { $client: unknown }).$client;
  if (t.database.kind === "pglite") {
    const pg = client as {
      execProtocolStream(message: Uint8Array, opts?: unknown): Promise<unknown>;
    };
    const original = pg.execProtocolStream.bind(pg);
    pg.execProtocolStream = (message, opts) => {
      const kind = message[0];
      if (kind === 0x50 /* P */ || kind === 0x51 /* Q */) {
        counter.statements++;
        if (process.env.SR_PRINT_STATEMENTS) counter.texts.push(queryText(message));
      }
      return original(message, opts);
    };
  } else {
    const pg = client as { options: { debug?: unknown } };
    pg.options.debug = (_connection: number, query: string) => {
      counter.statements++;
      if (process.env.SR_PRINT_STATEMENTS) counter.texts.push(query);
    };
  }
  return counter;
}

/** The SQL of a Parse or Query message (after the type byte and length; a Parse names its statement first). */
function queryText(message: Uint8Array): string {
  let at = 5;
  if (message[0] === 0x50) at = message.indexOf(0, at) + 1;
  return new TextDecoder().decode(message.subarray(at, message.indexOf(0, at)));
}

/** Resolves once no statement was sent for `quietMs`. */
async function quiet(counter: Counter, quietMs = 300): Promise<void> {
  let last = -1;
  while (last !== counter.statements) {
    last = counter.statements;
    await new Promise((r) => setTimeout(r, quietMs));
  }
}

describe.each(DB_KINDS)("database statements (%s)", (kind) => {
  let fake: FakeOpenAI;
  let t: TestApp;
  let counter: Counter;
  let doc: SpecDoc;
  let base: string;

  beforeAll(async () => {
    fake = await startFakeOpenAI({ handler: answerFor });
    // The worker is woken by the queue notice; no idle poll adds statements while counting.
    t = await makeTestApp({
      kind,
      mode: "hosted",
      actor: ACTORS.admin,
      worker: { pollMs: 600_000, heartbeatMs: 600_000 },
    });
    doc = await json<SpecDoc>(t.req("POST", "/bundles", { profile: "prd", name: "bench/checkout" }));
    base = doc.current_version.id;
    await t.runs.settled(doc.id);
    await configureModels(t, fake.baseUrl);
    counter = countStatements(t);
    await quiet(counter);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  function report(what: string, n: number, texts: string[]): void {
    if (!process.env.SR_PRINT_STATEMENTS) return;
    process.stdout.write(`\n${kind}: ${n} statements per ${what}\n`);
    const byText = new Map<string, number>();
    for (const s of texts) {
      const key = s.replace(/\s+/g, " ").slice(0, 110);
      byText.set(key, (byText.get(key) ?? 0) + 1);
    }
    for (const [s, k] of [...byText].sort((a, b) => b[1] - a[1]).slice(0, 25))
      process.stdout.write(`  ${String(k).padStart(4)}  ${s}\n`);
  }

  it("a save and its lint run stay under the bound", async () => {
    const saves = 5;
    const before = counter.statements;
    counter.texts = [];
    for (let i = 0; i < saves; i++) {
      const path = `/docs/${doc.id}/files/content?path=${encodeURIComponent(doc.path)}&base_version=${base}`;
      const res = await t.req("PUT", path, `${RFC}\nMeasured save ${i}.\n`, {
        "content-type": "text/markdown",
      });
      expect(res.status, await res.clone().text()).toBe(200);
      base = (await json<WriteResult>(res)).version.id;
      await t.runs.settled(doc.id);
      await quiet(counter);
    }
    const perSave = (counter.statements - before) / saves;
    report("save", perSave, counter.texts);
    expect(perSave).toBeGreaterThan(5);
    expect(perSave).toBeLessThanOrEqual(MAX_PER_SAVE);
  }, 60_000);

  it("a full review stays under the bound", async () => {
    const before = counter.statements;
    counter.texts = [];
    fake.reset();
    const res = await t.req("POST", `/docs/${doc.id}/runs`);
    expect(res.status, await res.clone().text()).toBe(202);
    const run = (await res.json()) as { id: string };
    let looks = 0;
    for (;;) {
      looks++;
      const rows = await t.database.db.execute<{ status: string }>(
        sql`select status from runs where id = ${run.id}`,
      );
      const status = (Array.isArray(rows) ? rows : (rows as { rows: { status: string }[] }).rows)[0]?.status;
      if (status === "done" || status === "failed") break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await quiet(counter);
    const perReview = counter.statements - before - looks;
    report(`full review (${fake.completions.length} model calls)`, perReview, counter.texts);
    expect(fake.completions.length).toBeGreaterThan(10);
    expect(perReview).toBeGreaterThan(20);
    expect(perReview).toBeLessThanOrEqual(MAX_PER_REVIEW);
  }, 120_000);
});
