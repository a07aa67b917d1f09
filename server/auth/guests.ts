/**
 * Guests: people without an account who entered a bundle's share link with a display name
 * (`POST /share/{token}`). The guest cookie names one; `guestAuthenticator` turns it back
 * into an Actor (kind and role `guest`, `guestBundleId` the bundle it entered), and only
 * while the link is active: a revoked or expired link, or an expired or unknown cookie,
 * makes the caller anonymous. The hosted Authenticator chain asks it after sessions and
 * API tokens. A guest reads that one bundle and may open threads for humans on it
 * (docs/permissions.md).
 */
import { and, eq, gt, isNull, or } from "drizzle-orm";
import { parse } from "hono/utils/cookie";
import type { Db } from "../db/index.js";
import { bundles, guests, shareLinks } from "../db/schema.js";
import type { Clock } from "../deps.js";
import type { Actor, Authenticator } from "./actor.js";
import { tokenHash } from "./share-links.js";

/** The guest cookie (HttpOnly, SameSite=Lax; Secure when the public URL is https). */
export const GUEST_COOKIE = "sr_guest";

/** The cookie's value has this shape (32 random bytes, base64url); anything else is ignored. */
const COOKIE_VALUE = /^[A-Za-z0-9_-]{43}$/;

export function guestAuthenticator(deps: { db: Db; clock: Clock }): Authenticator {
  return {
    async actorOf(req: Request): Promise<Actor | undefined> {
      const header = req.headers.get("cookie");
      if (!header?.includes(GUEST_COOKIE)) return undefined;
      const value = parse(header, GUEST_COOKIE)[GUEST_COOKIE];
      if (!value || !COOKIE_VALUE.test(value)) return undefined;
      const now = deps.clock.now();
      const [row] = await deps.db
        .select({ id: guests.id, name: guests.name, bundleId: guests.bundleId })
        .from(guests)
        .innerJoin(shareLinks, eq(shareLinks.id, guests.shareLinkId))
        .innerJoin(bundles, eq(bundles.id, guests.bundleId))
        .where(
          and(
            eq(guests.tokenHash, tokenHash(value)),
            gt(guests.expiresAt, now),
            isNull(shareLinks.revokedAt),
            or(isNull(shareLinks.expiresAt), gt(shareLinks.expiresAt, now)),
            isNull(bundles.goneAt),
          ),
        );
      if (!row) return undefined;
      return { id: row.id, name: row.name, kind: "guest", role: "guest", guestBundleId: row.bundleId };
    },
  };
}
