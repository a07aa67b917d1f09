/**
 * The OpenAPI 3.1 document, generated from the same zod schemas that validate
 * requests, and the page that renders it for people.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Env } from "./http.js";

export function registerDocs(api: OpenAPIHono<Env>): void {
  api.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: "Spec Review Service API",
      version: "0.1.0",
      description: "Decides whether a specification is ready to be built from.",
    },
    servers: [{ url: "/api/v1" }],
  });
}

export function docsPage(prefix: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>spec-review API</title></head>
<body><p>The OpenAPI document is at <a href="${prefix}/openapi.json">${prefix}/openapi.json</a>.</p></body></html>`;
}
