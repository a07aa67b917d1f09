/**
 * The served OpenAPI document passes Redocly CLI's `recommended` rules with no error
 * (warnings are allowed), and declares how each operation is authenticated: the session
 * cookie, a bearer token and the guest cookie as security schemes; none on public routes.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTestApp, type TestApp } from "../helpers/app.js";

const REDOCLY = resolve(import.meta.dirname, "../../node_modules/.bin/redocly");

interface Problem {
  ruleId: string;
  severity: "error" | "warn";
  message: string;
  location: Array<{ pointer?: string }>;
}

type Op = { security?: Array<Record<string, string[]>> };
let t: TestApp;
let dir: string;
let doc: {
  paths: Record<string, Record<string, Op>>;
  components: { securitySchemes?: Record<string, unknown> };
};

beforeAll(async () => {
  t = await makeTestApp();
  doc = (await (await t.req("GET", "/openapi.json")).json()) as typeof doc;
  dir = mkdtempSync(join(tmpdir(), "sr-openapi-"));
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the OpenAPI document", () => {
  it("declares the session cookie, bearer tokens and the guest cookie, and which reach each operation", () => {
    expect(Object.keys(doc.components.securitySchemes ?? {}).sort()).toEqual(["bearer", "guest", "session"]);
    expect(doc.paths["/meta"]!.get!.security).toEqual([]);
    expect(doc.paths["/auth/sign-in"]!.post!.security).toEqual([]);
    expect(doc.paths["/share/{token}"]!.post!.security).toEqual([]);
    expect(doc.paths["/bundles"]!.get!.security).toEqual([{ session: [] }, { bearer: [] }, { guest: [] }]);
    expect(doc.paths["/bundles"]!.post!.security).toEqual([{ session: [] }, { bearer: [] }]);
    expect(doc.paths["/admin/invites"]!.post!.security).toEqual([{ session: [] }, { bearer: [] }]);
    for (const [path, item] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(item)) expect(op.security, `${method} ${path}`).toBeDefined();
  });

  it("has no error under Redocly CLI's recommended rules", { timeout: 120_000 }, async () => {
    const file = join(dir, "openapi.json");
    writeFileSync(file, JSON.stringify(doc));
    writeFileSync(join(dir, "redocly.yaml"), "extends:\n  - recommended\n");
    const run = await execa(
      REDOCLY,
      ["lint", file, "--config", join(dir, "redocly.yaml"), "--format", "json", "--max-problems", "10000"],
      {
        reject: false,
        cwd: dir,
        env: { REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
      },
    );
    const out = JSON.parse(run.stdout) as {
      totals: { errors: number; warnings: number };
      problems: Problem[];
    };
    const errors = out.problems
      .filter((p) => p.severity === "error")
      .map((p) => `${p.ruleId} at ${p.location[0]?.pointer ?? "?"}: ${p.message}`);
    expect(errors).toEqual([]);
    expect(out.totals.errors).toBe(0);
  });
});
