/**
 * The API surface, through the app: every operation of the contract
 * (schemas/operations.tsv) is routed and documented; one not built yet answers
 * 501 problem+json `not_implemented` to a request with unknown ids and body `{}`,
 * and so does every operation the OpenAPI document marks `x-not-implemented`;
 * every error answer is problem+json with a code.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTestApp, problem, type TestApp } from "../helpers/app.js";

interface ContractOperation {
  method: string;
  path: string;
  purpose: string;
}

const TSV = resolve(import.meta.dirname, "../../schemas/operations.tsv");

const CONTRACT_OPERATIONS: ContractOperation[] = readFileSync(TSV, "utf8")
  .trim()
  .split("\n")
  .slice(1)
  .map((line) => {
    const [method = "", path = "", purpose = ""] = line.split("\t");
    return { method, path, purpose };
  });

function opKey(method: string, path: string): string {
  return `${method.toUpperCase()} ${path}`;
}

const UNKNOWN_ID = "00000000-0000-4000-8000-000000000000";

/** A request a coverage tool would send: unknown ids, JSON body `{}` unless GET or DELETE. */
function apiCoverageRequest(t: TestApp, op: ContractOperation): Promise<Response> {
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) =>
    ["token", "key", "role"].includes(name) ? `no-such-${name}` : UNKNOWN_ID,
  );
  const headers = { accept: "application/json" };
  if (op.method === "GET" || op.method === "DELETE") return t.req(op.method, path, undefined, headers);
  return t.req(op.method, path, "{}", { ...headers, "content-type": "application/json" });
}

let t: TestApp;
/** Operations the OpenAPI document marks `x-not-implemented`. */
const notBuilt = new Set<string>();
const documented = new Set<string>();

beforeAll(async () => {
  t = await makeTestApp();
  const doc = (await (await t.req("GET", "/openapi.json")).json()) as {
    paths: Record<string, Record<string, { "x-not-implemented"?: boolean }>>;
  };
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      documented.add(opKey(method, path));
      if (op["x-not-implemented"]) notBuilt.add(opKey(method, path));
    }
  }
});
afterAll(async () => {
  await t.close();
});

describe("the API surface", () => {
  it("reads all 130 operations of the contract", () => {
    expect(CONTRACT_OPERATIONS).toHaveLength(130);
    expect(new Set(CONTRACT_OPERATIONS.map((o) => opKey(o.method, o.path))).size).toBe(130);
  });

  it("documents every operation of the contract, marking any not built yet", () => {
    const all = CONTRACT_OPERATIONS.map((o) => opKey(o.method, o.path));
    expect(all.filter((k) => !documented.has(k))).toEqual([]);
    // What is still marked not built is the contract's own (none, once every operation is built).
    expect([...notBuilt].filter((k) => !all.includes(k))).toEqual([]);
  });

  it("has every operation of the contract built: none is marked x-not-implemented", () => {
    // The README and the document's info say so; a stub() added later must change both.
    expect([...notBuilt]).toEqual([]);
  });

  it.each(CONTRACT_OPERATIONS.map((o) => [opKey(o.method, o.path), o] as const))(
    "%s: routed and documented; 501 not_implemented when marked not built",
    async (key, op) => {
      const res = await apiCoverageRequest(t, op);
      const unrouted =
        res.status === 404 && res.headers.get("content-type")?.startsWith("application/problem+json")
          ? ((await res.clone().json()) as { code?: string }).code === "route_not_found"
          : false;
      expect(unrouted, `${key} is not routed`).toBe(false);
      expect(documented.has(key), `${key} answers ${res.status} but is not in openapi.json`).toBe(true);
      expect(!notBuilt.has(key) && res.status === 501, `${key} is built but answers 501`).toBe(false);
      if (notBuilt.has(key)) {
        const body = await problem(res, 501, "not_implemented");
        expect(body.detail).toBe(`${op.method} ${op.path} is in the contract but not built yet`);
        return;
      }
      const text = await res.text();
      if (res.status >= 400) {
        expect(res.headers.get("content-type"), text).toMatch(/^application\/problem\+json/);
        const code = (JSON.parse(text) as { code?: string }).code;
        expect(code, text).toMatch(/^[a-z_]+$/);
      }
    },
  );

  it("answers 501 whatever the body of a not-built operation holds", async () => {
    // Any operation still marked not built: a body that is not even JSON is not looked at.
    const op = [...notBuilt].find((o) => o.startsWith("POST "));
    if (!op) return; // every POST is built
    const path = op.slice(5).replace(/\{\w+\}/g, UNKNOWN_ID);
    await problem(await t.req("POST", path, { reason: "short" }), 501, "not_implemented");
    const garbage = await t.req("POST", path, "not json", { "content-type": "application/json" });
    await problem(garbage, 501, "not_implemented");
  });

  it("answers an unknown route with 404 route_not_found", async () => {
    const body = await problem(await t.req("GET", "/no/such/route"), 404, "route_not_found");
    expect(body.detail).toContain("/api/v1/no/such/route");
    await problem(await t.req("PATCH", "/admin/settings", {}), 404, "route_not_found");
    await problem(await t.req("GET", "/runs"), 404, "route_not_found");
  });
});

describe("the docs page", () => {
  it("renders the document from local assets only", async () => {
    const res = await t.req("GET", "/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toContain('data-openapi-url="/api/v1/openapi.json"');
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.filter((u) => /^(https?:)?\/\//.test(u))).toEqual([]);
    const assets = refs.filter((u) => u.startsWith("/api/v1/docs/assets/"));
    expect(assets).toEqual(
      expect.arrayContaining([
        "/api/v1/docs/assets/swagger-ui.css",
        "/api/v1/docs/assets/swagger-ui-bundle.js",
        "/api/v1/docs/assets/swagger-ui-standalone-preset.js",
        "/api/v1/docs/assets/init.js",
      ]),
    );
    const want: Record<string, RegExp> = { css: /^text\/css/, js: /^text\/javascript/, png: /^image\/png/ };
    for (const url of assets) {
      const asset = await t.app.request(url);
      expect(asset.status, url).toBe(200);
      expect(asset.headers.get("content-type"), url).toMatch(want[url.split(".").pop()!]!);
      expect((await asset.arrayBuffer()).byteLength, url).toBeGreaterThan(100);
    }
    const init = await (await t.app.request("/api/v1/docs/assets/init.js")).text();
    expect(init).toContain("SwaggerUIBundle(");
    expect(init).toContain("data-openapi-url");
  });

  it("serves no other file of the package", async () => {
    await problem(await t.req("GET", "/docs/assets/package.json"), 404, "not_found");
    await problem(await t.req("GET", "/docs/assets/..%2Fpackage.json"), 404, "not_found");
  });
});
