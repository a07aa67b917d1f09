/**
 * The HTTP API under /api/v1. `createApp(deps)` builds it; nothing here opens a
 * port or a database, so tests call `app.request()` on a fresh app.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import { HTTPException } from "hono/http-exception";
import type { Context } from "hono";
import { ApiError, problemOf } from "./errors.js";
import type { Deps } from "./deps.js";
import type { Env } from "./http.js";
import { routeFamilies } from "./routes/index.js";
import { docsPage, registerDocs } from "./openapi.js";
import { API_PREFIX } from "./version.js";
import { actorMiddleware } from "./auth/actor.js";
import { requestGuard, type HttpOptions } from "./middleware/guard.js";
import { bodyLimit } from "./middleware/body-limit.js";
import { cookieCsrf } from "./middleware/csrf.js";
import { remoteToken } from "./middleware/remote-token.js";
import { redact } from "./redact.js";
import { mountMcp } from "./mcp-server/http.js";
import { mountOps, requestMiddleware } from "./ops.js";
import { clusterFlush } from "./cluster-wire.js";
import { webStatic } from "./web-static.js";
import { mountHelp } from "./help.js";

export type { HttpOptions } from "./middleware/guard.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Query parameters that hold ids (a `path` never is one, even when it looks like a uuid). */
const ID_QUERY = /^(version|base_version|from|to|cursor_id|.*_id)$/;

/** The request, with upper-case UUIDs in its path segments and id query parameters lower-cased. */
export function lowerCaseIds(request: Request): Request {
  if (!/[A-F]/.test(request.url)) return request;
  const url = new URL(request.url);
  let changed = false;
  const path = url.pathname
    .split("/")
    .map((seg) => (UUID.test(seg) && seg !== seg.toLowerCase() ? ((changed = true), seg.toLowerCase()) : seg))
    .join("/");
  for (const [key, value] of [...url.searchParams])
    if (ID_QUERY.test(key) && UUID.test(value) && value !== value.toLowerCase()) {
      url.searchParams.set(key, value.toLowerCase());
      changed = true;
    }
  if (!changed) return request;
  url.pathname = path;
  return new Request(url, request);
}

function problemResponse(c: Context, err: ApiError): Response {
  // No answer carries a secret, whatever an error message picked up (a provider's echo, a CLI's stderr).
  const headers: Record<string, string> = { "content-type": "application/problem+json" };
  // 429 `rate_limited` says how long to wait, in the body and in Retry-After.
  if (typeof err.extra.retry_after === "number") headers["retry-after"] = String(err.extra.retry_after);
  return new Response(redact(JSON.stringify(problemOf(err, c.req.path))), { status: err.status, headers });
}

/**
 * `http`: who may reach the app (allowed hosts, the listening port, CORS origins); see
 * server/middleware/guard.ts. Tests through `app.request` use `http://localhost`, always allowed.
 */
export function createApp(deps: Deps, http: HttpOptions = {}): OpenAPIHono<Env> {
  const app = new OpenAPIHono<Env>();
  // UUIDs compare case-insensitively: ids in the path and query are lower-cased before routing.
  const dispatch = app.fetch;
  app.fetch = (request, ...rest) => dispatch(lowerCaseIds(request), ...rest);
  app.use("*", async (c, next) => {
    c.set("deps", deps);
    await next();
  });
  // Operations (issue 19): request id, log line and latency; /healthz, /readyz, /metrics; cluster notices out before answering.
  app.use("*", requestMiddleware(deps));
  mountOps(app, deps);
  if (deps.cluster) app.use("*", clusterFlush(deps.cluster));
  app.use("*", requestGuard(http, deps.publicUrl));
  if (http.apiToken !== undefined) app.use("*", remoteToken(http.apiToken));
  app.use("*", cookieCsrf());
  app.use("*", bodyLimit());
  // The check pages editors link (docs/checks, shipped in the package) and the dashboard's
  // files are public (its data comes from the API): served before the permission check.
  mountHelp(app);
  app.use("*", webStatic());
  app.use("*", actorMiddleware());

  const api = new OpenAPIHono<Env>();
  for (const family of routeFamilies) api.route("/", family());
  registerDocs(api);
  app.route(API_PREFIX, api);
  // The MCP server for coding agents (server/mcp-server/): its tools call the API above.
  mountMcp(app);
  app.get(API_PREFIX + "/docs", (c) => c.html(docsPage(API_PREFIX)));
  app.get("/", (c) => c.redirect(API_PREFIX + "/docs"));

  app.notFound((c) =>
    problemResponse(c, new ApiError("route_not_found", `no route answers ${c.req.method} ${c.req.path}`)),
  );
  app.onError((err, c) => {
    if (err instanceof ApiError) return problemResponse(c, err);
    if (err instanceof HTTPException) {
      const malformed = /malformed json/i.test(err.message);
      const code = malformed
        ? "invalid_json"
        : err.status === 413
          ? "file_too_large"
          : err.status === 415
            ? "unsupported_media_type"
            : "validation_failed";
      return problemResponse(c, new ApiError(code, err.message));
    }
    deps.logger.error("unhandled error", {
      method: c.req.method,
      path: c.req.path,
      error: err instanceof Error ? (err.stack ?? err.message) : String(err),
    });
    return problemResponse(c, new ApiError("internal_error", "the server failed; the log has the details"));
  });
  return app;
}
