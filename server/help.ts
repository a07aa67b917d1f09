/**
 * The pages that explain checks, from the docs shipped in the npm package
 * (docs/checks/<kind>.md, docs/findings.md): `/help/checks/<kind>` and `/help/findings`.
 * Editors link a finding's check here when a service is configured (`spec-review lsp`'s
 * codeDescription). Public, like the dashboard's files: they say nothing about any doc.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { OpenAPIHono } from "@hono/zod-openapi";
import { CHECK_KINDS } from "../core/lint/checks/index.js";
import { renderMarkdown } from "../core/render/html.js";
import { packageRoot } from "../node/package.js";
import type { Env } from "./http.js";

const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'";

function page(title: string, markdown: string): string {
  // Links between the docs pages lead to their help pages; others are left as written.
  const html = renderMarkdown(markdown).replace(
    /href="(?:\.\.\/checks\/|\.\/)?([a-z0-9-]+)\.md"/g,
    (m, kind: string) => (CHECK_KINDS.some((k) => k.kind === kind) ? `href="/help/checks/${kind}"` : m),
  );
  const esc = title.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc} · spec-review</title><meta name="viewport" content="width=device-width, initial-scale=1"><style>body{font:16px/1.5 system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.25rem .5rem}code{background:#f4f4f4}</style></head><body>${html}</body></html>`;
}

export function mountHelp(app: OpenAPIHono<Env>): void {
  const cache = new Map<string, string>();
  const serve = (name: string, title: string) => {
    let html = cache.get(name);
    if (html === undefined) {
      html = page(title, readFileSync(join(packageRoot(), "docs", `${name}.md`), "utf8"));
      cache.set(name, html);
    }
    return html;
  };
  const headers = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "cache-control": "public, max-age=3600",
  };
  app.get("/help/checks/:kind", (c, next) => {
    const kind = c.req.param("kind");
    if (!CHECK_KINDS.some((k) => k.kind === kind)) return next();
    return c.html(serve(`checks/${kind}`, kind), 200, headers);
  });
  app.get("/help/findings", (c) => c.html(serve("findings", "Findings"), 200, headers));
}
