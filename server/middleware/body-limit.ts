/**
 * Request bodies are read here, and only up to a limit, whatever `Content-Length` says or
 * does not say (a chunked upload has none): a file write up to `max_file_mb`, an import or an
 * ad hoc review up to `max_bundle_mb` (plus 1 MB of multipart framing), any other body up to
 * JSON_BODY_LIMIT. Past the limit the answer is 413 at once, and nothing more is buffered.
 */
import type { MiddlewareHandler } from "hono";
import { ApiError, ValidationError } from "../errors.js";
import type { Env } from "../http.js";
import { API_PREFIX } from "../version.js";

const MB = 1024 * 1024;

/** The largest JSON (or other) body of an operation that takes no file or bundle: 1 MiB. */
export const JSON_BODY_LIMIT = MB;

export type BodyKind = "file" | "bundle" | "other";

const FILE_SIZED: Array<[string, RegExp]> = [
  ["PUT", /^\/docs\/[^/]+\/files\/content\/?$/],
  ["POST", /^\/render\/?$/],
  ["POST", /^\/profiles\/guess\/?$/],
  ["POST", /^\/links\/suggest\/?$/],
];
const BUNDLE_SIZED: Array<[string, RegExp]> = [
  ["POST", /^\/bundles\/import(\/preview)?\/?$/],
  ["POST", /^\/reviews\/?$/],
];

/** Which limit a request's body is held to. */
export function bodyKind(method: string, path: string): BodyKind {
  const p = path.startsWith(API_PREFIX) ? path.slice(API_PREFIX.length) : path;
  const m = method.toUpperCase();
  if (FILE_SIZED.some(([mm, re]) => mm === m && re.test(p))) return "file";
  if (BUNDLE_SIZED.some(([mm, re]) => mm === m && re.test(p))) return "bundle";
  return "other";
}

function tooLarge(kind: BodyKind, limit: number, settingMb?: number): ApiError {
  if (kind === "file")
    return new ApiError(
      "file_too_large",
      `the body is over ${limit} bytes; the limit is max_file_mb = ${settingMb} MB`,
    );
  if (kind === "bundle")
    return new ApiError(
      "bundle_too_large",
      `the body is over ${limit} bytes; the limit is max_bundle_mb = ${settingMb} MB`,
    );
  return new ApiError(
    "body_too_large",
    `the body is over ${limit} bytes; this operation takes at most ${JSON_BODY_LIMIT / MB} MiB`,
  );
}

/**
 * Reads `stream` into one buffer of at most `limit` bytes; undefined (the stream cancelled)
 * as soon as more arrives.
 */
export async function readLimited(
  stream: ReadableStream<Uint8Array>,
  limit: number,
): Promise<Uint8Array | undefined> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      // Stop reading: the server drains or closes the rest of the upload.
      reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

/** Whether JSON text holds `\u0000` (an escape not itself escaped), which no stored text can hold. */
export function holdsJsonNul(bytes: Uint8Array): boolean {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
  return /(?:^|[^\\])(?:\\\\)*\\u0000/i.test(text);
}

export function bodyLimit(): MiddlewareHandler<Env> {
  return async (c, next) => {
    // The method first: asking a request for its body makes @hono/node-server build the
    // whole web Request (an AbortController and a stream), which a GET never needs.
    if (c.req.method === "GET" || c.req.method === "HEAD") return next();
    const raw = c.req.raw;
    if (!raw.body) return next();
    const kind = bodyKind(c.req.method, c.req.path);
    let limit = JSON_BODY_LIMIT;
    let settingMb: number | undefined;
    if (kind !== "other") {
      const limits = await c.get("deps").store.currentLimits();
      settingMb = kind === "file" ? limits.maxFileMb : limits.maxBundleMb;
      limit = settingMb * MB + (kind === "bundle" ? MB : 0);
    }
    const announced = raw.headers.get("content-length");
    if (announced !== null && /^\d+$/.test(announced.trim()) && Number(announced) > limit) {
      raw.body.cancel().catch(() => undefined);
      throw tooLarge(kind, limit, settingMb);
    }
    const bytes = await readLimited(raw.body, limit);
    if (bytes === undefined) throw tooLarge(kind, limit, settingMb);
    if (/\bjson\b/i.test(raw.headers.get("content-type") ?? "") && holdsJsonNul(bytes))
      throw new ValidationError("a JSON string holds a NUL character (\\u0000); text here cannot hold one", [
        { field: "body", message: "must not hold \\u0000" },
      ]);
    c.req.raw = new Request(raw, { body: bytes });
    await next();
  };
}
