/**
 * The service's log: one JSON object per line (pino), the shape every log shipper reads.
 * A line written while a request is being answered carries that request's id (`req_id`,
 * also sent back as `X-Request-Id`), so one request's lines can be found among several
 * instances' interleaved logs. Every line passes the redactor (server/redact.ts) last:
 * whatever a message or field picked up, no secret is written. The one exception is the
 * start-up record (`startup`): the operator needs the first admin invite's link and the
 * local API token, so that record alone keeps the values it names (every other masks them).
 *
 * LOG_FORMAT (`logFormatFrom`): `json`, every line on stderr is such a record, the start
 * lines for a person included; `pretty`, those start lines are plain text, as a terminal
 * reader wants them (the default on a terminal).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { hostname } from "node:os";
import { pino } from "pino";
import { redact, registerSecret } from "./redact.js";
import type { Logger } from "./deps.js";

/** The request being answered (set by the request middleware, server/ops.ts). */
export const requestContext = new AsyncLocalStorage<{ requestId: string }>();

/** The request id of the request being answered, if any. */
export function currentRequestId(): string | undefined {
  return requestContext.getStore()?.requestId;
}

/** How the start lines for a person are written: one JSON record, or plain text. */
export type LogFormat = "json" | "pretty";

/**
 * LOG_FORMAT: `json` or `pretty`; unset (or empty), pretty when the log stream (stderr) is a
 * terminal, JSON otherwise. Throws on any other value (the commands refuse it, exit 2).
 */
export function logFormatFrom(
  env: Record<string, string | undefined> = process.env,
  terminal: boolean = process.stderr.isTTY === true,
): LogFormat {
  const value = env.LOG_FORMAT?.trim().toLowerCase();
  if (value === undefined || value === "") return terminal ? "pretty" : "json";
  if (value === "json" || value === "pretty") return value;
  throw new Error(`LOG_FORMAT must be json or pretty, got ${JSON.stringify(env.LOG_FORMAT)}`);
}

/** LOG_FORMAT for a command (`serve`, `app`), or undefined after one line on stderr saying why it is refused. */
export function logFormatOf(command: string): LogFormat | undefined {
  try {
    return logFormatFrom();
  } catch (err) {
    process.stderr.write(`spec-review ${command}: ${err instanceof Error ? err.message : String(err)}\n`);
    return undefined;
  }
}

export interface ServiceLogger extends Logger {
  /**
   * The start-up record (`info`): the values in `reveal` (the first admin invite's token,
   * the local API token) are left in this one record by the redactor, on purpose, since the
   * operator needs them; they are registered as secrets first, so every other record masks them.
   */
  startup(msg: string, fields: Record<string, unknown>, reveal: ReadonlyArray<string | undefined>): void;
}

export function pinoLogger(opts: { debug?: boolean; write?: (line: string) => void } = {}): ServiceLogger {
  const write = opts.write ?? ((line: string) => process.stderr.write(line + "\n"));
  /** What the record being written keeps (the start-up record only; pino writes synchronously). */
  let revealing: readonly string[] = [];
  const log = pino(
    {
      level: opts.debug ? "debug" : "info",
      base: { pid: process.pid, host: hostname() },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      mixin: () => {
        const id = currentRequestId();
        return id ? { req_id: id } : {};
      },
      hooks: { streamWrite: (s) => redact(s, [], revealing) },
    },
    // Synchronous: a line is out before the process can die (kill -9 loses nothing written).
    { write: (s: string) => write(s.endsWith("\n") ? s.slice(0, -1) : s) },
  );
  const at =
    (level: "debug" | "info" | "warn" | "error") =>
    (msg: string, fields: Record<string, unknown> = {}) =>
      log[level](fields, msg);
  const startup = (
    msg: string,
    fields: Record<string, unknown>,
    reveal: ReadonlyArray<string | undefined>,
  ) => {
    const kept = reveal.filter((v): v is string => typeof v === "string" && v.length > 0);
    for (const v of kept) registerSecret(v);
    revealing = kept;
    try {
      log.info(fields, msg);
    } finally {
      revealing = [];
    }
  };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error"), startup };
}
