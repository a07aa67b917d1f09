/**
 * The embedded database on the request loop (server/db/pglite-loop.ts): the fast bytea
 * codec stores and reads the same bytes and text as PGlite's own, and a run of statements
 * lets timers and other requests run between them.
 */
import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DRIZZLE_TEXT_TYPES,
  byteaCodec,
  clientWideParsers,
  givingTurns,
} from "../../../server/db/pglite-loop.js";

let plain: PGlite;
let fast: PGlite;
beforeAll(async () => {
  plain = new PGlite();
  fast = new PGlite(byteaCodec);
  await Promise.all([plain.waitReady, fast.waitReady]);
});
afterAll(async () => {
  await Promise.all([plain.close(), fast.close()]);
});

describe("bytea codec", () => {
  const every = new Uint8Array(256 * 3).map((_, i) => (i * 7) % 256);
  const cases: Array<[string, Uint8Array]> = [
    ["empty", new Uint8Array()],
    ["every byte value", every],
    ["a view into a larger buffer", every.subarray(5, 300)],
  ];

  for (const [name, bytes] of cases)
    it(`writes and reads ${name} as PGlite's own codec does`, async () => {
      const sql = "select $1::bytea as b, encode($1::bytea, 'hex') as hex, octet_length($1::bytea) as n";
      const mine = await fast.query<{ b: Uint8Array; hex: string; n: number }>(sql, [bytes]);
      const theirs = await plain.query<{ b: Uint8Array; hex: string; n: number }>(sql, [bytes]);
      expect(mine.rows[0]!.hex).toBe(Buffer.from(bytes).toString("hex"));
      expect(mine.rows[0]).toEqual(theirs.rows[0]);
      expect(mine.rows[0]!.n).toBe(bytes.length);
      // A plain Uint8Array (not a Buffer), with exactly its bytes.
      expect(Object.getPrototypeOf(mine.rows[0]!.b)).toBe(Uint8Array.prototype);
      expect(mine.rows[0]!.b.byteLength).toBe(bytes.length);
    });

  it("refuses a value that is not bytes, as PGlite's own does", async () => {
    await expect(fast.query("select $1::bytea", ["text"])).rejects.toThrow(/bytea/);
    await expect(plain.query("select $1::bytea", ["text"])).rejects.toThrow(/bytea/);
  });
});

describe("turns between statements", () => {
  it("lets a timer run during a long run of statements", async () => {
    const db = new PGlite();
    await db.waitReady;
    try {
      givingTurns(db, 5);
      await db.exec("create table t (n int)");
      let ticks = 0;
      let running = true;
      const tick = () => {
        ticks++;
        if (running) setImmediate(tick);
      };
      setImmediate(tick);
      const t0 = performance.now();
      for (let i = 0; i < 400; i++) await db.query("insert into t values ($1)", [i]);
      const ms = performance.now() - t0;
      running = false;
      const { rows } = await db.query<{ n: number }>("select count(*)::int as n from t");
      expect(rows[0]!.n).toBe(400);
      // Without turns the timer would not run once until the loop ends (0 ticks).
      expect(ticks).toBeGreaterThan(Math.min(10, ms / 20));
    } finally {
      await db.close();
    }
  });

  it("leaves a transaction whole when the loop turns in the middle of it", async () => {
    const db = new PGlite();
    await db.waitReady;
    try {
      givingTurns(db, 0);
      await db.exec("create table t (n int)");
      const other: Promise<unknown>[] = [];
      await db.transaction(async (tx) => {
        for (let i = 0; i < 50; i++) {
          await tx.query("insert into t values ($1)", [i]);
          // A statement from outside waits for the transaction (PGlite runs one at a time).
          if (i === 10) other.push(db.query("insert into t values (-1)"));
        }
        const inside = await tx.query<{ n: number }>("select count(*)::int as n from t");
        expect(inside.rows[0]!.n).toBe(50);
      });
      await Promise.all(other);
      const { rows } = await db.query<{ n: number }>("select count(*)::int as n from t");
      expect(rows[0]!.n).toBe(51);
    } finally {
      await db.close();
    }
  });
});

describe("client-wide parsers for drizzle's text types", () => {
  it("reads dates, times, intervals and their arrays as drizzle does, with or without drizzle's per-statement parsers, and leaves other parsers alone", async () => {
    const wide = new PGlite();
    await wide.waitReady;
    clientWideParsers(wide, DRIZZLE_TEXT_TYPES);
    const keep = (v: string) => v;
    const drizzleOptions = {
      rowMode: "array" as const,
      parsers: Object.fromEntries(DRIZZLE_TEXT_TYPES.map((t) => [t, keep])),
    };
    const sql = `select timestamptz '2026-11-26 10:00:00+00' as tz, timestamp '2026-11-26 10:00:00' as ts,
      interval '1 day' as iv, date '2026-11-26' as d, array[date '2026-11-26'] as ds,
      array[1.5::numeric] as ns, 42::int4 as n, true as b, '{"a":1}'::jsonb as j`;
    try {
      const theirs = await plain.query(sql, [], drizzleOptions);
      const mine = await wide.query(sql, [], drizzleOptions);
      const bare = await wide.query(sql, [], { rowMode: "array" });
      expect(mine.rows).toEqual(theirs.rows);
      expect(bare.rows).toEqual(theirs.rows);
      expect(mine.rows[0]).toEqual([
        "2026-11-26 10:00:00+00",
        "2026-11-26 10:00:00",
        "1 day",
        "2026-11-26",
        "{2026-11-26}",
        "{1.5}",
        42,
        true,
        { a: 1 },
      ]);
      // Inside a transaction too; and a statement's own parser that is not a pass-through still applies.
      const inTx = await wide.transaction((tx) => tx.query(sql, [], drizzleOptions));
      expect(inTx.rows).toEqual(theirs.rows);
      const own = await wide.query("select 42::int4 as n", [], {
        rowMode: "array",
        parsers: { 23: () => "mine" },
      });
      expect(own.rows[0]).toEqual(["mine"]);
    } finally {
      await wide.close();
    }
  });
});
