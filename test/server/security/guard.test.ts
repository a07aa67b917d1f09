/**
 * Issue 9, "Nobody but the user runs commands": a web page (DNS rebinding, a cross-site form
 * or fetch) cannot reach the local service's write operations.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, readdirSync } from "node:fs";
import { request } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { json, makeTestApp, problem, type TestApp } from "../../helpers/app.js";
import { hostAllowed, parseHost, type HttpOptions } from "../../../server/middleware/guard.js";

const MARKER_BACKEND = {
  kind: "agent_cli",
  name: "evil",
  preset: "custom",
  command: ["sh", "-c", "id > /tmp/marker"],
};

function importForm(): FormData {
  const form = new FormData();
  form.set("file", new File(["---\ntype: prd\n---\n# Evil\n\nWritten by a web page.\n"], "evil.md"));
  form.set("name", "evil");
  return form;
}

describe("the request guard (app.request)", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it("refuses a Host that is not the address the server listens on (DNS rebinding), with 421", async () => {
    const res = await t.req("POST", "/admin/backends", MARKER_BACKEND, { host: "attacker.example" });
    await problem(res, 421, "misdirected_request");
    const read = await t.req("GET", "/admin/backends", undefined, { host: "attacker.example:8080" });
    await problem(read, 421, "misdirected_request");
    expect((await json<{ items: unknown[] }>(t.req("GET", "/admin/backends"))).items).toEqual([]);
  });

  it("answers the loopback names on any port when the port is not known", async () => {
    for (const host of ["localhost", "127.0.0.1:4000", "[::1]:4000", "LOCALHOST:8080"]) {
      const res = await t.req("GET", "/meta", undefined, { host });
      expect(res.status, host).toBe(200);
    }
  });

  it("refuses a state-changing request from a foreign Origin with 403 cross_origin, and writes nothing", async () => {
    const res = await t.req("POST", "/bundles/import", importForm(), { origin: "http://evil.example" });
    await problem(res, 403, "cross_origin");
    expect(readdirSync(t.root)).toEqual([]);
    for (const origin of ["null", "http://localhost:3000", "https://localhost"]) {
      const r = await t.req("POST", "/admin/backends", MARKER_BACKEND, { origin });
      await problem(r, 403, "cross_origin");
    }
    const del = await t.req("DELETE", "/profiles/prd", undefined, { origin: "http://evil.example" });
    await problem(del, 403, "cross_origin");
    expect((await json<{ items: unknown[] }>(t.req("GET", "/admin/backends"))).items).toEqual([]);
  });

  it("refuses Sec-Fetch-Site cross-site without an Origin, and lets same-origin and Origin-less requests pass", async () => {
    const res = await t.req("POST", "/admin/backends", MARKER_BACKEND, { "sec-fetch-site": "cross-site" });
    await problem(res, 403, "cross_origin");
    const own = await t.req(
      "POST",
      "/admin/backends",
      { ...MARKER_BACKEND, name: "own" },
      {
        origin: "http://localhost",
        "sec-fetch-site": "same-origin",
      },
    );
    expect(own.status).toBe(201);
    const script = await t.req("POST", "/admin/backends", { ...MARKER_BACKEND, name: "script" });
    expect(script.status).toBe(201);
    const imported = await t.req("POST", "/bundles/import", importForm());
    expect(imported.status).toBe(201);
    expect(existsSync(t.root)).toBe(true);
  });

  it("lets a foreign page read nothing: no CORS grant on GET or on a preflight", async () => {
    const get = await t.req("GET", "/meta", undefined, { origin: "http://evil.example" });
    expect(get.status).toBe(200);
    expect(get.headers.get("access-control-allow-origin")).toBeNull();
    const pre = await t.req("OPTIONS", "/admin/backends", undefined, {
      origin: "http://evil.example",
      "access-control-request-method": "POST",
      "access-control-request-headers": "content-type",
    });
    expect(pre.headers.get("access-control-allow-origin")).toBeNull();
    expect(pre.headers.get("access-control-allow-methods")).toBeNull();
  });
});

describe("configured CORS origins", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp({ http: { corsOrigins: ["http://dashboard.test:5173"] } });
  });
  afterAll(async () => {
    await t.close();
  });

  it("grants CORS, and writes, to a configured origin only", async () => {
    const pre = await t.req("OPTIONS", "/admin/backends", undefined, {
      origin: "http://dashboard.test:5173",
      "access-control-request-method": "POST",
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe("http://dashboard.test:5173");
    const post = await t.req("POST", "/admin/backends", MARKER_BACKEND, {
      origin: "http://dashboard.test:5173",
    });
    expect(post.status).toBe(201);
    expect(post.headers.get("access-control-allow-origin")).toBe("http://dashboard.test:5173");
    const other = await t.req("POST", "/admin/backends", MARKER_BACKEND, { origin: "http://other.test" });
    await problem(other, 403, "cross_origin");
  });
});

describe("the request guard on a real listener", () => {
  let t: TestApp;
  let server: ReturnType<typeof serve>;
  const http: HttpOptions = { allowedHosts: ["127.0.0.1"] };
  beforeAll(async () => {
    t = await makeTestApp({ http });
    server = await new Promise((resolve) => {
      const s = serve({ fetch: t.app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
    });
    http.port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await t.close();
  });

  function send(headers: Record<string, string>, body?: string): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: "127.0.0.1",
          port: http.port,
          method: body ? "POST" : "GET",
          path: body ? "/api/v1/admin/backends" : "/api/v1/meta",
          headers,
        },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (c: string) => (text += c));
          res.on("end", () => resolve({ status: res.statusCode!, text }));
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  }

  it("answers its own address and port, and refuses another host name or port", async () => {
    expect((await send({ host: `127.0.0.1:${http.port}` })).status).toBe(200);
    expect((await send({ host: `localhost:${http.port}` })).status).toBe(200);
    const rebound = await send(
      { host: `attacker.example:${http.port}`, "content-type": "application/json" },
      JSON.stringify(MARKER_BACKEND),
    );
    expect(rebound.status).toBe(421);
    expect(JSON.parse(rebound.text)).toMatchObject({ code: "misdirected_request" });
    expect((await send({ host: `127.0.0.1:${http.port! + 1}` })).status).toBe(421);
    expect((await json<{ items: unknown[] }>(t.req("GET", "/admin/backends"))).items).toEqual([]);
  });
});

describe("hostAllowed", () => {
  it("parses host names with ports and IPv6 literals", () => {
    expect(parseHost("[::1]:8080")).toEqual({ name: "::1", port: 8080 });
    expect(parseHost("Example.COM")).toEqual({ name: "example.com" });
    expect(parseHost("a b")).toBeUndefined();
  });

  it("accepts IP literals and the machine's name only when listening on every interface", () => {
    expect(hostAllowed("192.168.1.20:4000", { allowedHosts: ["0.0.0.0"], port: 4000 })).toBe(true);
    expect(hostAllowed("192.168.1.20:4000", { allowedHosts: ["127.0.0.1"], port: 4000 })).toBe(false);
    expect(hostAllowed("attacker.example:4000", { allowedHosts: ["0.0.0.0"], port: 4000 })).toBe(false);
    expect(hostAllowed("specs.internal", { allowedHosts: ["specs.internal"] })).toBe(true);
  });

  it("accepts the public URL's host behind a proxy, with its port or none, and no other port", () => {
    const opts = { allowedHosts: ["127.0.0.1"], port: 8787, publicUrl: "https://specs.example.com/team" };
    expect(hostAllowed("specs.example.com", opts)).toBe(true);
    expect(hostAllowed("SPECS.example.com:443", opts)).toBe(true);
    expect(hostAllowed("specs.example.com:8443", opts)).toBe(false);
    expect(hostAllowed("specs.example.com.attacker.example", opts)).toBe(false);
    expect(hostAllowed("specs.example.com:8000", { publicUrl: "http://specs.example.com:8000" })).toBe(true);
    expect(hostAllowed("specs.example.com", { allowedHosts: ["127.0.0.1"] })).toBe(false);
  });
});
