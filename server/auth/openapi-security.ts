/**
 * The ways to authenticate, in the OpenAPI document: the session cookie, a bearer API
 * token and the guest cookie as security schemes, and on each operation the ones that
 * reach it, read from the permission table (a public operation needs none; the guest
 * cookie reaches only what a guest is granted).
 */
import { GUEST_COOKIE, SESSION_COOKIE } from "./cookies.js";
import { permissionOf, ROLE_GRANTS } from "./permissions.js";

export const SECURITY_SCHEMES = {
  session: {
    type: "apiKey",
    in: "cookie",
    name: SESSION_COOKIE,
    description:
      "a signed-in browser's session (POST /auth/sign-in sets it); writes also need a same-origin Origin",
  },
  bearer: {
    type: "http",
    scheme: "bearer",
    description:
      "an API token from POST /me/tokens; in local mode served with --allow-remote, the token printed at start",
  },
  guest: {
    type: "apiKey",
    in: "cookie",
    name: GUEST_COOKIE,
    description: "someone who entered a share link (POST /share/{token} sets it); reads that bundle only",
  },
} as const;

const METHODS = ["get", "put", "post", "delete", "patch"] as const;

type Doc = {
  paths?: Record<string, Partial<Record<string, { security?: Array<Record<string, string[]>> }>>>;
  components?: Record<string, unknown>;
};

/** Adds the schemes and each operation's `security` (in place). */
export function applySecurity<D>(doc: D): D {
  const d = doc as Doc;
  d.components = { ...d.components, securitySchemes: SECURITY_SCHEMES };
  for (const [path, item] of Object.entries(d.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const needed = permissionOf(`${method.toUpperCase()} ${path}`);
      if (needed === "public") {
        op.security = [];
        continue;
      }
      op.security = [{ session: [] }, { bearer: [] }];
      if (needed && ROLE_GRANTS.guest.includes(needed)) op.security.push({ guest: [] });
    }
  }
  return doc;
}
