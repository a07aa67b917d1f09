/**
 * GET /api/v1/openapi.json against the contract's operation list
 * (schemas/operations.tsv): every documented operation carries the
 * contract's summary, a tag, an operationId, its path parameters and the
 * problem+json error answers; nothing outside the list is documented.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTestApp, type TestApp } from "../helpers/app.js";

/** The contract's operations (api-surface.test.ts checks that each one is routed and documented). */
const TSV = resolve(import.meta.dirname, "../../schemas/operations.tsv");
const CONTRACT_OPERATIONS = readFileSync(TSV, "utf8")
  .trim()
  .split("\n")
  .slice(1)
  .map((line) => {
    const [method = "", path = "", purpose = ""] = line.split("\t");
    return { method, path, purpose };
  });

const opKey = (method: string, path: string) => `${method.toUpperCase()} ${path}`;

type Op = {
  operationId?: string;
  summary?: string;
  tags?: string[];
  parameters?: Array<{
    name: string;
    in: string;
    required?: boolean;
    schema?: { type?: string; format?: string };
  }>;
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>;
  "x-not-implemented"?: boolean;
};
type Doc = {
  openapi: string;
  info: { version: string; title: string };
  tags?: Array<{ name: string }>;
  paths: Record<string, Record<string, Op>>;
  components: { schemas: Record<string, JsonSchema> };
};
type JsonSchema = {
  required: string[];
  properties: Record<string, { enum?: unknown[] } & Record<string, unknown>>;
};

function schema(name: string): JsonSchema {
  const found = doc.components.schemas[name];
  if (!found) throw new Error(`components.schemas has no ${name}`);
  return found;
}

let t: TestApp;
let doc: Doc;
const documented = new Map<string, Op>();

beforeAll(async () => {
  t = await makeTestApp();
  const res = await t.req("GET", "/openapi.json");
  expect(res.status).toBe(200);
  doc = (await res.json()) as Doc;
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) documented.set(opKey(method, path), op);
  }
});
afterAll(async () => {
  await t.close();
});

describe("the OpenAPI document", () => {
  it("is OpenAPI 3.1.0 of API version 0.1.0", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("0.1.0");
  });

  it("documents only operations of the contract, and the account routes it leaves to us (docs/accounts.md)", () => {
    const contract = new Set(CONTRACT_OPERATIONS.map((o) => opKey(o.method, o.path)));
    const accounts = [
      "POST /auth/signup",
      "POST /auth/sign-in",
      "POST /auth/sign-out",
      "POST /auth/reset",
      "POST /me/tokens",
      "GET /me/tokens",
      "DELETE /me/tokens/{tokenId}",
      "GET /auth/github",
      "GET /auth/github/callback",
      "PUT /admin/users/{userId}/github-login",
      "POST /profiles/infer",
    ];
    expect([...documented.keys()].filter((k) => !contract.has(k))).toEqual(accounts);
  });

  it("gives each operation the contract's purpose as its summary", () => {
    const wrong = CONTRACT_OPERATIONS.filter((o) => documented.has(opKey(o.method, o.path)))
      .filter((o) => documented.get(opKey(o.method, o.path))!.summary !== o.purpose)
      .map((o) => opKey(o.method, o.path));
    expect(wrong).toEqual([]);
  });

  it("has every $ref resolve to a component", () => {
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map(
      (m) => m[1]!,
    );
    expect(refs.length).toBeGreaterThan(0);
    expect([...new Set(refs)].filter((name) => !(name in doc.components.schemas))).toEqual([]);
  });

  it("gives each operation a unique operationId and a listed tag", () => {
    const ids = [...documented.values()].map((op) => op.operationId);
    expect(ids.every((id) => typeof id === "string" && /^[a-z][A-Za-z0-9]*$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const listed = new Set((doc.tags ?? []).map((tag) => tag.name));
    const untagged = [...documented].filter(
      ([, op]) => !op.tags?.length || !op.tags.every((tag) => listed.has(tag)),
    );
    expect(untagged.map(([k]) => k)).toEqual([]);
  });

  it("declares every path parameter: ids as uuid, token, key and role as strings", () => {
    const bad: string[] = [];
    for (const [key, op] of documented) {
      const path = key.split(" ")[1]!;
      for (const [, name] of path.matchAll(/\{(\w+)\}/g)) {
        const p = op.parameters?.find((x) => x.in === "path" && x.name === name);
        const want = ["token", "key", "role"].includes(name!) ? undefined : "uuid";
        if (!p || p.required !== true || p.schema?.type !== "string" || p.schema.format !== want)
          bad.push(`${key} ${name}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it("documents the problem+json error answers on every operation", () => {
    const without = [...documented]
      .filter(([, op]) =>
        Object.entries(op.responses).every(
          ([status, r]) =>
            Number(status) < 400 ||
            r.content?.["application/problem+json"]?.schema?.$ref !== "#/components/schemas/Problem",
        ),
      )
      .map(([k]) => k);
    expect(without).toEqual([]);
    expect(schema("Problem").required).toEqual(expect.arrayContaining(["type", "title", "status", "code"]));
  });

  it("marks any not-built operation and still documents its schemas", () => {
    const stubs = [...documented].filter(([, op]) => op["x-not-implemented"] === true);
    for (const [key, op] of stubs) {
      const success = Object.entries(op.responses).filter(([s]) => Number(s) < 300);
      expect(success.length, key).toBeGreaterThan(0);
    }
    const trace = documented.get("POST /docs/{docId}/trace/cover")!;
    expect(trace.parameters).toContainEqual(
      expect.objectContaining({ name: "base_version", in: "query", required: true }),
    );
    expect(trace.requestBody?.content["application/json"]).toBeDefined();
  });

  it("carries the exact shapes the contract gives", () => {
    expect(schema("Settings").properties.max_file_mb).toMatchObject({
      type: "integer",
      minimum: 1,
      maximum: 50,
      default: 10,
    });
    expect(schema("Settings").properties.max_bundle_mb).toMatchObject({
      minimum: 1,
      maximum: 500,
      default: 50,
    });
    expect(schema("Settings").properties.invite_ttl_days).toMatchObject({
      minimum: 1,
      maximum: 90,
      default: 7,
    });
    expect(schema("Settings").properties.parallel_calls).toMatchObject({
      minimum: 1,
      maximum: 16,
      default: 4,
    });
    expect(schema("Settings").required).not.toContain("resolve_sources");
    expect([...schema("RunEstimate").required].sort()).toEqual([
      "cached_steps",
      "calls",
      "priced",
      "tokens_in",
      "tokens_out",
    ]);
    expect([...schema("RoleAssignmentRequest").required].sort()).toEqual(["backend_id", "model"]);
    expect(schema("Backend").properties).not.toHaveProperty("secret");
    expect(schema("BackendRequest").properties).toHaveProperty("secret");
    expect(schema("McpConnection").properties).not.toHaveProperty("secret");
    expect(schema("RepohostConnection").properties).not.toHaveProperty("token");
    expect(schema("RepohostTokenRequest").properties.token).toMatchObject({ minLength: 1 });
    expect(schema("NewWaiver").properties.reason).toMatchObject({ minLength: 20 });
    expect(schema("Link").properties.kind?.enum).toEqual([
      "implements",
      "refines",
      "references",
      "supersedes",
      "implemented-by",
    ]);
    expect(schema("Thread").properties.status?.enum).toEqual(["open", "resolved"]);
    expect(schema("Message").properties.decision?.enum).toEqual(["", "decision", "reversal"]);
    expect(schema("VerificationRun").properties.status?.enum).toEqual(["queued", "done", "failed"]);
    expect([...schema("PullRequest").required].sort()).toEqual(["pr_number", "pr_url"]);
  });
});
