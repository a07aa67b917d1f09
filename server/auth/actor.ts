/**
 * The caller of a request (the actor): who it is, what kind, what workspace role. The
 * graph's `Authenticator` says who a request comes from; `actorMiddleware` puts the
 * answer on the Hono context (`c.get("actor")`) and asks the permission table
 * (permissions.ts) whether the operation is allowed, before any route runs. Routes read
 * the caller with `caller(c)` and never check roles themselves.
 */
import type { Context, MiddlewareHandler } from "hono";
import { ApiError } from "../errors.js";
import type { Env } from "../http.js";
import { operationOf } from "./permissions.js";
import { authorize } from "./authorize.js";

/** `user`: a person; `guest`: entered by a share link; `ai`: a coding agent or the reviewer acting on its own. */
export type ActorKind = "user" | "guest" | "ai";
/** Workspace roles (a guest has none beyond the bundle it entered). */
export type Role = "admin" | "member" | "viewer" | "guest";

export interface Actor {
  id: string;
  name: string;
  kind: ActorKind;
  role: Role;
  /** A guest's bundle: the one whose share link it entered, the only one it sees. */
  guestBundleId?: string;
  /** A signed-in person's email address (hosted mode). */
  email?: string;
}

/** In local mode every caller is this one implicit admin (what `GET /me` answers). */
export const LOCAL_ADMIN: Actor = Object.freeze({
  id: "admin",
  name: "Local admin",
  kind: "user",
  role: "admin",
});

/** Says who a request comes from; `undefined` for an anonymous caller. */
export interface Authenticator {
  actorOf(req: Request): Promise<Actor | undefined>;
}

/** Local mode: one person, no sign-in. Tests hand in another actor to see it recorded. */
export function localAuthenticator(actor: Actor = LOCAL_ADMIN): Authenticator {
  const fixed = Object.freeze({ ...actor });
  return { actorOf: () => Promise.resolve(fixed) };
}

/**
 * Puts the caller on the context and refuses what the permission table does not allow
 * (401, 403), or a bundle the caller may not see (404): see authorize.ts.
 */
export function actorMiddleware(): MiddlewareHandler<Env> {
  return async (c, next) => {
    const d = c.get("deps");
    const actor = await d.auth.actorOf(c.req.raw);
    c.set("actor", actor);
    await authorize(c, actor, operationOf(c));
    await next();
  };
}

/** The caller of a request that needs one (every operation but the public ones). */
export function caller(c: Context<Env>): Actor {
  const actor = c.get("actor");
  if (!actor) throw new ApiError("unauthenticated", "sign in first");
  return actor;
}
