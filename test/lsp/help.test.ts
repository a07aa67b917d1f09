/**
 * The check pages the language server links when a service is configured
 * (`<service>/help/checks/<kind>`): rendered from the docs the package ships.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { CHECK_KINDS } from "../../core/lint/checks/index.js";
import { mountHelp } from "../../server/help.js";
import type { Env } from "../../server/http.js";

const app = new OpenAPIHono<Env>();
mountHelp(app);

describe("/help pages", () => {
  it.each(CHECK_KINDS.map((k) => k.kind))("/help/checks/%s renders the check's page", async (kind) => {
    const res = await app.request(`/help/checks/${kind}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(await res.text()).toMatch(new RegExp(`<h1[^>]*>${kind}</h1>`));
  });

  it("links other check pages to their help pages, and serves the findings page", async () => {
    const html = await (await app.request("/help/checks/vague-quantity")).text();
    expect(html).toMatch(/href="\/help\/checks\/measurable"/);
    expect((await app.request("/help/findings")).status).toBe(200);
    expect((await app.request("/help/checks/no-such-kind")).status).toBe(404);
  });
});
