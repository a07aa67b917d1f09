/**
 * The permission check every request passes (called by `actorMiddleware`), in hosted mode:
 *
 * 1. a public operation passes; nobody signed in: 401 `unauthenticated`;
 * 2. an operation that names a record of a bundle (`/docs/{docId}/…`, `/runs/{runId}/…`)
 *    finds that bundle; one the caller may not see (visibility.ts), or that does not exist,
 *    is 404 `not_found`, never 403, so a bundle's existence is not leaked;
 * 3. `decide` (permissions.ts) answers by role, and by the caller's relation to the bundle
 *    (its author) or the profile (a maintainer): 403 `forbidden` when it says no.
 *
 * Records of families not built yet (threads, waivers, handoffs, verification runs) have no
 * lookup here: those operations answer 501 until built, and the permission matrix test
 * fails when a built operation names a record this file cannot trace to its bundle.
 */
import type { Context } from "hono";
import { and, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "../db/index.js";
import { bundles, docs, handoffs, profiles, runs, verificationRuns } from "../db/schema.js";
import { ApiError, NotFoundError } from "../errors.js";
import type { Env } from "../http.js";
import { API_PREFIX } from "../version.js";
import type { Actor } from "./actor.js";
import {
  decide,
  permissionOf,
  profileParamOf,
  scopeOf,
  type Relation,
  type ScopeKind,
} from "./permissions.js";
import { canSee, type BundleAudience } from "./visibility.js";
import { threadLookup } from "../threads/lookup.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const audienceColumns = { id: bundles.id, visibility: bundles.visibility, createdBy: bundles.createdBy };

interface BundleLookup {
  noun: string;
  find(db: Db, id: string): Promise<BundleAudience | undefined>;
}

/** The bundle of a record of `table` (a table with `id` and `bundle_id` columns). */
function through(
  noun: string,
  table: typeof docs | typeof runs | typeof verificationRuns | typeof handoffs,
): BundleLookup {
  return {
    noun,
    find: async (db, id) =>
      (
        await db
          .select(audienceColumns)
          .from(table)
          .innerJoin(bundles, eq(bundles.id, table.bundleId))
          .where(and(eq(table.id, id), isNull(bundles.goneAt)))
      )[0],
  };
}

/** How each kind of bundle-scoped record leads to its bundle (none yet for families not built). */
export const BUNDLE_LOOKUPS: Partial<Record<ScopeKind, BundleLookup>> = {
  bundle: {
    noun: "bundle",
    find: async (db, id) =>
      (
        await db
          .select(audienceColumns)
          .from(bundles)
          .where(and(eq(bundles.id, id), isNull(bundles.goneAt)))
      )[0],
  },
  doc: through("doc", docs),
  run: through("run", runs),
  verification: through("verification run", verificationRuns),
  handoff: through("handoff", handoffs),
  thread: threadLookup,
};

/** The value of path parameter `name` of this request, read against the operation's path. */
function pathParam(c: Context<Env>, operation: string, name: string): string | undefined {
  const template = operation.slice(operation.indexOf(" ") + 1).split("/");
  const at = template.indexOf(`{${name}}`);
  const path = c.req.path.startsWith(API_PREFIX) ? c.req.path.slice(API_PREFIX.length) : c.req.path;
  const segment = path.split("/")[at];
  if (at < 0 || segment === undefined) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** Does `actor` maintain the profile `key` (or, with none, any profile)? */
async function maintains(db: Db, actor: Actor, key: string | undefined): Promise<boolean> {
  const holds = sql`${profiles.maintainers} @> ${JSON.stringify([actor.id])}::jsonb`;
  const rows = await db
    .select({ key: profiles.key })
    .from(profiles)
    .where(key === undefined ? holds : and(eq(profiles.key, key), holds))
    .limit(1);
  return rows.length > 0;
}

export async function authorize(c: Context<Env>, actor: Actor | undefined, operation: string | undefined) {
  const { mode, db } = c.get("deps");
  if (mode === "local") return;
  const permission = permissionOf(operation);
  if (permission === "public") return;
  if (!actor) throw new ApiError("unauthenticated", "sign in first");

  const relation: Relation = {};
  const scope = scopeOf(operation);
  const lookup = scope && BUNDLE_LOOKUPS[scope.kind];
  if (operation && scope && lookup && actor.role !== "admin") {
    const id = pathParam(c, operation, scope.param);
    // An id that is not a uuid names nothing: the route's own validation answers it.
    if (id !== undefined && UUID.test(id)) {
      const bundle = await lookup.find(db, id.toLowerCase());
      if (!bundle || !canSee(mode, actor, bundle)) throw new NotFoundError(lookup.noun, id);
      relation.author = bundle.createdBy !== null && bundle.createdBy === actor.id;
    }
  }
  if (permission === "maintain" && actor.role === "member") {
    const param = profileParamOf(operation);
    relation.maintainer = await maintains(
      db,
      actor,
      param && operation ? pathParam(c, operation, param) : undefined,
    );
  }

  const decision = decide({ mode, actor, operation, relation });
  if (!decision.allowed)
    throw new ApiError("forbidden", `${actor.name} may not ${operation ?? `${c.req.method} ${c.req.path}`}`);
}
