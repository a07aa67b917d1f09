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
import { requestGuard, type HttpOptions } from "./middleware/guard.js";
import { bodyLimit } from "./middleware/body-limit.js";
import { redact } from "./redact.js";

export type { HttpOptions } from "./middleware/guard.js";

function problemResponse(c: Context, err: ApiError): Response {
  // No answer carries a secret, whatever an error message picked up (a provider's echo, a CLI's stderr).
  return new Response(redact(JSON.stringify(problemOf(err, c.req.path))), {
    status: err.status,
    headers: { "content-type": "application/problem+json" },
  });
}

/**
 * `http`: who may reach the app (allowed hosts, the listening port, CORS origins); see
 * server/middleware/guard.ts. Tests through `app.request` use `http://localhost`, always allowed.
 */
export function createApp(deps: Deps, http: HttpOptions = {}): OpenAPIHono<Env> {
  const app = new OpenAPIHono<Env>();
  app.use("*", async (c, next) => {
    c.set("deps", deps);
    await next();
  });
  app.use("*", requestGuard(http, deps.mode));
  app.use("*", bodyLimit());

  const api = new OpenAPIHono<Env>();
  for (const family of routeFamilies) api.route("/", family());
  registerDocs(api);
  app.route(API_PREFIX, api);
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
