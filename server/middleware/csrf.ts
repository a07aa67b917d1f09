/**
 * Cross-site request forgery, for requests a browser authenticates with a cookie. An
 * unsafe request (POST, PUT, PATCH, DELETE) carrying the session or guest cookie passes
 * only when it shows it comes from this service's own pages: an `Origin` naming the
 * service (the address it was reached at, or its public URL), or, where a browser sends
 * no `Origin`, `Sec-Fetch-Site: same-origin`. With neither it is refused (403
 * `origin_required`); a foreign one is 403 `cross_origin`. A request with a bearer token
 * needs neither: a page of another site cannot attach one.
 */
import type { MiddlewareHandler } from "hono";
import { ApiError } from "../errors.js";
import type { Env } from "../http.js";
import { hasCredentialCookie } from "../auth/cookies.js";
import { bearerToken } from "../auth/hosted.js";

const UNSAFE = new Set(["POST", "PUT", "PATCH", "DELETE"]);

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin.toLowerCase();
  } catch {
    return undefined; // not a URL: it names no origin, so none matches
  }
}

export function cookieCsrf(): MiddlewareHandler<Env> {
  return async (c, next) => {
    const req = c.req.raw;
    if (!UNSAFE.has(req.method) || bearerToken(req) !== undefined || !hasCredentialCookie(req)) return next();
    const origin = c.req.header("origin");
    if (origin === undefined) {
      if (c.req.header("sec-fetch-site")?.toLowerCase() === "same-origin") return next();
      throw new ApiError(
        "origin_required",
        `a ${req.method} made with a cookie needs an Origin header (or Sec-Fetch-Site: same-origin); scripts use an API token instead`,
      );
    }
    const url = new URL(c.req.url);
    const own = [`${url.protocol}//${c.req.header("host") ?? url.host}`.toLowerCase()];
    const publicUrl = c.get("deps").publicUrl;
    const pub = publicUrl ? originOf(publicUrl) : undefined;
    if (pub) own.push(pub);
    if (!own.includes(origin.toLowerCase()))
      throw new ApiError(
        "cross_origin",
        `a ${req.method} made with a cookie from the page at ${JSON.stringify(origin.slice(0, 200))} is refused; only this service's own pages may change data`,
      );
    await next();
  };
}
