/**
 * The embedded database (PGlite) runs on the request loop: each statement is WebAssembly
 * called synchronously, and the await on it resumes as a microtask, never a turn of the
 * loop. Two things kept other requests (GET /meta) waiting while a large doc was saved,
 * exported or imported (docs/performance.md):
 *
 * - PGlite's own bytea codec converts a byte at a time (`Array.from(bytes).map(...)` to
 *   write, `parseInt` of each pair of hex digits to read): a 256 KiB slice of a blob took
 *   100 to 300 ms each way. Node's hex codec gives the same text and bytes in well under
 *   a millisecond.
 * - A run of statements (a transaction of many batched inserts, a lint run's findings) is
 *   one long run of microtasks. `givingTurns` lets the loop turn between statements once
 *   the current stretch has held it for a slice (server/slices.ts).
 */
import { performance } from "node:perf_hooks";
import { setImmediate as turn } from "node:timers/promises";
import type { PGlite } from "@electric-sql/pglite";
import { SLICE_MS } from "../slices.js";

/** Postgres's type id of bytea. */
const BYTEA = 17;

/** `\x` and the bytes in hex: Postgres's hex format, which PGlite's own serializer writes too. */
function byteaText(value: unknown): string {
  if (!(value instanceof Uint8Array)) throw new Error("Invalid input for bytea type");
  return `\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("hex")}`;
}

/** The bytes of a bytea in hex format (`\x…`, the server's default output), as a plain Uint8Array. */
function byteaBytes(text: string): Uint8Array {
  const out = new Uint8Array((text.length - 2) >>> 1);
  Buffer.from(out.buffer, out.byteOffset, out.byteLength).write(text.slice(2), "hex");
  return out;
}

/** PGlite options: the bytea codec above (the same values as PGlite's own). */
export const byteaCodec = {
  serializers: { [BYTEA]: byteaText },
  parsers: { [BYTEA]: byteaBytes },
};

/**
 * Before each message PGlite sends itself (a statement is a few: parse, bind, execute),
 * wait for the loop's next turn when the loop has not turned for `sliceMs`. Only while
 * statements follow each other without a turn: a lone statement never waits.
 */
export function givingTurns(client: PGlite, sliceMs = SLICE_MS): void {
  const exec = client.execProtocolStream.bind(client);
  // When the current stretch without a turn began; undefined when the loop has turned since.
  let since: number | undefined;
  const turned = () => {
    since = undefined;
  };
  client.execProtocolStream = async (message, options) => {
    const now = performance.now();
    if (since === undefined) {
      since = now;
      setImmediate(turned);
    } else if (now - since >= sliceMs) await turn();
    return exec(message, options);
  };
}

/** Options PGlite takes per statement (the part this module reads). */
type QueryOptions = { parsers?: Record<number, unknown> } & Record<string, unknown>;

/**
 * drizzle sends, with every statement, parsers that leave dates, times and intervals (and
 * their arrays) as the text Postgres wrote. PGlite merges per-statement parsers into its own
 * map of about 300 types for each statement, which cost about 0.1 ms a statement (a save
 * makes 15 or so: docs/performance.md). Installed once on the client instead, the same
 * text comes back and the per-statement merge is skipped. Parsers that are not all such
 * pass-throughs are left in place.
 */
export function clientWideParsers(client: PGlite, passThrough: readonly number[]): void {
  const own = (client as unknown as { parsers: Record<number, (text: string) => unknown> }).parsers;
  const keep = (text: string) => text;
  for (const type of passThrough) own[type] = keep;
  const types = new Set(passThrough);
  const strip = <T extends QueryOptions | undefined>(options: T): T => {
    if (!options?.parsers) return options;
    for (const key of Object.keys(options.parsers)) if (!types.has(Number(key))) return options;
    const { parsers: _drop, ...rest } = options;
    void _drop;
    return rest as T;
  };
  type Querying = { query: (q: string, params?: unknown[], options?: QueryOptions) => Promise<unknown> };
  const wrap = (target: Querying) => {
    const query = target.query.bind(target);
    target.query = (q, params, options) => query(q, params, strip(options));
  };
  wrap(client as unknown as Querying);
  const transaction = client.transaction.bind(client);
  client.transaction = (fn) =>
    transaction((tx) => {
      wrap(tx as unknown as Querying);
      return fn(tx);
    });
}

/** The types drizzle's PGlite driver reads as text: timestamp, timestamptz, interval, date, and arrays of numeric, timestamp, timestamptz, interval, date. */
export const DRIZZLE_TEXT_TYPES = [1114, 1184, 1186, 1082, 1231, 1115, 1185, 1187, 1182] as const;
