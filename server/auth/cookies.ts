/**
 * The cookies of hosted mode: the session cookie (a signed-in person) and the guest
 * cookie (someone who entered a share link; set by the share routes). Both HttpOnly,
 * SameSite=Lax, Path=/api/, and Secure when the service is reached over https.
 */
import type { Context } from "hono";
import { deleteCookie, setCookie } from "hono/cookie";
import { parse } from "hono/utils/cookie";

export const SESSION_COOKIE = "sr_session";
export const GUEST_COOKIE = "sr_guest";
/** Cookies that authenticate a request, and so make an unsafe request need a same-origin check (middleware/csrf.ts). */
export const CREDENTIAL_COOKIES: readonly string[] = [SESSION_COOKIE, GUEST_COOKIE];

const PATH = "/api/";

/** The value of one cookie of a request, or undefined. */
export function cookieOf(req: Request, name: string): string | undefined {
  const header = req.headers.get("cookie");
  if (!header || !header.includes(name)) return undefined;
  const value = parse(header, name)[name];
  return value ? value : undefined;
}

/** Whether the request carries a session or guest cookie. */
export function hasCredentialCookie(req: Request): boolean {
  return CREDENTIAL_COOKIES.some((name) => cookieOf(req, name) !== undefined);
}

/** Secure when the request came over https, or the service's public address is https (behind a proxy). */
function secure(c: Context, publicUrl: string | undefined): boolean {
  return new URL(c.req.url).protocol === "https:" || (publicUrl ?? "").startsWith("https:");
}

export function setCredentialCookie(
  c: Context,
  name: string,
  value: string,
  expiresAt: Date,
  publicUrl: string | undefined,
): void {
  setCookie(c, name, value, {
    httpOnly: true,
    sameSite: "Lax",
    secure: secure(c, publicUrl),
    path: PATH,
    expires: expiresAt,
  });
}

export function clearCredentialCookie(c: Context, name: string, publicUrl: string | undefined): void {
  deleteCookie(c, name, { httpOnly: true, sameSite: "Lax", secure: secure(c, publicUrl), path: PATH });
}
