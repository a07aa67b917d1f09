/**
 * The permission matrix: docs/permissions.md says, for every operation, what each kind of
 * caller gets in hosted mode. This walks every operation of the served openapi.json (and
 * the API's own pages) as each caller against seeded data and checks the answers against
 * that table, so an operation added without a decision, or a decision changed without the
 * docs, fails here. A second walk checks that every operation naming a private bundle (or a
 * doc or run of one) answers 404 to those who may not see it.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DB_KINDS, json, makeTestApp, type TestApp } from "../helpers/app.js";
import type { SpecDoc } from "../helpers/types.js";
import { as, cookieOf, fromBrowser, testAuthenticator } from "../helpers/actors.js";
import { BUNDLE_LOOKUPS } from "../../server/auth/authorize.js";
import { PERMISSIONS, scopeOf } from "../../server/auth/permissions.js";
import { NOT_IMPLEMENTED_EXTENSION } from "../../server/routes/stub.js";
import { verificationRuns } from "../../server/db/schema.js";

const CALLERS = ["anonymous", "guest", "viewer", "member", "author", "maintainer", "admin"] as const;
type Caller = (typeof CALLERS)[number];
type Expected = "yes" | "401" | "403";

/** The operations tables of docs/permissions.md: operation -> permission and answer per caller. */
function documentedMatrix(): Map<string, { permission: string; answers: Record<Caller, Expected> }> {
  const text = readFileSync(resolve(import.meta.dirname, "../../docs/permissions.md"), "utf8");
  const rows = new Map<string, { permission: string; answers: Record<Caller, Expected> }>();
  let columns: string[] | undefined;
  for (const line of text.split("\n")) {
    const cells = line
      .split("|")
      .slice(1, -1)
      .map((c) => c.trim());
    if (cells[0] === "Operation") columns = cells;
    const op = cells[0]?.match(/^`([A-Z]+ \/[^`]*)`$/)?.[1];
    if (!op || !columns) continue;
    const answers = {} as Record<Caller, Expected>;
    for (const caller of CALLERS) {
      const value = cells[columns.indexOf(caller)];
      if (value !== "yes" && value !== "401" && value !== "403")
        throw new Error(`docs/permissions.md: ${op} has ${String(value)} for ${caller}`);
      answers[caller] = value;
    }
    if (rows.has(op)) throw new Error(`docs/permissions.md lists ${op} twice`);
    rows.set(op, { permission: cells[columns.indexOf("Permission")]!, answers });
  }
  return rows;
}

/** The API's own pages: routed, not in the document they serve. */
const PAGES = ["GET /openapi.json", "GET /docs", "GET /docs/assets/{file}"];
/** Run last, in this order: they change the seeded bundle when allowed. */
const TAIL = [
  "PUT /bundles/{bundleId}/visibility",
  "POST /bundles/{bundleId}/share",
  "DELETE /bundles/{bundleId}/share",
  "DELETE /bundles/{bundleId}",
];
const RANDOM_ID = "0b0e9c1e-6d7a-4f5e-9a8b-0c1d2e3f4a5b";

interface Seed {
  /** A `link` bundle of the author, with an active link and a guest inside. */
  shared: SpecDoc;
  /** A `private` bundle of the author. */
  hidden: SpecDoc;
  token: string;
  guestCookie: string;
  runId: string;
  hiddenRunId: string;
  findingId: string;
  /** A handoff and a verification run of each bundle (shared, hidden). */
  handoffIds: [string, string];
  verificationIds: [string, string];
  /** A thread on each bundle. */
  threadId: string;
  hiddenThreadId: string;
}

describe.each(DB_KINDS)("permission matrix on %s", (kind) => {
  let t: TestApp;
  let operations: Array<{ op: string; built: boolean }>;
  const matrix = documentedMatrix();

  beforeAll(async () => {
    const auth = testAuthenticator();
    t = await makeTestApp({ kind, mode: "hosted", auth });
    auth.bind(t.services);
    const doc = await json<{ paths: Record<string, Record<string, Record<string, unknown>>> }>(
      t.req("GET", "/openapi.json"),
    );
    operations = [
      ...Object.entries(doc.paths).flatMap(([path, item]) =>
        Object.entries(item).map(([method, o]) => ({
          op: `${method.toUpperCase()} ${path}`,
          built: o[NOT_IMPLEMENTED_EXTENSION] !== true,
        })),
      ),
      ...PAGES.map((op) => ({ op, built: true })),
    ];
    // The maintainer maintains the profile the walk names.
    const res = await t.req("PUT", "/profiles/prd/maintainers", { maintainers: ["u-maint"] }, as("admin"));
    expect(res.status).toBe(200);
  });
  afterAll(async () => {
    await t.close();
  });

  async function seed(name: string): Promise<Seed> {
    const create = async (slug: string) => {
      const res = await t.req("POST", "/bundles", { profile: "prd", name: slug }, as("author"));
      expect(res.status).toBe(201);
      return json<SpecDoc>(res);
    };
    const shared = await create(`${name}-shared`);
    const hidden = await create(`${name}-hidden`);
    const link = await json<{ url: string }>(
      t.req("POST", `/bundles/${shared.bundle_id}/share`, undefined, as("author")),
    );
    const token = link.url.slice(link.url.lastIndexOf("/") + 1);
    const guestCookie = cookieOf(await t.req("POST", `/share/${token}`, { name: "Gus Guest" }));
    const vis = await t.req(
      "PUT",
      `/bundles/${hidden.bundle_id}/visibility`,
      { visibility: "private" },
      as("author"),
    );
    expect(vis.status).toBe(200);
    const runOf = async (d: SpecDoc) =>
      (
        await json<{ items: Array<{ id: string }> }>(
          t.req("GET", `/docs/${d.id}/runs`, undefined, as("author")),
        )
      ).items[0]!.id;
    const runId = await runOf(shared);
    const findings = await json<{ items: Array<{ id: string }> }>(
      t.req("GET", `/runs/${runId}/findings`, undefined, as("author")),
    );
    const handoffOf = async (d: SpecDoc) =>
      (
        await json<{ handoff_id: string }>(
          t.req("POST", `/docs/${d.id}/handoff`, { acknowledged: true }, as("author")),
        )
      ).handoff_id;
    // A hosted service verifies repo-host repositories only (not wired here): seed finished runs.
    const verificationOf = async (d: SpecDoc) => {
      const id = crypto.randomUUID();
      await t.database.db.insert(verificationRuns).values({
        id,
        docId: d.id,
        bundleId: d.bundle_id,
        versionNumber: 1,
        status: "failed",
        target: { kind: "repo", repo: "acme/shop", name: "acme/shop" },
        error: "seeded",
        createdBy: "u-author",
        createdAt: new Date(),
      });
      return id;
    };
    const threadOn = async (d: SpecDoc) =>
      (
        await json<{ id: string }>(
          t.req(
            "POST",
            `/docs/${d.id}/threads`,
            {
              anchor_kind: "check",
              anchor: { check_slug: "goals" },
              addressed_to: "humans",
              title: "Goals",
              body: "Which?",
            },
            as("author"),
          ),
        )
      ).id;
    return {
      handoffIds: [await handoffOf(shared), await handoffOf(hidden)],
      verificationIds: [await verificationOf(shared), await verificationOf(hidden)],
      shared,
      hidden,
      token,
      guestCookie,
      runId,
      hiddenRunId: await runOf(hidden),
      findingId: findings.items[0]!.id,
      threadId: await threadOn(shared),
      hiddenThreadId: await threadOn(hidden),
    };
  }

  /** The request path of `op` on the seeded data; `seeded` is false when it names a record not seeded. */
  function pathOf(op: string, s: Seed, target: SpecDoc, runId: string): { path: string; seeded: boolean } {
    let seeded = true;
    const template = op.slice(op.indexOf(" ") + 1);
    const path = template.replace(/\{(\w+)\}/g, (_m, name: string) => {
      if (name === "bundleId") return target.bundle_id;
      if (name === "docId") return target.id;
      if (name === "runId" && template.startsWith("/runs/")) return runId;
      if (name === "runId" && template.startsWith("/verifications/"))
        return s.verificationIds[target === s.hidden ? 1 : 0];
      if (name === "handoffId") return s.handoffIds[target === s.hidden ? 1 : 0];
      if (name === "findingId") return s.findingId;
      if (name === "threadId") return target === s.hidden ? s.hiddenThreadId : s.threadId;
      if (name === "key") return "prd";
      if (name === "token") return s.token;
      seeded = false;
      return name === "file" ? "missing.js" : name === "role" ? "reviewer" : RANDOM_ID;
    });
    return { path, seeded };
  }

  function headersOf(caller: Caller, s: Seed): Record<string, string> {
    if (caller === "anonymous") return {};
    if (caller === "guest") return fromBrowser(s.guestCookie);
    return as(caller);
  }

  async function call(method: string, path: string, headers: Record<string, string>) {
    const res = await t.req(method, path, undefined, headers);
    // Streams (run events) are not read: the status is the answer.
    const code =
      res.status >= 400 ? ((await res.json()) as { code?: string }).code : void (await res.body?.cancel());
    return { status: res.status, code };
  }

  it("documents every served operation, and only those, with the permission the code gives it", () => {
    const served = new Set(operations.map((o) => o.op));
    const undocumented = [...served].filter((op) => !matrix.has(op));
    expect(undocumented, "add these to the table in docs/permissions.md").toEqual([]);
    // The accounts routes come with sign-in; until they are served their rows wait.
    const accountsServed = [...served].some((op) => op.includes(" /auth/"));
    const stale = [...matrix.keys()].filter(
      (op) => !served.has(op) && (accountsServed || !/ \/(auth|me\/tokens)\b/.test(op)),
    );
    expect(stale, "docs/permissions.md lists operations that are not served").toEqual([]);
    for (const op of served)
      expect(matrix.get(op)?.permission, op).toBe(PERMISSIONS[op as keyof typeof PERMISSIONS]);
  });

  it("lets a built operation name only records whose bundle the permission check can find", () => {
    const untraced = operations.filter((o) => {
      const scope = scopeOf(o.op);
      return o.built && scope && !BUNDLE_LOOKUPS[scope.kind];
    });
    expect(
      untraced.map((o) => o.op),
      "add a lookup to BUNDLE_LOOKUPS in server/auth/authorize.ts",
    ).toEqual([]);
  });

  it.each(CALLERS)("answers %s as the table says", async (caller) => {
    const s = await seed(caller);
    const ordered = [
      ...operations.filter((o) => !TAIL.includes(o.op)),
      ...TAIL.flatMap((op) => operations.filter((o) => o.op === op)),
    ];
    const wrong: string[] = [];
    for (const { op } of ordered) {
      const expected = matrix.get(op)?.answers[caller];
      if (!expected) continue; // reported by the test above
      const method = op.slice(0, op.indexOf(" "));
      const { path, seeded } = pathOf(op, s, s.shared, s.runId);
      const got = await call(method, path, headersOf(caller, s));
      const ok =
        expected === "401"
          ? got.status === 401 && got.code === "unauthenticated"
          : expected === "403"
            ? got.status === 403 && got.code === "forbidden"
            : got.status !== 401 && got.status !== 403 && (got.status !== 404 || !seeded);
      if (!ok) wrong.push(`${op}: expected ${expected}, got ${got.status} ${got.code ?? ""}`);
    }
    expect(wrong).toEqual([]);
  });

  it("hides a private bundle: 404 on every operation naming it, or a doc or run of it, to those who may not see it", async () => {
    const s = await seed("hidden-walk");
    const scoped = operations.filter((o) => {
      const scope = scopeOf(o.op);
      return scope && BUNDLE_LOOKUPS[scope.kind];
    });
    expect(scoped.length).toBeGreaterThan(40);
    const wrong: string[] = [];
    for (const { op } of scoped) {
      const method = op.slice(0, op.indexOf(" "));
      const { path } = pathOf(op, s, s.hidden, s.hiddenRunId);
      for (const caller of ["guest", "viewer", "member", "maintainer"] as const) {
        const got = await call(method, path, headersOf(caller, s));
        if (got.status !== 404 || got.code !== "not_found")
          wrong.push(`${caller} ${op}: got ${got.status} ${got.code ?? ""}`);
      }
      if (method === "GET") {
        const got = await call(method, path, as("author"));
        if ([401, 403, 404].includes(got.status))
          wrong.push(`author ${op}: got ${got.status} ${got.code ?? ""}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
