/**
 * Sign-up, sign-in, sign-out and password reset under /auth, and the caller's API tokens
 * under /me/tokens (docs/accounts.md). Hosted mode only: local mode has one implicit
 * admin and no accounts (409 `hosted_only`).
 */
import { createRoute } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { IncomingMessage } from "node:http";
import {
  createRouter,
  deps,
  errorResponses,
  jsonBody,
  jsonResponse,
  type Env,
  type Router,
} from "../../http.js";
import { ApiError } from "../../errors.js";
import type { Actor } from "../../auth/actor.js";
import { caller } from "../../auth/actor.js";
import type { SignedIn } from "../../auth/accounts.js";
import { clearCredentialCookie, cookieOf, SESSION_COOKIE, setCredentialCookie } from "../../auth/cookies.js";
import {
  ApiTokenCreatedSchema,
  ApiTokenSchema,
  NewTokenBodySchema,
  ResetBodySchema,
  SignInBodySchema,
  SignupBodySchema,
  TokenIdParams,
} from "../../schemas/auth.js";
import { MeSchema, meOf } from "../meta/index.js";
import { listOf } from "../../schemas/params.js";
import { noContent } from "../stub.js";
import { mountGitHubLink } from "./github.js";

const tags = ["auth"];

const problem = errorResponses[400].content;
const authErrors = {
  ...errorResponses,
  401: { description: "Not signed in, or wrong credentials", content: problem },
  403: {
    description: "Not allowed (a guest has no account; a cookie write from another origin)",
    content: problem,
  },
  410: { description: "The invite or reset link was used, revoked or has expired", content: problem },
  429: { description: "Too many failed sign-ins (`Retry-After` says how long to wait)", content: problem },
} as const;

export function hostedOnly(c: Context<Env>): void {
  if (deps(c).mode !== "hosted")
    throw new ApiError(
      "hosted_only",
      "local mode has one implicit admin and no accounts; start with --hosted",
    );
}

/** The calling person (a guest or an AI actor has no account). */
function person(c: Context<Env>): Actor {
  hostedOnly(c);
  const actor = caller(c);
  if (actor.kind !== "user") throw new ApiError("forbidden", "only a signed-in person has API tokens");
  return actor;
}

/** The address a sign-in comes from (the TCP peer), for the per-address rate limit. */
function peerAddress(c: Context<Env>): string {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  return incoming?.socket.remoteAddress ?? "unknown";
}

/** Sets the session cookie; returns the `GET /me` answer for the person. */
function signedIn(c: Context<Env>, s: SignedIn) {
  setCredentialCookie(c, SESSION_COOKIE, s.session.token, s.session.expiresAt, deps(c).publicUrl);
  return meOf(deps(c).mode, s.actor);
}

const signup = createRoute({
  method: "post",
  path: "/auth/signup",
  operationId: "signUp",
  summary: "accept an invite: make the account with the invite's role and sign in (sets the session cookie)",
  tags,
  request: { body: jsonBody(SignupBodySchema) },
  responses: { 201: jsonResponse(MeSchema, "Signed in"), ...authErrors },
});

const signIn = createRoute({
  method: "post",
  path: "/auth/sign-in",
  operationId: "signIn",
  summary: "sign in with email and password (sets the session cookie); rate limited per account and address",
  tags,
  request: { body: jsonBody(SignInBodySchema) },
  responses: { 200: jsonResponse(MeSchema, "Signed in"), ...authErrors },
});

const signOut = createRoute({
  method: "post",
  path: "/auth/sign-out",
  operationId: "signOut",
  summary: "end this browser's session (clears the session cookie)",
  tags,
  responses: { 204: noContent("Signed out"), ...authErrors },
});

const reset = createRoute({
  method: "post",
  path: "/auth/reset",
  operationId: "resetPassword",
  summary:
    "set a new password with a reset link; ends every session and API token of the person, then signs in",
  tags,
  request: { body: jsonBody(ResetBodySchema) },
  responses: { 200: jsonResponse(MeSchema, "Signed in with the new password"), ...authErrors },
});

const createToken = createRoute({
  method: "post",
  path: "/me/tokens",
  operationId: "createApiToken",
  summary: "make an API token for scripts, the Action or a coding agent; the token appears one time",
  tags,
  request: { body: jsonBody(NewTokenBodySchema) },
  responses: { 201: jsonResponse(ApiTokenCreatedSchema, "The token"), ...authErrors },
});

const listTokens = createRoute({
  method: "get",
  path: "/me/tokens",
  operationId: "listApiTokens",
  summary: "the caller's API tokens, newest first (never the tokens themselves)",
  tags,
  responses: { 200: jsonResponse(listOf(ApiTokenSchema, "ApiTokenList"), "Tokens"), ...authErrors },
});

const deleteToken = createRoute({
  method: "delete",
  path: "/me/tokens/{tokenId}",
  operationId: "deleteApiToken",
  summary: "revoke one of the caller's API tokens; it stops working at once",
  tags,
  request: { params: TokenIdParams },
  responses: { 204: noContent("Revoked"), ...authErrors },
});

export default function authRoutes(): Router {
  const r = createRouter();
  r.openapi(signup, async (c) => {
    hostedOnly(c);
    return c.json(signedIn(c, await deps(c).accounts.signup(c.req.valid("json"))), 201);
  });
  r.openapi(signIn, async (c) => {
    hostedOnly(c);
    return c.json(signedIn(c, await deps(c).accounts.signIn(c.req.valid("json"), peerAddress(c))), 200);
  });
  r.openapi(signOut, async (c) => {
    hostedOnly(c);
    const token = cookieOf(c.req.raw, SESSION_COOKIE);
    if (token !== undefined) await deps(c).accounts.sessions.close(token);
    clearCredentialCookie(c, SESSION_COOKIE, deps(c).publicUrl);
    return c.body(null, 204);
  });
  r.openapi(reset, async (c) => {
    hostedOnly(c);
    return c.json(signedIn(c, await deps(c).accounts.reset(c.req.valid("json"))), 200);
  });
  r.openapi(createToken, async (c) =>
    c.json(await deps(c).accounts.sessions.createToken(person(c).id, c.req.valid("json")), 201),
  );
  r.openapi(listTokens, async (c) =>
    c.json({ items: await deps(c).accounts.sessions.listTokens(person(c).id) }, 200),
  );
  r.openapi(deleteToken, async (c) => {
    await deps(c).accounts.sessions.deleteToken(person(c).id, c.req.valid("param").tokenId);
    return c.body(null, 204);
  });
  mountGitHubLink(r);
  return r;
}
