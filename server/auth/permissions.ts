/**
 * Who may do what: one table from each operation (`METHOD /path` as the OpenAPI document
 * names it, under /api/v1) to the permission it needs, and one function that decides.
 * Routes never check roles themselves: `actorMiddleware` asks `authorize`
 * (server/auth/authorize.ts), which finds the bundle an operation names, hides it (404)
 * from a caller who may not see it, and asks `decide` here. docs/permissions.md is the
 * table for people; test/server/permissions-matrix.test.ts walks every operation against it.
 *
 * Local mode has one person, the local admin: everything is allowed.
 */
import type { Context } from "hono";
import { matchedRoutes } from "hono/route";
import { API_PREFIX } from "../version.js";
import type { Actor, Role } from "./actor.js";

/**
 * - `public`: anyone, signed in or not.
 * - `self`: the caller's own things (its inbox, its API tokens): any signed-in person, not a guest.
 * - `read`: see bundles, docs, runs, profiles; compute things without storing them. A guest
 *   reads only the bundle it entered (and the bundle list, which shows only that bundle).
 * - `comment`: open a thread for humans on a bundle (a guest may, on the bundle it entered).
 * - `write`: change bundles and docs (a new version, a thread reply, a waiver request).
 * - `review`: start what calls a model (it spends the token budget).
 * - `approve`: approve a doc, decide on a waiver.
 * - `own`: what the author of the bundle (the member who created it) or an admin decides:
 *   its visibility, its share link, deleting it.
 * - `maintain`: what a maintainer of the profile (a member; of any profile, where none is
 *   named) or an admin does: save a profile, roll it back, read insights.
 * - `admin`: workspace administration.
 */
export type Permission =
  "public" | "self" | "read" | "comment" | "write" | "review" | "approve" | "own" | "maintain" | "admin";

export const PERMISSIONS = {
  // meta, and the pages of the API itself
  "GET /meta": "public",
  "GET /me": "public",
  "GET /openapi.json": "public",
  "GET /docs": "public",
  "GET /docs/assets/{file}": "public",
  // accounts and sign-in (not in the contract; docs/accounts.md). A guest has no tokens (the route refuses).
  "POST /auth/signup": "public",
  "POST /auth/sign-in": "public",
  "POST /auth/sign-out": "public",
  "POST /auth/reset": "public",
  "GET /me/tokens": "self",
  "POST /me/tokens": "self",
  "DELETE /me/tokens/{tokenId}": "self",
  // a person's GitHub login (not in the contract; docs/accounts.md): their own through GitHub, anyone's by an admin
  "GET /auth/github": "self",
  "GET /auth/github/callback": "self",
  "PUT /admin/users/{userId}/github-login": "admin",
  // bundles
  "GET /bundles": "read",
  "POST /bundles": "write",
  "GET /bundles/{bundleId}": "read",
  "DELETE /bundles/{bundleId}": "own",
  "GET /bundles/{bundleId}/delete-plan": "read",
  "POST /bundles/import/preview": "write",
  "POST /bundles/import": "write",
  // docs and files
  "GET /docs/{docId}": "read",
  "GET /docs/{docId}/files": "read",
  "DELETE /docs/{docId}/files": "write",
  "GET /docs/{docId}/files/content": "read",
  "PUT /docs/{docId}/files/content": "write",
  "POST /docs/{docId}/files/rename": "write",
  "GET /docs/{docId}/versions": "read",
  "GET /docs/{docId}/diff": "read",
  "GET /docs/{docId}/export": "read",
  // adoption
  "GET /skipped": "read",
  "POST /skipped": "write",
  "GET /dismissed-docs": "read",
  "POST /dismissed-docs": "write",
  "DELETE /dismissed-docs": "write",
  "POST /render": "read",
  // share links and access
  "GET /share/{token}": "public",
  "POST /share/{token}": "public",
  "GET /bundles/{bundleId}/access": "read",
  "PUT /bundles/{bundleId}/visibility": "own",
  "POST /bundles/{bundleId}/share": "own",
  "DELETE /bundles/{bundleId}/share": "own",
  // handoffs and verifications
  "POST /handoffs/{handoffId}/report": "write",
  "GET /docs/{docId}/handoff": "read",
  "POST /docs/{docId}/handoff": "write",
  "POST /docs/{docId}/handoff/zip": "write",
  "GET /docs/{docId}/verifications": "read",
  "POST /docs/{docId}/verifications": "review",
  "POST /docs/{docId}/verifications/resolve": "read",
  "GET /docs/{docId}/verifications/defaults": "read",
  "GET /verifications/{runId}/events": "read",
  "GET /verifications/{runId}": "read",
  // runs
  "GET /docs/{docId}/runs": "read",
  "POST /docs/{docId}/runs": "review",
  "POST /reviews": "review",
  "GET /reviews/{reviewId}/report": "read",
  "GET /docs/{docId}/runs/estimate": "read",
  "GET /runs/{runId}/events": "read",
  "GET /runs/{runId}/claims": "read",
  "GET /runs/{runId}/questions": "read",
  "GET /runs/{runId}": "read",
  "GET /docs/{docId}/tour": "read",
  "POST /docs/{docId}/diff/summary": "review",
  "GET /runs/{runId}/report": "read",
  "POST /runs/{runId}/findings/{findingId}/fix": "review",
  "POST /runs/{runId}/findings/{findingId}/fix/accept": "write",
  "GET /runs/{runId}/findings": "read",
  // trace
  "GET /docs/{docId}/trace": "read",
  "DELETE /docs/{docId}/links": "write",
  "POST /docs/{docId}/trace/ids": "write",
  "POST /docs/{docId}/trace/cover": "write",
  "POST /links/suggest": "read",
  // threads (a guest may open threads for humans on the bundle it entered, rule 9)
  "GET /docs/{docId}/threads": "read",
  "POST /docs/{docId}/threads": "comment",
  "GET /threads/{threadId}": "read",
  "POST /threads/{threadId}/messages": "write",
  "POST /threads/{threadId}/decision": "write",
  "PUT /threads/{threadId}/blocking": "write",
  "PUT /threads/{threadId}/status": "write",
  // waivers
  "POST /docs/{docId}/verification-waivers": "write",
  "GET /docs/{docId}/waivers": "read",
  "POST /docs/{docId}/waivers": "write",
  "POST /docs/{docId}/acknowledgements/withdraw": "write",
  "POST /waivers/{waiverId}/approve": "approve",
  "POST /waivers/{waiverId}/reject": "approve",
  // status, people, inbox
  "GET /docs/{docId}/status": "read",
  "POST /docs/{docId}/review-request": "write",
  "POST /docs/{docId}/approve": "approve",
  "GET /people": "read",
  "GET /inbox": "self",
  "POST /inbox/seen": "self",
  "POST /inbox/read": "self",
  "GET /insights": "maintain",
  // profiles
  "POST /docs/{docId}/adopt": "write",
  "PUT /docs/{docId}/profile": "write",
  "GET /docs/{docId}/assumptions": "read",
  "POST /profiles/guess": "read",
  "GET /profiles": "read",
  "POST /profiles": "admin",
  // learning a profile from existing docs (not in the contract; docs/api-decisions.md): saving in hosted mode takes an admin
  "POST /profiles/infer": "maintain",
  "GET /profiles/{key}": "read",
  "PUT /profiles/{key}": "maintain",
  "DELETE /profiles/{key}": "admin",
  "PUT /profiles/{key}/maintainers": "admin",
  "GET /profiles/{key}/diff": "read",
  "POST /profiles/{key}/rollback": "maintain",
  "GET /profiles/{key}/threads": "read",
  "POST /profiles/{key}/threads": "write",
  // admin
  "GET /admin/settings": "admin",
  "PUT /admin/settings": "admin",
  "GET /admin/invites": "admin",
  "POST /admin/invites": "admin",
  "POST /admin/invites/{inviteId}/revoke": "admin",
  "POST /admin/reset-links": "admin",
  "GET /admin/budget": "admin",
  "PUT /admin/budget": "admin",
  "GET /admin/backends": "admin",
  "POST /admin/backends": "admin",
  "PUT /admin/backends/{backendId}": "admin",
  "DELETE /admin/backends/{backendId}": "admin",
  "POST /admin/backends/{backendId}/test": "admin",
  "GET /admin/presets": "admin",
  "GET /admin/roles": "admin",
  "PUT /admin/roles/{role}": "admin",
  "DELETE /admin/roles/{role}": "admin",
  "GET /admin/mcp": "admin",
  "POST /admin/mcp": "admin",
  "PUT /admin/mcp/{connectionId}": "admin",
  "DELETE /admin/mcp/{connectionId}": "admin",
  "GET /admin/mcp/{connectionId}/tools": "admin",
  "GET /admin/repohost": "admin",
  "PUT /admin/repohost": "admin",
  "DELETE /admin/repohost": "admin",
  // repo host
  "GET /repohost/sources": "read",
  "POST /repohost/sources": "admin",
  "POST /repohost/resolve": "read",
  "DELETE /repohost/sources/{sourceId}": "admin",
  "GET /repohost/sources/{sourceId}/skipped": "read",
  "POST /repohost/sources/{sourceId}/skipped": "write",
  "POST /repohost/sources/{sourceId}/mapping": "write",
  "POST /repohost/sources/{sourceId}/sync": "write",
  "POST /docs/{docId}/publish": "write",
  "POST /docs/{docId}/draft/discard": "write",
  // mcpserver: the MCP server at /mcp (outside /api/v1). Reaching it takes a signed-in person
  // (an API token); each tool is then an API call held to that person's own permissions.
  "POST /mcp": "self",
  "GET /mcp": "self",
  "DELETE /mcp": "self",
} as const satisfies Record<string, Permission>;

export type Operation = keyof typeof PERMISSIONS;

/**
 * What each role is granted in hosted mode; anonymous callers get `public` only. `own` and
 * `maintain` are also granted per resource (the bundle's author, the profile's maintainers).
 */
export const ROLE_GRANTS: Readonly<Record<Role | "anonymous", readonly Permission[]>> = {
  anonymous: ["public"],
  guest: ["public", "read", "comment"],
  viewer: ["public", "self", "read"],
  member: ["public", "self", "read", "comment", "write", "review", "approve"],
  admin: ["public", "self", "read", "comment", "write", "review", "approve", "own", "maintain", "admin"],
};

/** Operations that name no bundle but that a guest may still call (the list shows its bundle only). */
export const GUEST_WORKSPACE_OPERATIONS: ReadonlySet<string> = new Set([
  "GET /bundles",
  // The dashboard renders the doc a guest reads through it; it reads and stores nothing.
  "POST /render",
]);

/** What kind of record a path parameter names, when that record belongs to one bundle. */
export type ScopeKind = "bundle" | "doc" | "run" | "verification" | "thread" | "waiver" | "handoff";

const SCOPE_OF_SEGMENT: Readonly<Record<string, ScopeKind>> = {
  bundles: "bundle",
  docs: "doc",
  runs: "run",
  verifications: "verification",
  threads: "thread",
  waivers: "waiver",
  handoffs: "handoff",
};

/**
 * The bundle-scoped record an operation names (`/docs/{docId}/…` names a doc), or undefined
 * for an operation that names none (`/bundles`, `/profiles/{key}`, `/admin/…`).
 */
export function scopeOf(operation: string | undefined): { kind: ScopeKind; param: string } | undefined {
  const m = operation?.match(/^[A-Z]+ \/([a-z-]+)\/\{(\w+)\}/);
  if (!m) return undefined;
  const kind = SCOPE_OF_SEGMENT[m[1]!];
  return kind ? { kind, param: m[2]! } : undefined;
}

/** The profile an operation names (`/profiles/{key}/…`), for `maintain`. */
export function profileParamOf(operation: string | undefined): string | undefined {
  return operation && /^[A-Z]+ \/profiles\/\{key\}/.test(operation) ? "key" : undefined;
}

export type Decision = { allowed: true } | { allowed: false; code: "unauthenticated" | "forbidden" };

export function permissionOf(operation: string | undefined): Permission | undefined {
  return operation !== undefined && Object.hasOwn(PERMISSIONS, operation)
    ? PERMISSIONS[operation as Operation]
    : undefined;
}

/** What the caller is to the resource the operation names (worked out by `authorize`). */
export interface Relation {
  /** The caller created the bundle the operation names. */
  author?: boolean;
  /** The caller maintains the profile the operation names (or, where it names none, some profile). */
  maintainer?: boolean;
}

/**
 * May `actor` do `operation`? Local mode: yes (one person, the local admin). Otherwise by
 * the actor's role and its relation to the resource; an operation missing from the table
 * is refused (fail closed), and nobody signed in gets 401 rather than 403. A guest may do
 * what its grants allow only on operations that name a bundle (which `authorize` has
 * checked is the one it entered), and on `GUEST_WORKSPACE_OPERATIONS`.
 */
export function decide(input: {
  mode: "local" | "hosted";
  actor: Actor | undefined;
  operation: string | undefined;
  relation?: Relation;
}): Decision {
  if (input.mode === "local") return { allowed: true };
  const needed = permissionOf(input.operation);
  if (needed === "public") return { allowed: true };
  const { actor, relation = {} } = input;
  if (!actor) return { allowed: false, code: "unauthenticated" };
  if (!needed) return { allowed: false, code: "forbidden" };
  if (
    actor.role === "guest" &&
    !scopeOf(input.operation) &&
    !GUEST_WORKSPACE_OPERATIONS.has(input.operation ?? "")
  )
    return { allowed: false, code: "forbidden" };
  const granted =
    ROLE_GRANTS[actor.role].includes(needed) ||
    // Per-resource grants go to members only: a viewer (or a member turned viewer) changes nothing.
    (actor.role === "member" &&
      ((needed === "own" && relation.author === true) ||
        (needed === "maintain" && relation.maintainer === true)));
  return granted ? { allowed: true } : { allowed: false, code: "forbidden" };
}

/** The operation a request is routed to (`PUT /docs/{docId}/files/content`), or undefined when no route answers it. */
export function operationOf<C extends Context>(c: C): string | undefined {
  const route = matchedRoutes(c).find((r) => r.method !== "ALL");
  if (!route) return undefined;
  const path = route.path.startsWith(API_PREFIX) ? route.path.slice(API_PREFIX.length) || "/" : route.path;
  return `${route.method} ${path.replace(/:(\w+)(\{[^}]*\})?/g, "{$1}")}`;
}
