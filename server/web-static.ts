/**
 * The dashboard (web/, built by `npm run build:web` into dist/web) served at `/`: its files,
 * and index.html for every other page path, so a deep link (`/docs/<id>/trace`) opens the
 * app, which routes it. Static files are public: the data they show comes from the API
 * under /api/v1 with its own auth, so this runs before the permission check. Nothing is
 * loaded from a CDN. Without a build it answers nothing and `/` keeps redirecting to the
 * API docs.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, extname, join, normalize, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import type { Env } from "./http.js";
import { API_PREFIX } from "./version.js";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".txt": "text/plain; charset=utf-8",
};

/**
 * Scripts only from this server; inline style attributes are allowed (the rendered doc and
 * the charts use them). Rendered markdown is HTML from the API: the policy keeps any script
 * in it from running.
 */
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
  "connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'";

/**
 * Where the build is: SPEC_REVIEW_WEB_DIR, else dist/web: next to the compiled server
 * (dist/server -> dist/web), or under the checkout when the server runs from its sources
 * (server/ -> dist/web; never the sources in web/, whose index.html is not built).
 */
export function webDir(): string | undefined {
  const here = dirname(fileURLToPath(import.meta.url));
  const compiled = basename(dirname(here)) === "dist";
  const candidates = [process.env.SPEC_REVIEW_WEB_DIR, join(here, compiled ? "../web" : "../dist/web")];
  for (const dir of candidates) if (dir && existsSync(join(dir, "index.html"))) return resolve(dir);
  return undefined;
}

/** The file under `root` a URL path names, or undefined when it names none (or leaves the folder). */
function fileOf(root: string, path: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return undefined;
  }
  if (decoded.includes("\0")) return undefined;
  const file = normalize(join(root, decoded));
  if (!file.startsWith(root + sep)) return undefined;
  try {
    return statSync(file).isFile() ? file : undefined;
  } catch {
    return undefined;
  }
}

/** `dir`: the build to serve; null serves none (default: `webDir()`). */
export function webStatic(dir: string | null = webDir() ?? null): MiddlewareHandler<Env> {
  if (!dir) return (_c, next) => next();
  const root = dir;
  const cache = new Map<string, Buffer>();
  const read = (file: string) => {
    let bytes = cache.get(file);
    if (!bytes) cache.set(file, (bytes = readFileSync(file)));
    return bytes;
  };
  return async (c, next) => {
    const method = c.req.method;
    const path = c.req.path;
    // A path another route answers (the MCP endpoint, ops endpoints) is theirs; only the
    // redirect at `/` gives way to the app.
    const routed = matchedRoutes(c).some((r) => r.method !== "ALL" && r.path !== "/");
    if (
      routed ||
      (method !== "GET" && method !== "HEAD") ||
      path === API_PREFIX ||
      path.startsWith(API_PREFIX + "/") ||
      path.startsWith("/api/")
    )
      return next();
    const file = path === "/" ? undefined : fileOf(root, path);
    if (file) {
      // Vite names built assets by their content hash: they never change under one name.
      const immutable = path.startsWith("/assets/");
      return c.body(new Uint8Array(read(file)), 200, {
        "content-type": TYPES[extname(file)] ?? "application/octet-stream",
        "cache-control": immutable ? "public, max-age=31536000, immutable" : "no-cache",
        "x-content-type-options": "nosniff",
      });
    }
    // A missing asset is a 404 (the API's problem+json); any other page path is the app.
    if (extname(path) !== "") return next();
    return c.body(new Uint8Array(read(join(root, "index.html"))), 200, {
      "content-type": TYPES[".html"]!,
      "cache-control": "no-cache",
      "content-security-policy": CSP,
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
    });
  };
}
