/**
 * Who can see a bundle, as records: its author and visibility (on `bundles`), its share
 * links and the guests who entered one (contract 2.6, 3, 4.1; docs/permissions.md).
 *
 * A share link's token and a guest's cookie are 32 random bytes; only their SHA-256 is
 * stored, so the database never holds a usable one. At most one link of a bundle is active:
 * a new one revokes the old, and leaving `link` visibility revokes it. A revoked or expired
 * link is not found (rule 2), and the guests who entered by it are nobody from then on.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { and, desc, eq, gt, inArray, isNull, or } from "drizzle-orm";
import type { Db } from "../db/index.js";
import { bundles, docs, guests, shareLinks, type Visibility } from "../db/schema.js";
import type { Deps } from "../deps.js";
import { NotFoundError } from "../errors.js";
import type { Actor } from "./actor.js";
import { effectiveVisibility } from "./visibility.js";

/** How long a guest stays entered (never past its link's expiry). */
export const GUEST_TTL_MS = 30 * 24 * 3600 * 1000;

/** The service's public address, without a trailing slash: links people open are built from it. */
export function publicBase(d: Deps): string {
  const url = d.linkBase();
  return url.replace(/\/+$/, "");
}

export function newToken(): string {
  return randomBytes(32).toString("base64url");
}

export function tokenHash(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

export interface ShareState {
  active: boolean;
  created_at?: string;
  created_by?: string;
  expires_at?: string;
}

type LinkRow = typeof shareLinks.$inferSelect;

const live = (now: Date) =>
  and(isNull(shareLinks.revokedAt), or(isNull(shareLinks.expiresAt), gt(shareLinks.expiresAt, now)));

function stateOf(link: LinkRow | undefined): ShareState {
  if (!link) return { active: false };
  return {
    active: true,
    created_at: link.createdAt.toISOString(),
    created_by: link.createdBy,
    ...(link.expiresAt ? { expires_at: link.expiresAt.toISOString() } : {}),
  };
}

/** The bundle's active link, if any. */
async function activeLink(db: Db, bundleId: string, now: Date): Promise<LinkRow | undefined> {
  const [link] = await db
    .select()
    .from(shareLinks)
    .where(and(eq(shareLinks.bundleId, bundleId), live(now)))
    .orderBy(desc(shareLinks.createdAt))
    .limit(1);
  return link;
}

/**
 * Record `actor` as the author of bundles it just created; in hosted mode they start
 * `internal` (every member sees them). The bundle list is told they changed.
 */
export async function recordCreated(d: Deps, ids: readonly string[], actor: Actor): Promise<void> {
  if (ids.length === 0) return;
  await d.db
    .update(bundles)
    .set(d.mode === "hosted" ? { createdBy: actor.id, visibility: "internal" } : { createdBy: actor.id })
    .where(inArray(bundles.id, [...ids]));
  for (const bundleId of ids) d.store.events.emit("changed", { bundleId });
}

export interface BundleAccess {
  bundle_id: string;
  visibility: Visibility;
  share: ShareState;
  created_by: string | null;
  audience: string;
  people: Array<{ id: string; name: string; role: string }>;
}

const AUDIENCE: Record<Visibility, string> = {
  private: "its author and admins",
  internal: "every member of the workspace",
  link: "every member of the workspace, and guests who entered its share link",
};

/** Who can see the bundle: its visibility, its author, its share link, and the guests inside. */
export async function bundleAccess(d: Deps, bundleId: string): Promise<BundleAccess> {
  const now = d.clock.now();
  const [row] = await d.db
    .select({ visibility: bundles.visibility, createdBy: bundles.createdBy })
    .from(bundles)
    .where(and(eq(bundles.id, bundleId), isNull(bundles.goneAt)));
  if (!row) throw new NotFoundError("bundle", bundleId);
  const visibility = effectiveVisibility(row.visibility);
  const link = await activeLink(d.db, bundleId, now);
  const people = link
    ? (
        await d.db
          .select({ id: guests.id, name: guests.name })
          .from(guests)
          .where(and(eq(guests.shareLinkId, link.id), gt(guests.expiresAt, now)))
          .orderBy(guests.createdAt)
      ).map((g) => ({ ...g, role: "guest" }))
    : [];
  return {
    bundle_id: bundleId,
    visibility,
    share: stateOf(link),
    created_by: row.createdBy,
    audience: d.mode === "local" ? "the local admin (local mode)" : AUDIENCE[visibility],
    people,
  };
}

/** Set the visibility; leaving `link` revokes the share link (and so its guests). */
export async function setVisibility(
  d: Deps,
  bundleId: string,
  visibility: Visibility,
): Promise<BundleAccess> {
  const now = d.clock.now();
  await d.db.transaction(async (tx) => {
    const changed = await tx
      .update(bundles)
      .set({ visibility })
      .where(and(eq(bundles.id, bundleId), isNull(bundles.goneAt)))
      .returning({ id: bundles.id });
    if (changed.length === 0) throw new NotFoundError("bundle", bundleId);
    if (visibility !== "link")
      await tx
        .update(shareLinks)
        .set({ revokedAt: now })
        .where(and(eq(shareLinks.bundleId, bundleId), isNull(shareLinks.revokedAt)));
  });
  d.store.events.emit("changed", { bundleId });
  return bundleAccess(d, bundleId);
}

/** A new share link (the old one is revoked); visibility becomes `link`. The URL is returned this once. */
export async function createShareLink(
  d: Deps,
  bundleId: string,
  actor: Actor,
  expiresInDays: number | undefined,
): Promise<{ url: string; visibility: "link"; share: ShareState }> {
  const now = d.clock.now();
  const token = newToken();
  const link: LinkRow = {
    id: randomUUID(),
    bundleId,
    tokenHash: tokenHash(token),
    createdBy: actor.id,
    createdAt: now,
    expiresAt: expiresInDays === undefined ? null : new Date(now.getTime() + expiresInDays * 86_400_000),
    revokedAt: null,
  };
  await d.db.transaction(async (tx) => {
    const changed = await tx
      .update(bundles)
      .set({ visibility: "link" })
      .where(and(eq(bundles.id, bundleId), isNull(bundles.goneAt)))
      .returning({ id: bundles.id });
    if (changed.length === 0) throw new NotFoundError("bundle", bundleId);
    await tx
      .update(shareLinks)
      .set({ revokedAt: now })
      .where(and(eq(shareLinks.bundleId, bundleId), isNull(shareLinks.revokedAt)));
    await tx.insert(shareLinks).values(link);
  });
  d.store.events.emit("changed", { bundleId });
  return { url: `${publicBase(d)}/share/${token}`, visibility: "link", share: stateOf(link) };
}

/** Revoke the bundle's share link (a no-op when none is active); visibility stays `link`. */
export async function revokeShareLink(d: Deps, bundleId: string): Promise<void> {
  await d.db
    .update(shareLinks)
    .set({ revokedAt: d.clock.now() })
    .where(and(eq(shareLinks.bundleId, bundleId), isNull(shareLinks.revokedAt)));
}

export interface SharedBundle {
  link: LinkRow;
  bundle_id: string;
  slug: string;
  title: string;
  doc_id?: string;
  expires_at?: string;
}

/** What a share link opens; 404 `not_found` for an unknown, revoked or expired link (rule 2). */
export async function findShareLink(d: Deps, token: string): Promise<SharedBundle> {
  const [row] = await d.db
    .select({ link: shareLinks, slug: bundles.slug, title: bundles.title, visibility: bundles.visibility })
    .from(shareLinks)
    .innerJoin(bundles, eq(bundles.id, shareLinks.bundleId))
    .where(and(eq(shareLinks.tokenHash, tokenHash(token)), live(d.clock.now()), isNull(bundles.goneAt)));
  // The token is a secret: the answer never repeats it.
  if (!row || row.visibility !== "link") throw new NotFoundError("share link", "(this one)");
  const [doc] = await d.db.select({ id: docs.id }).from(docs).where(eq(docs.bundleId, row.link.bundleId));
  return {
    link: row.link,
    bundle_id: row.link.bundleId,
    slug: row.slug,
    title: row.title,
    ...(doc ? { doc_id: doc.id } : {}),
    ...(row.link.expiresAt ? { expires_at: row.link.expiresAt.toISOString() } : {}),
  };
}

/** Enter a share link as a guest named `name`: the guest, and the cookie value that names it. */
export async function enterAsGuest(
  d: Deps,
  token: string,
  name: string,
): Promise<{
  guest: { id: string; name: string; kind: "guest"; bundle_id: string };
  cookie: string;
  expires: Date;
}> {
  const shared = await findShareLink(d, token);
  const now = d.clock.now();
  const cookie = newToken();
  const until = now.getTime() + GUEST_TTL_MS;
  const expires = new Date(Math.min(until, shared.link.expiresAt?.getTime() ?? until));
  const id = randomUUID();
  await d.db.insert(guests).values({
    id,
    shareLinkId: shared.link.id,
    bundleId: shared.bundle_id,
    name,
    tokenHash: tokenHash(cookie),
    createdAt: now,
    expiresAt: expires,
  });
  return { guest: { id, name, kind: "guest", bundle_id: shared.bundle_id }, cookie, expires };
}
