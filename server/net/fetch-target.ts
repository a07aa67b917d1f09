/**
 * The safe fetcher of external targets (docs/security.md, "Reading external targets"): a
 * plain HTTP GET, to public addresses only.
 *
 * - Only `http:` and `https:` URLs; no credentials in the URL.
 * - The host name is resolved once per hop; every address it resolves to must pass the
 *   address policy (server/net/address-policy.ts), and the connection is made to the address
 *   that was checked (the `lookup` of the request is pinned to it), so a DNS answer that
 *   changes between the check and the connect (DNS rebinding) cannot move it.
 * - Redirects are followed by hand, at most `maxRedirects`, and each new address is checked
 *   again the same way.
 * - One time limit covers the whole read (every hop and the body); the body is counted as it
 *   arrives (after decompression) and the read stops at `maxBytes`.
 *
 * A refusal is a `TargetFetchError` whose `reason` says what stopped the read.
 */
import { lookup as dnsLookup } from "node:dns/promises";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import type { Readable } from "node:stream";
import { TextDecoder } from "node:util";
import { addressPolicy, allowPrivateFromEnv, type AddressPolicy } from "./address-policy.js";
import { htmlToText } from "./html-text.js";

export type TargetRefusal =
  /** The URL or an address it resolves to is not allowed (scheme, private address). */
  | "disallowed"
  /** DNS failed, the connection failed, too many redirects. */
  | "unreachable"
  /** The target answered with a status other than 2xx. */
  | "bad_status"
  /** The body is over the size limit. */
  | "too_large"
  /** The time limit passed. */
  | "timeout"
  /** The body is not text (an image, a PDF, …). */
  | "unsupported";

export class TargetFetchError extends Error {
  constructor(
    readonly reason: TargetRefusal,
    message: string,
    readonly url: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = "TargetFetchError";
  }
}

export interface FetchTargetOptions {
  /** Largest body read, in bytes (after decompression); default 2 MiB. */
  maxBytes?: number;
  /** Time limit of the whole read, redirects included, in ms; default 15 s. */
  timeoutMs?: number;
  /** Default 5. */
  maxRedirects?: number;
  /** Allow private and loopback addresses; default: `SPEC_REVIEW_ALLOW_PRIVATE_TARGETS=1`. */
  allowPrivate?: boolean;
  /** Which addresses may be connected to; default: the policy `allowPrivate` gives. */
  policy?: AddressPolicy;
  /** Resolves a host name to its addresses (default: the system resolver, every address). */
  resolve?: (host: string) => Promise<string[]>;
  /** Read the body (default); false stops at the last response's headers (redirect chains). */
  body?: boolean;
  signal?: AbortSignal;
  userAgent?: string;
}

export interface FetchedTarget {
  /** The URL asked for. */
  url: string;
  /** The URL that answered, after redirects. */
  finalUrl: string;
  /** Every URL the read went to after the first, in order (empty without redirects). */
  redirects: string[];
  status: number;
  contentType: string;
  /** The body as text (HTML reduced to its text); empty when `body` was false. */
  text: string;
  /** Bytes of the body read. */
  bytes: number;
}

export const DEFAULT_MAX_BYTES = 2 * 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 15_000;
const DEFAULT_REDIRECTS = 5;

const TEXTUAL =
  /^(text\/|application\/(json|xml|javascript|ecmascript|x-yaml|yaml|toml|x-sh|x-httpd-php|graphql|sql)\b|application\/[\w.+-]+\+(json|xml)\b)/i;

async function systemResolve(host: string): Promise<string[]> {
  const found = await dnsLookup(host, { all: true, verbatim: true });
  return found.map((a) => a.address);
}

/** The checked address, handed to the request in place of a DNS lookup. */
function pinnedLookup(address: string): LookupFunction {
  const family = isIP(address);
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

interface Hop {
  res: IncomingMessage;
  url: URL;
}

export async function fetchTarget(rawUrl: string, opts: FetchTargetOptions = {}): Promise<FetchedTarget> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, deadline]) : deadline;
  const policy = opts.policy ?? addressPolicy(opts.allowPrivate ?? allowPrivateFromEnv());
  const resolve = opts.resolve ?? systemResolve;
  const maxRedirects = opts.maxRedirects ?? DEFAULT_REDIRECTS;
  const redirects: string[] = [];

  const failed = (url: string, err: unknown): never => {
    if (err instanceof TargetFetchError) throw err;
    if (opts.signal?.aborted) throw opts.signal.reason ?? err;
    if (deadline.aborted)
      throw new TargetFetchError("timeout", `no complete answer within ${timeoutMs} ms`, url, { cause: err });
    const message = err instanceof Error ? err.message : String(err);
    throw new TargetFetchError("unreachable", `cannot be read: ${message}`, url, { cause: err });
  };

  let url = parseTargetUrl(rawUrl);
  let hop: Hop | undefined;
  for (;;) {
    try {
      hop = await get(url, { policy, resolve, signal, userAgent: opts.userAgent });
    } catch (err) {
      // A hop after a redirect says so: the page asked for was fine, where it led was not.
      if (err instanceof TargetFetchError && redirects.length > 0)
        throw new TargetFetchError(err.reason, `redirect to ${url.href}: ${err.message}`, rawUrl);
      failed(url.href, err);
    }
    const { res } = hop!;
    const status = res.statusCode ?? 0;
    const location = res.headers.location;
    if (status >= 300 && status < 400 && location) {
      res.destroy();
      if (redirects.length >= maxRedirects)
        throw new TargetFetchError(
          "unreachable",
          `more than ${maxRedirects} redirects (the last to ${location})`,
          rawUrl,
        );
      let next: URL;
      try {
        next = parseTargetUrl(new URL(location, url).href);
      } catch (err) {
        if (err instanceof TargetFetchError)
          throw new TargetFetchError(err.reason, `redirect to ${location}: ${err.message}`, rawUrl);
        throw err;
      }
      redirects.push(next.href);
      url = next;
      continue;
    }
    break;
  }
  const { res } = hop!;
  const status = res.statusCode ?? 0;
  const contentType = String(res.headers["content-type"] ?? "");
  const base = { url: rawUrl, finalUrl: url.href, redirects, status, contentType };
  if (status < 200 || status >= 300) {
    res.destroy();
    throw new TargetFetchError("bad_status", `answered HTTP ${status}`, url.href);
  }
  if (opts.body === false) {
    res.destroy();
    return { ...base, text: "", bytes: 0 };
  }
  if (contentType && !TEXTUAL.test(contentType)) {
    res.destroy();
    throw new TargetFetchError("unsupported", `is not text (${contentType.split(";")[0]})`, url.href);
  }
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  const declared = Number(res.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) {
    res.destroy();
    throw new TargetFetchError("too_large", `is ${declared} bytes; the limit is ${maxBytes}`, url.href);
  }
  let body: Buffer;
  try {
    body = await readLimited(res, maxBytes, signal, url.href);
  } catch (err) {
    return failed(url.href, err);
  }
  const decoded = decodeBody(body, contentType);
  const text =
    /html/i.test(contentType) || (!contentType && /^\s*<(!doctype|html)/i.test(decoded))
      ? htmlToText(decoded)
      : decoded;
  return { ...base, text, bytes: body.length };
}

/** A target URL as the fetcher accepts it: http(s), no user or password. */
export function parseTargetUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TargetFetchError("disallowed", "is not a URL", raw);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new TargetFetchError("disallowed", `uses ${url.protocol}; only http and https are read`, raw);
  if (url.username || url.password)
    throw new TargetFetchError("disallowed", "carries a user name or password", raw);
  return url;
}

async function get(
  url: URL,
  ctx: {
    policy: AddressPolicy;
    resolve: (host: string) => Promise<string[]>;
    signal: AbortSignal;
    userAgent: string | undefined;
  },
): Promise<Hop> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const addresses = isIP(host) ? [host] : await ctx.resolve(host);
  if (addresses.length === 0) throw new TargetFetchError("unreachable", `${host} has no address`, url.href);
  const refused = addresses.find((a) => !ctx.policy(a));
  if (refused !== undefined)
    throw new TargetFetchError(
      "disallowed",
      `${host === refused ? refused : `${host} resolves to ${refused}, which`} is not a public address ` +
        `(loopback, link-local, private and unique-local addresses are refused)`,
      url.href,
    );
  const request = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise<Hop>((resolve, reject) => {
    const req = request(url, {
      method: "GET",
      agent: false,
      lookup: pinnedLookup(addresses[0]!),
      signal: ctx.signal,
      headers: {
        accept: "text/html, text/markdown, text/plain, application/json;q=0.9, */*;q=0.5",
        "accept-encoding": "gzip, deflate, br",
        "user-agent": ctx.userAgent ?? "spec-review (external link check)",
      },
    });
    req.on("response", (res) => resolve({ res, url }));
    req.on("error", reject);
    req.end();
  });
}

function decompressed(res: IncomingMessage): Readable {
  switch (String(res.headers["content-encoding"] ?? "").toLowerCase()) {
    case "gzip":
    case "x-gzip":
      return res.pipe(createGunzip());
    case "deflate":
      return res.pipe(createInflate());
    case "br":
      return res.pipe(createBrotliDecompress());
    default:
      return res;
  }
}

function readLimited(
  res: IncomingMessage,
  maxBytes: number,
  signal: AbortSignal,
  url: string,
): Promise<Buffer> {
  const stream = decompressed(res);
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (err: Error) => {
      signal.removeEventListener("abort", onAbort);
      res.destroy();
      if (stream !== res) stream.destroy();
      reject(err);
    };
    const onAbort = () => stop(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
    signal.addEventListener("abort", onAbort, { once: true });
    stream.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        stop(new TargetFetchError("too_large", `is over the limit of ${maxBytes} bytes`, url));
        return;
      }
      chunks.push(chunk);
    });
    stream.on("end", () => {
      signal.removeEventListener("abort", onAbort);
      resolve(Buffer.concat(chunks));
    });
    stream.on("error", (err) => stop(err));
    res.on("error", (err) => stop(err));
  });
}

function decodeBody(body: Buffer, contentType: string): string {
  const charset = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1] ?? "utf-8";
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset);
  } catch {
    decoder = new TextDecoder("utf-8");
  }
  return decoder.decode(body);
}
