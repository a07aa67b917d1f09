/**
 * Local mode served beyond loopback (`spec-review serve --allow-remote`): every request,
 * from whatever address, needs the API token printed at start, as `Authorization: Bearer`.
 * Without it: 401 `unauthenticated`; with another: 401 `invalid_token`. Compared in constant time.
 */
import type { MiddlewareHandler } from "hono";
import { ApiError } from "../errors.js";
import type { Env } from "../http.js";
import { bearerToken } from "../auth/hosted.js";
import { safeEqual, tokenHash } from "../auth/secrets.js";

export function remoteToken(apiToken: string): MiddlewareHandler<Env> {
  const expected = tokenHash(apiToken);
  return async (c, next) => {
    const token = bearerToken(c.req.raw);
    if (token === undefined)
      throw new ApiError(
        "unauthenticated",
        "this server is reachable from other machines: send the API token it printed at start as Authorization: Bearer <token>",
      );
    if (!safeEqual(tokenHash(token), expected))
      throw new ApiError("invalid_token", "that is not the API token this server printed at start");
    await next();
  };
}
