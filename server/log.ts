/**
 * The service's log: one JSON object per line (pino), the shape every log shipper reads.
 * A line written while a request is being answered carries that request's id (`req_id`,
 * also sent back as `X-Request-Id`), so one request's lines can be found among several
 * instances' interleaved logs. Every line passes the redactor (server/redact.ts) last:
 * whatever a message or field picked up, no secret is written.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { hostname } from "node:os";
import { pino } from "pino";
import { redact } from "./redact.js";
import type { Logger } from "./deps.js";

/** The request being answered (set by the request middleware, server/ops.ts). */
export const requestContext = new AsyncLocalStorage<{ requestId: string }>();

/** The request id of the request being answered, if any. */
export function currentRequestId(): string | undefined {
  return requestContext.getStore()?.requestId;
}

export function pinoLogger(opts: { debug?: boolean; write?: (line: string) => void } = {}): Logger {
  const write = opts.write ?? ((line: string) => process.stderr.write(line + "\n"));
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
      hooks: { streamWrite: (s) => redact(s) },
    },
    // Synchronous: a line is out before the process can die (kill -9 loses nothing written).
    { write: (s: string) => write(s.endsWith("\n") ? s.slice(0, -1) : s) },
  );
  const at =
    (level: "debug" | "info" | "warn" | "error") =>
    (msg: string, fields: Record<string, unknown> = {}) =>
      log[level](fields, msg);
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}
