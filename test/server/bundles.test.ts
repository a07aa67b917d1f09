import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdirSync, writeFileSync, existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { DB_KINDS, json, makeTestApp, problem, type TestApp } from "../helpers/app.js";
import type { Bundle, BundleList, Items } from "../helpers/types.js";
import type { DeletePlanSchema } from "../../server/routes/bundles/index.js";
import type { z } from "@hono/zod-openapi";

type DeletePlan = z.infer<typeof DeletePlanSchema>;

const DEMO = resolve(import.meta.dirname, "../../fixtures/demo");

describe.each(DB_KINDS)("bundles on %s", (kind) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await makeTestApp({ kind, fixture: DEMO });
  });
  afterEach(async () => {
    await t.close();
  });

  it("lists every bundle of the folder by slug, with its doc, and untyped markdown as skipped", async () => {
    await t.runs.idle();
    const res = await t.req("GET", "/bundles");
    expect(res.status).toBe(200);
    const body = await json<BundleList>(res);
    expect(body.items.map((b) => b.slug)).toEqual([
      "checkout",
      "checkout/api",
      "checkout/design",
      "decisions/0001-use-postgres",
      "saved-searches",
    ]);
    const checkout = body.items[0]!;
    expect(checkout).toMatchObject({ title: "checkout", source_kind: "local", state: "not_build_ready" });
    expect(checkout.docs[0]!.verdict).toMatchObject({
      kind: "lint",
      result: "not_build_ready",
      version_number: 1,
    });
    expect(checkout.docs[0]!.verdict!.must).toBeGreaterThan(0);
    expect(checkout.docs).toHaveLength(1);
    expect(checkout.docs[0]!).toMatchObject({
      path: "prd.md",
      profile_key: "prd",
      bundle_id: checkout.id,
      current_version: { number: 1, created_by: "local" },
    });
    expect(body.items.find((b) => b.slug === "saved-searches")!.state).toBe("build_ready");
    expect(body.problems).toEqual([]);
    const skipped = await json<Items<{ path: string }>>(t.req("GET", "/skipped"));
    expect(skipped.items.map((i) => i.path)).toEqual(["README.md", "notes/meeting-2026-10-01.md"]);
  });

  it("pages with a cursor and refuses a forged one", async () => {
    const first = await json<BundleList>(t.req("GET", "/bundles?limit=3"));
    expect(first.items).toHaveLength(3);
    expect(first.next_cursor).toBeTypeOf("string");
    const second = await json<BundleList>(t.req("GET", `/bundles?limit=3&cursor=${first.next_cursor}`));
    expect(second.items.map((b) => b.slug)).toEqual(["decisions/0001-use-postgres", "saved-searches"]);
    expect(second.next_cursor).toBeUndefined();
    await problem(await t.req("GET", "/bundles?cursor=not-a-cursor"), 400, "bad_cursor");
    const bad = await problem(await t.req("GET", "/bundles?limit=0"), 400, "validation_failed");
    expect(JSON.stringify(bad.errors)).toContain("query.limit");
  });

  it("reports a folder with two spec docs as a problem, not a bundle", async () => {
    mkdirSync(join(t.root, "twins"));
    writeFileSync(join(t.root, "twins/a.md"), "---\ntype: prd\n---\n# A\n");
    writeFileSync(join(t.root, "twins/b.md"), "---\ntype: design\n---\n# B\n");
    await t.local.scanAll();
    const body = await json<BundleList>(t.req("GET", "/bundles"));
    expect(body.items.map((b) => b.slug)).not.toContain("twins");
    expect(body.problems).toEqual([{ path: "twins", message: expect.stringContaining("a.md, b.md") }]);
  });

  it("still lists a doc whose frontmatter is malformed, with the problem stated", async () => {
    mkdirSync(join(t.root, "broken"));
    writeFileSync(join(t.root, "broken/spec.md"), "---\ntype: prd\ntitle: [unclosed\n---\n# Broken\n");
    await t.local.scanAll();
    const body = await json<BundleList>(t.req("GET", "/bundles"));
    const broken = body.items.find((b) => b.slug === "broken")!;
    expect(broken.docs[0]!.profile_key).toBe("prd");
    expect(broken.docs[0]!.problems![0]).toMatchObject({
      message: expect.stringContaining("invalid frontmatter"),
      line: 3,
    });
  });

  it("reads one bundle, and answers 404 problem for an unknown id and 400 for a bad one", async () => {
    const list = await json<BundleList>(t.req("GET", "/bundles"));
    const id = list.items[1]!.id;
    const one = await json<Bundle>(t.req("GET", `/bundles/${id}`));
    expect(one.slug).toBe("checkout/api");
    await problem(await t.req("GET", "/bundles/00000000-0000-4000-8000-000000000000"), 404, "not_found");
    const bad = await problem(await t.req("GET", "/bundles/nope"), 400, "validation_failed");
    expect(JSON.stringify(bad.errors)).toContain("path.bundleId");
  });

  it("keeps bundle and doc ids across a restart on the same database", async () => {
    const before = await json<BundleList>(t.req("GET", "/bundles"));
    await t.store.stop();
    const { LocalStore } = await import("../../server/store/local.js");
    const { silentLogger, systemClock } = await import("../../server/deps.js");
    const again = new LocalStore({
      root: t.root,
      db: t.database.db,
      clock: systemClock,
      logger: silentLogger,
      watch: false,
    });
    await again.start();
    const rows = await again.listBundles({ limit: 10 });
    expect(rows.map((r) => r.bundle.id)).toEqual(before.items.map((b) => b.id));
    expect(rows.map((r) => r.head.number)).toEqual([1, 1, 1, 1, 1]);
    await again.stop();
  });

  it("shows the delete plan, then deletes the bundle's own files and records, leaving nested bundles", async () => {
    const list = await json<BundleList>(t.req("GET", "/bundles"));
    const checkout = list.items.find((b) => b.slug === "checkout")!;
    const plan = await json<DeletePlan>(t.req("GET", `/bundles/${checkout.id}/delete-plan`));
    expect(plan).toMatchObject({
      source_kind: "local",
      action: "delete_files",
      files: 2,
      versions: 1,
      permanent: true,
    });
    const del = await t.req("DELETE", `/bundles/${checkout.id}`);
    expect(del.status).toBe(200);
    expect(existsSync(join(t.root, "checkout/prd.md"))).toBe(false);
    expect(existsSync(join(t.root, "checkout/flow.svg"))).toBe(false);
    expect(existsSync(join(t.root, "checkout/api/api.md"))).toBe(true);
    await problem(await t.req("GET", `/bundles/${checkout.id}`), 404, "not_found");
    await problem(await t.req("GET", `/docs/${checkout.docs[0]!.id}`), 404, "not_found");
    const after = await json<BundleList>(t.req("GET", "/bundles"));
    expect(after.items.map((b) => b.slug)).toEqual([
      "checkout/api",
      "checkout/design",
      "decisions/0001-use-postgres",
      "saved-searches",
    ]);
  });
});
