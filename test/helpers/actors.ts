/**
 * Callers for hosted-mode tests: an Authenticator that reads the test-only header
 * `x-test-actor` (a key of ACTORS) and otherwise asks the real guest authenticator (the
 * guest cookie). Sign-in itself is tested with accounts; these tests inject who calls.
 */
import type { Actor, Authenticator } from "../../server/auth/actor.js";
import { guestAuthenticator } from "../../server/auth/guests.js";
import type { Services } from "../../server/services.js";

export const ACTORS = {
  admin: { id: "u-admin", name: "Ada Admin", kind: "user", role: "admin" },
  author: { id: "u-author", name: "Aki Author", kind: "user", role: "member" },
  member: { id: "u-member", name: "Mo Member", kind: "user", role: "member" },
  maintainer: { id: "u-maint", name: "Mai Maintainer", kind: "user", role: "member" },
  viewer: { id: "u-viewer", name: "Vi Viewer", kind: "user", role: "viewer" },
} as const satisfies Record<string, Actor>;

export type ActorName = keyof typeof ACTORS;
export const ACTOR_HEADER = "x-test-actor";

/** Headers that make a request come from `who`. */
export const as = (who: ActorName): Record<string, string> => ({ [ACTOR_HEADER]: who });

/** The Authenticator; call `bind(services)` once the app exists so guest cookies are read. */
export function testAuthenticator(): Authenticator & { bind(services: Services): void } {
  let guests: Authenticator | undefined;
  return {
    bind(services) {
      guests = guestAuthenticator(services);
    },
    async actorOf(req) {
      const who = req.headers.get(ACTOR_HEADER);
      if (who && Object.hasOwn(ACTORS, who)) return { ...ACTORS[who as ActorName] };
      return guests?.actorOf(req);
    },
  };
}

/** The `name=value` pair of a Set-Cookie header, to send back as a Cookie header. */
/** Headers of a browser request carrying `cookie` from the service's own pages (it sends Sec-Fetch-Site). */
export function fromBrowser(cookie: string): Record<string, string> {
  return { cookie, "sec-fetch-site": "same-origin" };
}

export function cookieOf(res: Response): string {
  const set = res.headers.get("set-cookie");
  if (!set) throw new Error("no Set-Cookie header");
  return set.split(";")[0]!;
}
