/**
 * The dashboard's files served at `/` (server/web-static.ts): the app for `/` and every deep
 * link, built assets with long caching, a strict CSP on the page, no file outside the build,
 * the API untouched under /api/v1 (its 404s stay problem+json), and in hosted mode the
 * files need no sign-in while the API still does.
 */
import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Hono } from "hono";
import { makeTestApp, type TestApp } from "../helpers/app.js";
import { webDir, webStatic } from "../../server/web-static.js";
import type { Env } from "../../server/http.js";

const INDEX =
  '<!doctype html><html lang="en"><head><script type="module" src="/assets/app-abc123.js"></script></head><body><div id="app"></div></body></html>';

describe("the dashboard's static files", () => {
  let dir: string;
  let t: TestApp;
  let hosted: TestApp;
  const previous = process.env.SPEC_REVIEW_WEB_DIR;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "sr-web-static-"));
    mkdirSync(join(dir, "assets"));
    writeFileSync(join(dir, "index.html"), INDEX);
    writeFileSync(join(dir, "assets", "app-abc123.js"), "console.log('app')");
    writeFileSync(join(dir, "..", "secret-next-to-build.txt"), "not served");
    process.env.SPEC_REVIEW_WEB_DIR = dir;
    t = await makeTestApp();
    hosted = await makeTestApp({ mode: "hosted" });
  });
  afterAll(async () => {
    await t.close();
    await hosted.close();
    if (previous === undefined) delete process.env.SPEC_REVIEW_WEB_DIR;
    else process.env.SPEC_REVIEW_WEB_DIR = previous;
  });

  const get = (app: TestApp, path: string) => Promise.resolve(app.app.request(path));

  it("answers the app at / and at any deep link, with a CSP that allows only its own scripts", async () => {
    for (const path of [
      "/",
      "/docs/5c0ffee0-0000-4000-8000-000000000000/trace",
      "/share/abc",
      "/admin?x=1",
    ]) {
      const res = await get(t, path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(res.headers.get("cache-control")).toBe("no-cache");
      expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
      expect(await res.text()).toBe(INDEX);
    }
  });

  it("serves built assets with immutable caching, and a missing asset is a problem+json 404", async () => {
    const res = await get(t, "/assets/app-abc123.js");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(res.headers.get("cache-control")).toContain("immutable");
    expect(await res.text()).toBe("console.log('app')");
    const missing = await get(t, "/assets/gone-000.js");
    expect(missing.status).toBe(404);
    expect(missing.headers.get("content-type")).toBe("application/problem+json");
    expect(((await missing.json()) as { code: string }).code).toBe("route_not_found");
  });

  it("never serves a file outside the build folder", async () => {
    for (const path of [
      "/../secret-next-to-build.txt",
      "/%2e%2e/secret-next-to-build.txt",
      "/assets/%2e%2e%2f%2e%2e%2fsecret-next-to-build.txt",
      "/%00.js",
    ]) {
      const res = await get(t, path);
      expect(await res.text(), path).not.toContain("not served");
    }
  });

  it("leaves the API alone: its routes, its 404s and its docs page", async () => {
    const meta = await get(t, "/api/v1/meta");
    expect(meta.status).toBe(200);
    expect(((await meta.json()) as { mode: string }).mode).toBe("local");
    const nope = await get(t, "/api/v1/no-such-route");
    expect(nope.status).toBe(404);
    expect(nope.headers.get("content-type")).toBe("application/problem+json");
    const docs = await get(t, "/api/v1/docs");
    expect(await docs.text()).toContain("swagger-ui");
  });

  it("in hosted mode serves the page to someone not signed in, while the API still asks for sign-in", async () => {
    const page = await get(hosted, "/docs/5c0ffee0-0000-4000-8000-000000000000");
    expect(page.status).toBe(200);
    expect(await page.text()).toBe(INDEX);
    const bundles = await get(hosted, "/api/v1/bundles");
    expect(bundles.status).toBe(401);
    expect(((await bundles.json()) as { code: string }).code).toBe("unauthenticated");
  });

  it("without a build answers nothing, so / keeps its redirect to the API docs", async () => {
    const app = new Hono<Env>();
    app.use("*", webStatic(null));
    app.get("/", (c) => c.redirect("/api/v1/docs"));
    const res = await app.request("/");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/api/v1/docs");
  });

  it("finds the build in dist/web, never the unbuilt sources in web/", () => {
    delete process.env.SPEC_REVIEW_WEB_DIR;
    try {
      const found = webDir();
      expect(found === undefined || found.endsWith(join("dist", "web"))).toBe(true);
    } finally {
      process.env.SPEC_REVIEW_WEB_DIR = dir;
    }
  });

  it("leaves a path another route answers at the root to that route (the MCP endpoint, ops endpoints)", async () => {
    const app = new Hono<Env>();
    app.use("*", webStatic(dir));
    app.get("/healthz", (c) => c.text("ok"));
    app.get("/", (c) => c.redirect("/api/v1/docs"));
    expect(await (await app.request("/healthz")).text()).toBe("ok");
    expect(await (await app.request("/")).text()).toBe(INDEX);
    expect(await (await app.request("/docs/x")).text()).toBe(INDEX);
    const mcp = await t.app.request("/mcp");
    expect(await mcp.text()).not.toBe(INDEX);
  });

  it("answers only GET and HEAD: a POST to a page path is not the app", async () => {
    const res = await t.app.request("/docs/x", { method: "POST" });
    expect(res.status).toBe(404);
    const head = await t.app.request("/", { method: "HEAD" });
    expect(head.status).toBe(200);
  });
});
