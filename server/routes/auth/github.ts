/**
 * Linking a GitHub login to one's account (docs/accounts.md, "GitHub login"), a product
 * extension: `GET /auth/github` sends the signed-in person to GitHub's authorize page of the
 * App (its user authorization), `GET /auth/github/callback` is where GitHub sends them back;
 * and an admin sets or clears anyone's login with `PUT /admin/users/{userId}/github-login`.
 * Without the App's client id and secret both GitHub routes answer 503 `github_link_unavailable`.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { caller, type Actor } from "../../auth/actor.js";
import { cookieOf, SESSION_COOKIE } from "../../auth/cookies.js";
import type { GitHubLink } from "../../auth/github-link.js";
import { bearerToken } from "../../auth/hosted.js";
import { ApiError } from "../../errors.js";
import { deps, errorResponses, jsonBody, jsonResponse, type Env, type Router } from "../../http.js";
import { AccountSchema, GitHubLoginBodySchema } from "../../schemas/admin.js";
import { Uuid } from "../../schemas/common.js";
import { API_PREFIX } from "../../version.js";
import { hostedOnly } from "./index.js";

const problem = errorResponses[400].content;
const linkErrors = {
  ...errorResponses,
  401: { description: "Not signed in", content: problem },
  403: { description: "Not allowed (a guest has no account)", content: problem },
  502: { description: "GitHub did not complete the authorization", content: problem },
  503: { description: "The GitHub App's client id and secret are not set", content: problem },
} as const;

export const linkGitHub = createRoute({
  method: "get",
  path: "/auth/github",
  operationId: "linkGitHub",
  summary: "link a GitHub login: redirects the signed-in person to GitHub's authorize page of the App",
  tags: ["auth"],
  responses: {
    200: jsonResponse(
      z.object({ authorize_url: z.string() }).openapi("GitHubAuthorize"),
      "With `Accept: application/json` (a page that navigates itself): the address the 302 would send to",
    ),
    302: {
      description: "To `https://<github host>/login/oauth/authorize?client_id=…&state=…`",
      headers: { location: { schema: { type: "string" } } },
    },
    ...linkErrors,
  },
});

export const gitHubCallback = createRoute({
  method: "get",
  path: "/auth/github/callback",
  operationId: "gitHubCallback",
  summary: "where GitHub sends the person back: checks the state, reads GET /user, links the login",
  tags: ["auth"],
  request: {
    query: z.object({
      code: z.string().max(512).optional(),
      state: z.string().max(512).optional(),
      error: z.string().max(200).optional(),
    }),
  },
  responses: { 200: jsonResponse(AccountSchema, "The account with its GitHub login"), ...linkErrors },
});

export const setGitHubLogin = createRoute({
  method: "put",
  path: "/admin/users/{userId}/github-login",
  operationId: "setGitHubLogin",
  summary: "set or clear a person's GitHub login (null clears it)",
  tags: ["admin"],
  request: {
    params: z.object({ userId: Uuid.openapi({ param: { name: "userId", in: "path" } }) }),
    body: jsonBody(GitHubLoginBodySchema),
  },
  responses: { 200: jsonResponse(AccountSchema, "The account with its GitHub login"), ...errorResponses },
});

function link(c: Context<Env>): GitHubLink {
  hostedOnly(c);
  const l = deps(c).githubLink;
  if (!l) throw new ApiError("github_link_unavailable", "this service has no GitHub link set up");
  return l;
}

/** The signed-in person (a guest has no account to link). */
function person(c: Context<Env>): Actor {
  const actor = caller(c);
  if (actor.kind !== "user")
    throw new ApiError("forbidden", "only a signed-in person has an account to link");
  return actor;
}

/** What the state is bound to: the session cookie, else the bearer token the request came with. */
function credential(c: Context<Env>): string {
  return cookieOf(c.req.raw, SESSION_COOKIE) ?? bearerToken(c.req.raw) ?? "";
}

function redirectUri(c: Context<Env>): string {
  return `${deps(c).linkBase().replace(/\/+$/, "")}${API_PREFIX}/auth/github/callback`;
}

function accountView(p: {
  id: string;
  name: string;
  email: string;
  role: string;
  github_login: string | null;
}) {
  const { id, name, email, role, github_login } = p;
  return { id, name, email, role, github_login };
}

export function mountGitHubLink(r: Router): void {
  r.openapi(linkGitHub, (c) => {
    const l = link(c);
    const url = l.authorizeUrl(person(c).id, credential(c), redirectUri(c));
    c.header("cache-control", "no-store");
    if ((c.req.header("accept") ?? "").includes("application/json"))
      return c.json({ authorize_url: url }, 200);
    return c.redirect(url, 302);
  });
  r.openapi(gitHubCallback, async (c) => {
    const l = link(c);
    const actor = person(c);
    const q = c.req.valid("query");
    if (q.error && !q.code)
      throw new ApiError(
        "github_oauth_failed",
        `GitHub answered ${q.error.slice(0, 100)}; nothing was linked`,
      );
    await l.callback(q, actor.id, credential(c), redirectUri(c));
    c.header("cache-control", "no-store");
    return c.json(accountView(await deps(c).accounts.person(actor.id)), 200);
  });
  r.openapi(setGitHubLogin, async (c) => {
    const l = link(c);
    const { userId } = c.req.valid("param");
    await l.setLogin(userId, c.req.valid("json").github_login);
    return c.json(accountView(await deps(c).accounts.person(userId)), 200);
  });
}
