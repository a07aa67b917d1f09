/**
 * The OpenAPI 3.1 document, generated from the same zod schemas that validate
 * requests, and the page that renders it for people with the installed
 * swagger-ui-dist package: served from here, never from a CDN, so it works offline.
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Env } from "./http.js";
import { NotFoundError } from "./errors.js";
import { API_VERSION } from "./version.js";
import { applySecurity } from "./auth/openapi-security.js";
import { operationDescription } from "./openapi-descriptions.js";

/** Tags in the order the document lists them; a family's routes name one of these. */
export const TAGS: ReadonlyArray<{ name: string; description: string }> = [
  { name: "meta", description: "The server and the caller" },
  { name: "auth", description: "Signing up with an invite, signing in and out, password reset, API tokens" },
  { name: "bundles", description: "Bundles: listing, creating, importing, deleting" },
  { name: "docs", description: "Spec docs" },
  { name: "files", description: "Files of a bundle, its versions, diffs and exports" },
  { name: "adoption", description: "Markdown the scan passed over, and files marked as not a spec" },
  { name: "render", description: "Markdown to HTML" },
  { name: "runs", description: "Review runs, findings, claims, build questions, reports and fixes" },
  { name: "threads", description: "Discussion on a doc, for humans or the AI" },
  { name: "waivers", description: "Waivers, acknowledgements and verification waivers" },
  { name: "trace", description: "Links, traceability matrices and trace IDs" },
  { name: "status", description: "Review status and approval, people, the inbox, insights" },
  { name: "handoffs", description: "Build packets for a coding agent, and its reports" },
  { name: "verifications", description: "Checking a code repo or folder against a bundle's trace IDs" },
  { name: "profiles", description: "Document types: checks, templates, versions, maintainers" },
  { name: "access", description: "Who can see a bundle: visibility and share links" },
  { name: "share", description: "Share links as a guest enters them" },
  { name: "repohost", description: "Bundles read from a repo host, and publishing drafts" },
  { name: "admin", description: "Workspace administration (admins only)" },
];

const METHODS = ["get", "put", "post", "delete", "patch", "options", "head", "trace"] as const;

type Operation = { operationId?: string; tags?: string[]; description?: string };
type Document = ReturnType<OpenAPIHono<Env>["getOpenAPI31Document"]>;

/** `get` + `/docs/{docId}/files/content` -> `getDocsByDocIdFilesContent`: the id of an operation that names none. */
export function derivedOperationId(method: string, path: string): string {
  const words = path
    .split("/")
    .filter(Boolean)
    .map((seg) => {
      const param = /^\{(\w+)\}$/.exec(seg);
      return param ? `by-${param[1]}` : seg;
    })
    .join("-")
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  return method + words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join("");
}

/** The whole document: every routed operation, with tags listed, and an operationId and a description on each. */
export function buildDocument(api: OpenAPIHono<Env>): Document {
  const doc = api.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: "Spec Review Service API",
      version: API_VERSION,
      description:
        "Decides whether a specification is ready to be built from. Every operation of the contract is built. " +
        "Every error is `application/problem+json` with a stable `code` (docs/errors.md); each operation's " +
        "description names its notable codes and who may call it (docs/permissions.md).",
      contact: { name: "spec-review maintainers" },
      license: { name: "MIT", url: "https://opensource.org/license/mit" },
    },
    servers: [{ url: "/api/v1" }],
  });
  const used = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = (item as Partial<Record<string, Operation>>)[method];
      if (!op) continue;
      op.operationId ??= derivedOperationId(method, path);
      // What it does, its notable errors and who may call it (server/openapi-descriptions.ts).
      op.description ??= operationDescription(op.operationId, method, path);
      for (const t of op.tags ?? []) used.add(t);
    }
  }
  const known = TAGS.filter((t) => used.has(t.name));
  const others = [...used].filter((t) => !TAGS.some((k) => k.name === t)).sort();
  doc.tags = [...known, ...others.map((name) => ({ name }))];
  return applySecurity(doc);
}

// ---- the page for people ----

const ASSET_TYPES: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui.css.map": "application/json",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "swagger-ui-bundle.js.map": "application/json",
  "swagger-ui-standalone-preset.js": "text/javascript; charset=utf-8",
  "swagger-ui-standalone-preset.js.map": "application/json",
  "favicon-32x32.png": "image/png",
  "favicon-16x16.png": "image/png",
};

/** Starts Swagger UI on the page's `#swagger-ui` element, reading the document URL from its data attribute. */
const INIT_JS = `window.addEventListener("load", function () {
  var el = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: el.getAttribute("data-openapi-url"),
    dom_id: "#swagger-ui",
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: "StandaloneLayout",
  });
});
`;

export const DOCS_ASSETS_PATH = "/docs/assets";

export function swaggerUiFolder(): string {
  return dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
}

/**
 * Mounts GET /openapi.json and the page's assets (GET /docs/assets/{file}) on the
 * API router. Call after every route family is mounted; the document is built
 * on the first request and kept.
 */
export function registerDocs(api: OpenAPIHono<Env>): void {
  let document: Document | undefined;
  api.get("/openapi.json", (c) => c.json((document ??= buildDocument(api))));

  const folder = swaggerUiFolder();
  const cache = new Map<string, Buffer>();
  api.get(`${DOCS_ASSETS_PATH}/:file`, async (c) => {
    const file = c.req.param("file");
    const headers = { "cache-control": "public, max-age=3600" };
    if (file === "init.js")
      return c.body(INIT_JS, 200, { ...headers, "content-type": "text/javascript; charset=utf-8" });
    const type = ASSET_TYPES[file];
    if (!type) throw new NotFoundError("docs asset", file);
    let bytes = cache.get(file);
    if (!bytes) {
      bytes = await readFile(join(folder, file));
      cache.set(file, bytes);
    }
    return c.body(new Uint8Array(bytes), 200, { ...headers, "content-type": type });
  });
}

function escapeAttr(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
}

/** The page at `<prefix>/docs`: Swagger UI from this server's own assets, pointed at `<prefix>/openapi.json`. */
export function docsPage(prefix: string): string {
  const assets = escapeAttr(prefix + DOCS_ASSETS_PATH);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>spec-review API</title>
<link rel="stylesheet" href="${assets}/swagger-ui.css">
<link rel="icon" type="image/png" href="${assets}/favicon-32x32.png" sizes="32x32">
</head>
<body>
<div id="swagger-ui" data-openapi-url="${escapeAttr(prefix)}/openapi.json"></div>
<noscript>The OpenAPI document is at <a href="${escapeAttr(prefix)}/openapi.json">${escapeAttr(prefix)}/openapi.json</a>.</noscript>
<script src="${assets}/swagger-ui-bundle.js"></script>
<script src="${assets}/swagger-ui-standalone-preset.js"></script>
<script src="${assets}/init.js"></script>
</body>
</html>
`;
}
