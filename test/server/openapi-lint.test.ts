/**
 * The served OpenAPI document passes Redocly CLI's `recommended` rules and Spectral's
 * `spectral:oas` ruleset with no error and no warning, gives every operation a description
 * of its own (what it does, its notable errors, who may call it), and declares how each
 * operation is authenticated: the session cookie, a bearer token and the guest cookie as
 * security schemes; none on public routes.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTestApp, type TestApp } from "../helpers/app.js";
import { OPERATION_DESCRIPTIONS } from "../../server/openapi-descriptions.js";

const REDOCLY = resolve(import.meta.dirname, "../../node_modules/.bin/redocly");
const SPECTRAL = resolve(import.meta.dirname, "../../node_modules/.bin/spectral");

/** What `spectral lint --format json` prints for each problem (severity 0 error, 1 warn, 2 info, 3 hint). */
interface SpectralProblem {
  code: string;
  severity: number;
  message: string;
  path: string[];
}

interface Problem {
  ruleId: string;
  severity: "error" | "warn";
  message: string;
  location: Array<{ pointer?: string }>;
}

type Op = {
  security?: Array<Record<string, string[]>>;
  operationId?: string;
  summary?: string;
  description?: string;
};
let t: TestApp;
let dir: string;
let doc: {
  info: { contact?: unknown; license?: unknown; description?: string };
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

  it("describes every operation in words of its own, with who may call it", () => {
    const ids = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(item)) {
        const where = `${method.toUpperCase()} ${path}`;
        ids.add(op.operationId!);
        expect(op.description, where).toBeDefined();
        expect(op.description!.length, where).toBeGreaterThan(80);
        expect(op.description, where).not.toBe(op.summary);
        expect(op.description, where).toContain("**Who may call it:** ");
      }
    // No two operations share a description, and the table names no operation that is gone.
    const texts = Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op.description));
    expect(new Set(texts).size).toBe(texts.length);
    expect(Object.keys(OPERATION_DESCRIPTIONS).filter((id) => !ids.has(id))).toEqual([]);
    expect(doc.info.contact).toBeDefined();
    expect(doc.info.license).toMatchObject({ name: "MIT" });
    expect(doc.info.description).not.toContain("x-not-implemented");
  });

  it("has no error and no warning under Spectral's spectral:oas ruleset", { timeout: 120_000 }, async () => {
    const file = join(dir, "openapi.json");
    writeFileSync(file, JSON.stringify(doc));
    writeFileSync(join(dir, ".spectral.yaml"), 'extends: ["spectral:oas"]\n');
    const run = await execa(
      SPECTRAL,
      ["lint", file, "--ruleset", join(dir, ".spectral.yaml"), "--format", "json", "--quiet"],
      { reject: false, cwd: dir },
    );
    expect(run.stderr).toBe("");
    const problems = (JSON.parse(run.stdout) as SpectralProblem[])
      .filter((p) => p.severity <= 1)
      .map((p) => `${p.code} at ${p.path.join(".")}: ${p.message}`);
    expect(problems).toEqual([]);
  });

  it("has no error and no warning under Redocly CLI's recommended rules", { timeout: 120_000 }, async () => {
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
    const problems = out.problems.map(
      (p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer ?? "?"}: ${p.message}`,
    );
    expect(problems).toEqual([]);
    expect(out.totals).toMatchObject({ errors: 0, warnings: 0 });
  });
});
