/**
 * The public URL: the address people reach the service at (`--public-url`, PUBLIC_URL),
 * behind whatever proxy. Links the service prints or sends are built from it, and the
 * Host and Origin checks (middleware/guard.ts) accept it.
 */
import { isIP } from "node:net";

/** `value` as a public URL: http or https, no credentials, query or fragment; no trailing slash. */
/** Links the service makes start here when no public URL is configured (the default address). */
export const DEFAULT_PUBLIC_URL = "http://127.0.0.1:8787";

export function parsePublicUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new Error(`the public URL ${JSON.stringify(value)} is not a URL (e.g. https://specs.example.com)`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new Error(`the public URL must start with https:// or http://, got ${url.protocol}`);
  if (url.username || url.password) throw new Error("the public URL must not carry a user name or password");
  if (url.search || url.hash) throw new Error("the public URL must not carry a query or a fragment");
  return (url.origin + url.pathname).replace(/\/+$/, "");
}

/** True for an address only this machine reaches: `localhost`, 127.0.0.0/8, `::1`. */
export function isLoopback(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1");
  if (h === "localhost" || h.endsWith(".localhost") || h === "::1") return true;
  return isIP(h) === 4 && h.startsWith("127.");
}

/** `path` (from the root, e.g. `/invite/abc`) under the public URL. */
export function publicLink(publicUrl: string, path: string): string {
  return publicUrl + (path.startsWith("/") ? path : `/${path}`);
}
