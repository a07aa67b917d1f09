/**
 * The permission check every request passes (called by `actorMiddleware`), in hosted mode:
 *
 * 1. a public operation passes; nobody signed in: 401 `unauthenticated`;
 * 2. an operation that names a record of a bundle (`/docs/{docId}/…`, `/runs/{runId}/…`)
 *    finds that bundle; one the caller may not see (visibility.ts), or that does not exist,
 *    is 404 `not_found`, never 403, so a bundle's existence is not leaked;
 * 3. `decide` (permissions.ts) answers by role, and by the caller's relation to the bundle
 *    (its author) or the profile (a maintainer): 403 `forbidden` when it says no;
 * 4. an allowed operation that needs more than `read` on a record of an archived bundle (its
 *    repohost source was deleted) is 409 `bundle_archived`: the one place such changes are
 *    refused, for admins too.
 *
 * Records of families not built yet (threads, waivers, handoffs, verification runs) have no
 * lookup here: those operations answer 501 until built, and the permission matrix test
 * fails when a built operation names a record this file cannot trace to its bundle.
 */
import type { Context } from "hono";
import { and, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "../db/index.js";
import {
  bundles,
  docs,
  handoffs,
  profiles,
  runs,
  verificationRuns,
  verificationWaivers,
  waivers,
} from "../db/schema.js";
import { ApiError, NotFoundError } from "../errors.js";
import type { Env } from "../http.js";
import { API_PREFIX } from "../version.js";
import type { Actor } from "./actor.js";
import {
  decide,
  permissionOf,
  profileParamOf,
  scopeOf,
  type Permission,
  type Relation,
  type ScopeKind,
} from "./permissions.js";
import { canSee, type BundleAudience } from "./visibility.js";
import { threadLookup } from "../threads/lookup.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const audienceColumns = {
  id: bundles.id,
  visibility: bundles.visibility,
  createdBy: bundles.createdBy,
  archivedAt: bundles.archivedAt,
};

/** A bundle as the check sees it: who may see it, and whether it is archived. */
type CheckedBundle = BundleAudience & { archivedAt?: Date | null };

interface BundleLookup {
  noun: string;
  find(db: Db, id: string): Promise<CheckedBundle | undefined>;
}

/**
 * Permissions that only read (or name no bundle's content): everything else changes the
 * bundle an operation names, or something of it (a thread, a waiver, a run, a share link),
 * and is refused on an archived bundle.
 */
const READ_ONLY: ReadonlySet<Permission> = new Set(["public", "self", "read"]);

/**
 * The one refusal of changes to archived bundles (a bundle whose repohost source was
 * deleted): 409 `bundle_archived` for an operation that needs more than `read` on a record
 * of an archived bundle. The App's review comments (outside the HTTP API) ask the same
 * through `inArchivedBundle`.
 */
function archivedError(noun: string, id: string): ApiError {
  return new ApiError(
    "bundle_archived",
    `${noun === "bundle" ? "bundle" : `the bundle of ${noun}`} ${id} is archived (its repohost source was deleted): it can be read, not changed`,
  );
}

/** True when the record `id` of kind `kind` belongs to an archived bundle. */
export async function inArchivedBundle(db: Db, kind: ScopeKind, id: string): Promise<boolean> {
  const bundle = await BUNDLE_LOOKUPS[kind]?.find(db, id);
  return Boolean(bundle?.archivedAt);
}

/** The bundle of a record of `table` (a table with `id` and `bundle_id` columns). */
function through(
  noun: string,
  table:
    | typeof docs
    | typeof runs
    | typeof verificationRuns
    | typeof handoffs
    | typeof waivers
    | typeof verificationWaivers,
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
  // A finding waiver or acknowledgement, else a verification waiver (server/waivers/verification.ts).
  waiver: {
    noun: "waiver",
    find: async (db, id) =>
      (await through("waiver", waivers).find(db, id)) ??
      (await through("waiver", verificationWaivers).find(db, id)),
  },
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
  // Archived bundles exist in hosted mode only (repohost sources are hosted only).
  if (mode === "local") return;
  const permission = permissionOf(operation);
  if (permission === "public") return;
  if (!actor) throw new ApiError("unauthenticated", "sign in first");

  const relation: Relation = {};
  const scope = scopeOf(operation);
  const lookup = scope && BUNDLE_LOOKUPS[scope.kind];
  const changes = permission !== undefined && !READ_ONLY.has(permission);
  let archived: string | undefined;
  // An admin sees every bundle: its bundle is looked up only to refuse a change to an archived one.
  if (operation && scope && lookup && (actor.role !== "admin" || changes)) {
    const id = pathParam(c, operation, scope.param);
    // An id that is not a uuid names nothing: the route's own validation answers it.
    if (id !== undefined && UUID.test(id)) {
      const bundle = await lookup.find(db, id.toLowerCase());
      if (actor.role !== "admin") {
        if (!bundle || !canSee(mode, actor, bundle)) throw new NotFoundError(lookup.noun, id);
        relation.author = bundle.createdBy !== null && bundle.createdBy === actor.id;
      }
      if (changes && bundle?.archivedAt) archived = id;
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
  // Allowed, but the bundle is archived: the same callers read it, nobody changes it.
  if (archived !== undefined && lookup) throw archivedError(lookup.noun, archived);
}
