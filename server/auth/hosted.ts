/**
 * Who a request comes from in hosted mode: a chain of authenticators, the first that
 * knows the caller wins. A bearer token (scripts, the Action, coding agents), then the
 * session cookie (a browser), then the guest cookie (the share links' authenticator,
 * handed in by whoever builds the graph).
 */
import type { Actor, Authenticator } from "./actor.js";
import { cookieOf, SESSION_COOKIE } from "./cookies.js";
import type { Sessions } from "./sessions.js";

/** The token of `Authorization: Bearer <token>`, or undefined. */
export function bearerToken(req: Request): string | undefined {
  const header = req.headers.get("authorization");
  const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return m?.[1];
}

/** Asks each authenticator in turn; the first actor found is the caller. */
export function chainAuthenticators(...chain: Authenticator[]): Authenticator {
  return {
    async actorOf(req: Request): Promise<Actor | undefined> {
      for (const auth of chain) {
        const actor = await auth.actorOf(req);
        if (actor) return actor;
      }
      return undefined;
    },
  };
}

/** `Authorization: Bearer`: an unknown, revoked or expired token is refused (401 `invalid_token`), never ignored. */
export function bearerAuthenticator(sessions: Sessions): Authenticator {
  return {
    actorOf: (req) => {
      const token = bearerToken(req);
      return token === undefined ? Promise.resolve(undefined) : sessions.actorOfToken(token);
    },
  };
}

/**
 * The session cookie. A tampered, expired or ended session is no caller at all: the
 * request goes on anonymous (401 `unauthenticated` where a caller is needed), so a
 * browser holding a stale cookie can still reach the sign-in route.
 */
export function sessionAuthenticator(sessions: Sessions): Authenticator {
  return {
    actorOf: (req) => {
      const token = cookieOf(req, SESSION_COOKIE);
      return token === undefined ? Promise.resolve(undefined) : sessions.actorOfSession(token);
    },
  };
}

/** Hosted mode: bearer token, then session cookie, then `guest` (the share links' guest cookie) when given. */
export function hostedAuthenticator(sessions: Sessions, guest?: Authenticator): Authenticator {
  const chain = [bearerAuthenticator(sessions), sessionAuthenticator(sessions)];
  return chainAuthenticators(...(guest ? [...chain, guest] : chain));
}
