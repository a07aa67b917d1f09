/**
 * Who may talk to the service. Only requests whose `Host` names the address the server
 * listens on, a loopback name, or the public URL's host are answered (a web page cannot
 * reach it through DNS rebinding), and a state-changing request from a browser must come
 * from the service's own origin or the public URL's (a page the user visits cannot post a
 * cross-site form or fetch). Requests with no `Origin` (curl, scripts, the CLI) pass. CORS is
 * granted only to origins an operator configured.
 */
import { hostname as machineName } from "node:os";
import { isIP } from "node:net";
import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import { ApiError } from "../errors.js";
import type { Env } from "../http.js";

export interface HttpOptions {
  /**
   * Host names the service answers to besides the loopback names (`localhost`, `127.0.0.1`,
   * `[::1]`): the listen host, and any the operator adds (SPEC_REVIEW_ALLOWED_HOSTS).
   */
  allowedHosts?: string[];
  /** The port the server listens on (set once listening): a `Host` naming another port is refused. */
  port?: number;
  /** Origins granted CORS (and allowed to make state-changing requests); none by default. */
  corsOrigins?: string[];
  /** Local mode with --allow-remote: every request needs this token as `Authorization: Bearer` (middleware/remote-token.ts). */
  apiToken?: string;
  /**
   * The address people reach the service at, behind a proxy (`https://specs.example.com`):
   * its host (with its port) is answered and its origin may change data.
   */
  publicUrl?: string;
}

const LOOPBACK = ["localhost", "127.0.0.1", "::1"];
const WILDCARD = ["0.0.0.0", "::", ""];
const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** `Host` split into a lower-case name (IPv6 without brackets) and its port, if any. */
export function parseHost(value: string): { name: string; port?: number } | undefined {
  const v = value.trim().toLowerCase();
  const m = /^(\[[0-9a-f:.]+\]|[a-z0-9._-]+)(?::(\d{1,5}))?$/.exec(v);
  if (!m) return undefined;
  const name = m[1]!.startsWith("[") ? m[1]!.slice(1, -1) : m[1]!;
  return m[2] === undefined ? { name } : { name, port: Number(m[2]) };
}

function bare(host: string): string {
  const h = host.trim().toLowerCase();
  return h.startsWith("[") && h.endsWith("]") ? h.slice(1, -1) : h;
}

/** Whether the local service answers a request naming `host`. */
export function hostAllowed(host: string, opts: HttpOptions): boolean {
  const parsed = parseHost(host);
  if (!parsed) return false;
  if (opts.publicUrl !== undefined && isPublicHost(parsed, new URL(opts.publicUrl))) return true;
  if (parsed.port !== undefined && opts.port !== undefined && parsed.port !== opts.port) return false;
  const configured = (opts.allowedHosts ?? []).map(bare);
  if (LOOPBACK.includes(parsed.name) || configured.includes(parsed.name)) return true;
  // Listening on every interface: the machine's own addresses and name. An IP literal cannot be
  // rebound, so any is accepted; a DNS name must be the machine's.
  if (configured.some((h) => WILDCARD.includes(h))) {
    if (isIP(parsed.name)) return true;
    const own = machineName().toLowerCase();
    return parsed.name === own || parsed.name === `${own}.local`;
  }
  return false;
}

/** True when `parsed` is the public URL's host, with its port (the scheme's default when it names none) or none. */
function isPublicHost(parsed: { name: string; port?: number }, url: URL): boolean {
  if (parsed.name !== bare(url.hostname)) return false;
  if (parsed.port === undefined) return true;
  return parsed.port === (url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port));
}

/**
 * The guard: Host, then Origin / Sec-Fetch-Site on state-changing requests. `opts` is read on
 * each request (the port is set once the server listens); `publicUrl` is the service's
 * (deps.publicUrl), used when `opts` names none.
 */
export function requestGuard(opts: HttpOptions, publicUrl?: string): MiddlewareHandler<Env> {
  const corsOrigins = (opts.corsOrigins ?? []).map((o) => o.toLowerCase().replace(/\/+$/, ""));
  const grant = corsOrigins.length
    ? cors({ origin: (o) => (corsOrigins.includes(o.toLowerCase()) ? o : null), maxAge: 600 })
    : undefined;
  return async (c, next) => {
    const url = new URL(c.req.url);
    const host = c.req.header("host") ?? url.host;
    const pub = opts.publicUrl ?? publicUrl;
    if (!hostAllowed(host, pub === opts.publicUrl ? opts : { ...opts, publicUrl: pub }))
      throw new ApiError(
        "misdirected_request",
        `this server does not answer to the host ${JSON.stringify(host.slice(0, 200))}; use ${pub ?? "http://localhost:<port>"} or the address it listens on`,
      );
    const publicOrigin = pub !== undefined ? new URL(pub).origin.toLowerCase() : undefined;
    const origin = c.req.header("origin");
    const own = `${url.protocol}//${host}`.toLowerCase();
    const allowedOrigin =
      origin !== undefined &&
      (origin.toLowerCase() === own ||
        origin.toLowerCase() === publicOrigin ||
        corsOrigins.includes(origin.toLowerCase()));
    if (STATE_CHANGING.has(c.req.method)) {
      const site = c.req.header("sec-fetch-site")?.toLowerCase();
      if (origin !== undefined && !allowedOrigin)
        throw new ApiError(
          "cross_origin",
          `a ${c.req.method} from the web page at ${JSON.stringify(origin.slice(0, 200))} is refused; only this service's own pages (${own}) may change data`,
        );
      if (origin === undefined && (site === "cross-site" || site === "same-site"))
        throw new ApiError(
          "cross_origin",
          `a ${c.req.method} from another site (Sec-Fetch-Site: ${site}) is refused`,
        );
    }
    if (grant && origin !== undefined && corsOrigins.includes(origin.toLowerCase())) return grant(c, next);
    await next();
  };
}
