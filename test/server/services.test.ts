/**
 * The service graph (server/services.ts): it closes without leaving anything running, a
 * second graph opens the same data after it, each graph has its own run bus, and routes
 * take the caller from the context (the actor middleware), never a constant.
 */
import { afterEach, describe, expect, it } from "vitest";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OpenAPIHono } from "@hono/zod-openapi";
import { createApp } from "../../server/app.js";
import { createServices } from "../../server/services.js";
import { MCP_PATH, mountMcp } from "../../server/mcp-server/http.js";
import { routeFamilies } from "../../server/routes/index.js";
import { registerDocs } from "../../server/openapi.js";
import { decide, operationOf, PERMISSIONS, ROLE_GRANTS } from "../../server/auth/permissions.js";
import { LOCAL_ADMIN, type Actor } from "../../server/auth/actor.js";
import type { Env } from "../../server/http.js";
import { API_PREFIX } from "../../server/version.js";
import { DB_KINDS, json, makeTestApp, problem, type TestApp } from "../helpers/app.js";

const ADR = `---
type: adr
title: Use PostgreSQL
---

# Use PostgreSQL

## Context and Problem Statement

We need a database that several instances can share. 🐘

## Decision Outcome

Chosen option: PostgreSQL, because the team runs it already.
`;

/** How many of each kind of handle (timers, sockets, watchers) the process holds. */
function handles(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of process.getActiveResourcesInfo()) counts.set(r, (counts.get(r) ?? 0) + 1);
  return counts;
}

/** Handles held beyond `before`, with counts, once closed handles had a moment to go (libuv closes them on a later tick). */
async function leaked(before: Map<string, number>): Promise<Record<string, number>> {
  let out: Record<string, number> = {};
  for (let i = 0; i < 20; i++) {
    out = {};
    for (const [k, n] of handles()) if (n > (before.get(k) ?? 0)) out[k] = n - (before.get(k) ?? 0);
    if (Object.keys(out).length === 0) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return out;
}

interface Bundles {
  items: Array<{ id: string; slug: string; docs: Array<{ id: string; current_version: { id: string } }> }>;
}

describe("the service graph", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it("closes leaving no timer, watcher or socket behind, and a second graph opens the same data dir after it", async () => {
    const folder = mkdtempSync(join(tmpdir(), "sr-services-"));
    const dataDir = mkdtempSync(join(tmpdir(), "sr-services-data-"));
    dirs.push(folder, dataDir);
    mkdirSync(join(folder, "decisions", "0001-postgres"), { recursive: true });
    writeFileSync(join(folder, "decisions", "0001-postgres", "README.md"), ADR.replace(/\n/g, "\r\n"));
    const config = {
      mode: "local" as const,
      folder,
      database: join(dataDir, "db"),
      secretKey: randomBytes(32),
      watch: true,
      catchUp: true,
      worker: { pollMs: 20, heartbeatMs: 50, leaseMs: 200 },
    };

    const before = handles();
    const first = await createServices(config);
    const app = createApp(first);
    const list = await json<Bundles>(app.request(`${API_PREFIX}/bundles`));
    expect(list.items.map((b) => b.slug)).toEqual(["decisions/0001-postgres"]);
    const doc = list.items[0]!.docs[0]!;
    const saved = await app.request(
      `${API_PREFIX}/docs/${doc.id}/files/content?path=README.md&base_version=${doc.current_version.id}`,
      { method: "PUT", body: ADR.replace("several instances", "three instances") },
    );
    expect(saved.status).toBe(200);
    expect(first.worker).toBeDefined();
    await first.close();
    await first.close(); // a second close is harmless
    expect(await leaked(before)).toEqual({});

    const second = await createServices(config);
    try {
      const again = await json<Bundles>(createApp(second).request(`${API_PREFIX}/bundles`));
      expect(again.items.map((b) => b.slug)).toEqual(["decisions/0001-postgres"]);
      const versions = await json<{ items: Array<{ number: number; created_by: string }> }>(
        createApp(second).request(`${API_PREFIX}/docs/${doc.id}/versions`),
      );
      expect(versions.items.map((v) => v.number)).toEqual([2, 1]);
      expect(versions.items[0]!.created_by).toBe(LOCAL_ADMIN.id);
    } finally {
      await second.close();
    }
    expect(await leaked(before)).toEqual({});
  }, 180_000);

  it("closes what it opened when building fails part-way", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "sr-services-data-"));
    dirs.push(dataDir);
    const config = {
      mode: "local" as const,
      folder: join(dataDir, "no-such-folder"),
      database: join(dataDir, "db"),
      secretKey: randomBytes(32),
    };
    await expect(createServices(config)).rejects.toThrow(/no-such-folder/);
    // The database was closed again: a new graph opens the same data dir.
    mkdirSync(config.folder);
    const services = await createServices(config);
    await services.close();
  }, 120_000);

  it("refuses hosted mode without SPEC_REVIEW_SECRET_KEY: no key file is made for many people's secrets", async () => {
    const saved = process.env.SPEC_REVIEW_SECRET_KEY;
    delete process.env.SPEC_REVIEW_SECRET_KEY;
    try {
      await expect(
        createServices({ mode: "hosted", database: "memory://", dataDir: tmpdir() }),
      ).rejects.toThrow(/SPEC_REVIEW_SECRET_KEY is not set/);
    } finally {
      if (saved !== undefined) process.env.SPEC_REVIEW_SECRET_KEY = saved;
    }
  });
});

describe.each(DB_KINDS)("per graph, on %s", (kind) => {
  const apps: TestApp[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    for (const t of apps.splice(0)) await t.close();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it("gives each graph its own run bus: two apps in one process do not hear each other", async () => {
    const a = await makeTestApp({ kind });
    apps.push(a);
    const b = await makeTestApp({ kind });
    apps.push(b);
    expect(a.bus).not.toBe(b.bus);
    expect(a.review.bus).toBe(a.bus);
    const heard = { a: [] as number[], b: [] as number[], queuedA: 0, queuedB: 0 };
    const offs = [
      a.bus.onRun("r1", (seq) => heard.a.push(seq)),
      b.bus.onRun("r1", (seq) => heard.b.push(seq)),
      a.bus.onQueued(() => heard.queuedA++),
      b.bus.onQueued(() => heard.queuedB++),
    ];
    a.bus.published("r1", 1);
    a.bus.queued();
    b.bus.published("r1", 7);
    for (const off of offs) off();
    expect(heard).toEqual({ a: [1], b: [7], queuedA: 1, queuedB: 0 });
  });

  it("records the caller from the context as the author of a version, a profile save and a dismissal", async () => {
    const ada: Actor = { id: "ada", name: "Ada Lovelace", kind: "user", role: "admin" };
    const fixture = mkdtempSync(join(tmpdir(), "sr-actor-"));
    dirs.push(fixture);
    mkdirSync(join(fixture, "adr-1"));
    writeFileSync(join(fixture, "adr-1", "README.md"), ADR);
    writeFileSync(join(fixture, "notes.md"), "# Meeting notes\n\nNot a spec.\n");
    const t = await makeTestApp({ kind, actor: ada, fixture });
    apps.push(t);
    const me = await json<{ signed_in: boolean; user: Actor }>(t.req("GET", "/me"));
    expect(me).toEqual({ signed_in: true, user: ada, mode: "local" });

    const list = await json<Bundles>(t.req("GET", "/bundles"));
    const doc = list.items[0]!.docs[0]!;
    const put = await t.req(
      "PUT",
      `/docs/${doc.id}/files/content?path=README.md&base_version=${doc.current_version.id}`,
      ADR + "\nMore context.\n",
    );
    expect(put.status).toBe(200);
    const versions = await json<{ items: Array<{ number: number; created_by: string }> }>(
      t.req("GET", `/docs/${doc.id}/versions`),
    );
    expect(versions.items.map((v) => [v.number, v.created_by])).toEqual([
      [2, "ada"],
      [1, "local"],
    ]);

    const profile = await json<{ current_version: { number: number }; yaml: string }>(
      t.req("GET", "/profiles/adr"),
    );
    const saved = await t.req("PUT", "/profiles/adr", {
      yaml: profile.yaml,
      template: "# {title}\n",
      message: "a shorter template",
      base_version: profile.current_version.number,
    });
    expect(saved.status).toBe(200);
    const detail = await json<{ versions: Array<{ number: number; created_by: string }> }>(
      t.req("GET", "/profiles/adr"),
    );
    expect(detail.versions.find((v) => v.number === profile.current_version.number + 1)?.created_by).toBe(
      "ada",
    );

    const dismissed = await json<{ created_by: string }>(
      t.req("POST", "/dismissed-docs", { path: "notes.md" }),
    );
    expect(dismissed.created_by).toBe("ada");
  });

  it("decides every request in the actor middleware, before the route: the seam hosted mode will use", async () => {
    const fixture = mkdtempSync(join(tmpdir(), "sr-decide-"));
    dirs.push(fixture);
    mkdirSync(join(fixture, "adr-1"));
    writeFileSync(join(fixture, "adr-1", "README.md"), ADR);
    const t = await makeTestApp({ kind, fixture });
    apps.push(t);
    const list = await json<Bundles>(t.req("GET", "/bundles"));
    const doc = list.items[0]!.docs[0]!;
    // The same graph behind an app that says it is hosted, with a caller chosen per request.
    let who: Actor | undefined;
    const hosted = createApp({
      ...t.services,
      mode: "hosted",
      auth: { actorOf: () => Promise.resolve(who) },
    });
    const call = (method: string, path: string, body?: string) =>
      Promise.resolve(hosted.request(API_PREFIX + path, { method, ...(body !== undefined ? { body } : {}) }));
    const write = `/docs/${doc.id}/files/content?path=notes.md&base_version=${doc.current_version.id}`;

    who = undefined;
    expect((await call("GET", "/meta")).status).toBe(200);
    expect(await json(call("GET", "/me"))).toEqual({ signed_in: false, mode: "hosted" });
    await problem(await call("GET", "/bundles"), 401, "unauthenticated");
    who = { id: "vera", name: "Vera", kind: "user", role: "viewer" };
    expect((await call("GET", `/docs/${doc.id}`)).status).toBe(200);
    await problem(await call("PUT", write, "# Notes\n"), 403, "forbidden");
    await problem(await call("PUT", "/admin/budget", "{}"), 403, "forbidden");
    // Refused before the route ran: no version was written.
    const versions = await json<{ items: unknown[] }>(t.req("GET", `/docs/${doc.id}/versions`));
    expect(versions.items).toHaveLength(1);
    who = { id: "mia", name: "Mia", kind: "user", role: "member" };
    const saved = await call("PUT", write, "# Notes\n");
    expect(saved.status).toBe(200);
    const after = await json<{ items: Array<{ created_by: string }> }>(
      t.req("GET", `/docs/${doc.id}/versions`),
    );
    expect(after.items[0]!.created_by).toBe("mia");
  });

  it("answers GET /me with the local admin when no other caller is set", async () => {
    const t = await makeTestApp({ kind });
    apps.push(t);
    expect(await json(t.req("GET", "/me"))).toEqual({
      signed_in: true,
      user: { id: "admin", name: "Local admin", kind: "user", role: "admin" },
      mode: "local",
    });
  });
});

describe("the permission table", () => {
  /** Every routed operation (the OpenAPI document), and what operationOf names it at request time. */
  async function routedOperations(): Promise<Array<{ key: string; seen: string | undefined }>> {
    let seen: string | undefined;
    const app = new OpenAPIHono<Env>();
    app.use("*", async (c, next) => {
      seen = operationOf(c);
      await next();
    });
    const api = new OpenAPIHono<Env>();
    for (const family of routeFamilies) api.route("/", family());
    registerDocs(api);
    app.route(API_PREFIX, api);
    mountMcp(app);
    app.get(API_PREFIX + "/docs", (c) => c.text("page"));
    app.onError((_err, c) => c.text("", 500)); // no services here: handlers fail, the operation is known first
    const doc = (await (await app.request(`${API_PREFIX}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const out: Array<{ key: string; seen: string | undefined }> = [];
    const paths = [
      ...Object.entries(doc.paths).flatMap(([path, item]) =>
        Object.keys(item).map((m) => [m, path] as const),
      ),
      ["get", "/openapi.json"] as const,
      ["get", "/docs"] as const,
      ["get", "/docs/assets/{file}"] as const,
    ];
    for (const [method, path] of paths) {
      seen = undefined;
      const concrete = path.replace(/\{(\w+)\}/g, (_, name: string) => `some-${name}`);
      await app.request(API_PREFIX + concrete, { method: method.toUpperCase() });
      out.push({ key: `${method.toUpperCase()} ${path}`, seen });
    }
    // The MCP server for coding agents sits beside the API, outside its prefix.
    for (const method of ["POST", "GET", "DELETE"]) {
      seen = undefined;
      await app.request(MCP_PATH, { method });
      out.push({ key: `${method} ${MCP_PATH}`, seen });
    }
    return out;
  }

  it("names every routed operation once, and only those, as requests are routed", async () => {
    const ops = await routedOperations();
    const keys = ops.map((o) => o.key);
    const missing = keys.filter((k) => !Object.hasOwn(PERMISSIONS, k));
    expect(missing, `add these to PERMISSIONS in server/auth/permissions.ts: ${missing.join(", ")}`).toEqual(
      [],
    );
    expect(Object.keys(PERMISSIONS).filter((k) => !keys.includes(k))).toEqual([]);
    for (const o of ops) expect(o.seen, o.key).toBe(o.key);
  });

  it("allows everything in local mode; in hosted mode decides by role, 401 before 403, unknown refused", () => {
    const as = (role: Actor["role"]): Actor => ({ id: role, name: role, kind: "user", role });
    for (const operation of [...Object.keys(PERMISSIONS), "GET /not-an-operation", undefined])
      expect(decide({ mode: "local", actor: LOCAL_ADMIN, operation })).toEqual({ allowed: true });
    const hosted = (actor: Actor | undefined, operation: string) =>
      decide({ mode: "hosted", actor, operation });
    expect(hosted(undefined, "GET /meta")).toEqual({ allowed: true });
    expect(hosted(undefined, "POST /share/{token}")).toEqual({ allowed: true });
    expect(hosted(undefined, "GET /bundles")).toEqual({ allowed: false, code: "unauthenticated" });
    expect(hosted(as("viewer"), "GET /bundles")).toEqual({ allowed: true });
    expect(hosted(as("viewer"), "PUT /docs/{docId}/files/content")).toEqual({
      allowed: false,
      code: "forbidden",
    });
    expect(hosted(as("guest"), "POST /bundles")).toEqual({ allowed: false, code: "forbidden" });
    expect(hosted(as("member"), "POST /docs/{docId}/runs")).toEqual({ allowed: true });
    expect(hosted(as("member"), "PUT /admin/settings")).toEqual({ allowed: false, code: "forbidden" });
    expect(hosted(as("admin"), "PUT /admin/settings")).toEqual({ allowed: true });
    expect(hosted(as("admin"), "GET /not-an-operation")).toEqual({ allowed: false, code: "forbidden" });
    // Every role may do what the role below it may; a guest's grants (on its bundle only) are a member's.
    const order = ["anonymous", "viewer", "member", "admin"] as const;
    for (let i = 1; i < order.length; i++)
      for (const p of ROLE_GRANTS[order[i - 1]!]) expect(ROLE_GRANTS[order[i]!]).toContain(p);
    for (const p of ROLE_GRANTS.guest) expect(ROLE_GRANTS.member).toContain(p);
  });
});
