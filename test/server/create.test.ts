import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DB_KINDS, json, makeTestApp, problem, type TestApp } from "../helpers/app.js";
import type { BundleList, SpecDoc } from "../helpers/types.js";

describe.each(DB_KINDS)("POST /bundles on %s", (kind) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await makeTestApp({ kind });
  });
  afterEach(async () => {
    await t.close();
  });

  it("writes the profile's template into a new folder and answers its spec doc with 201", async () => {
    const res = await t.req("POST", "/bundles", {
      profile: "prd",
      name: "refunds",
      title: "Partial refunds",
    });
    expect(res.status).toBe(201);
    const doc = await json<SpecDoc>(res);
    expect(doc).toMatchObject({
      slug: "refunds",
      title: "refunds",
      profile_key: "prd",
      source_kind: "local",
      path: "refunds.md",
      current_version: { number: 1 },
    });
    // The first lint ran: the unfilled template is not Build Ready.
    expect(doc.verdict?.result).toBe("not_build_ready");
    const text = readFileSync(join(t.root, "refunds/refunds.md"), "utf8");
    expect(text).toMatch(/^---\ntype: prd\n/);
    expect(text).toContain('title: "Partial refunds"');
    expect(text).toMatch(/^# Partial refunds$/m);
    expect(text).toContain("## Problem");

    const list = await json<BundleList>(t.req("GET", "/bundles"));
    expect(list.items.map((b) => b.slug)).toEqual(["refunds"]);
    const again = await json<SpecDoc>(t.req("GET", `/docs/${doc.id}`));
    expect(again.id).toBe(doc.id);
  });

  it("keeps the template's title placeholder without a title, and takes nested names", async () => {
    const doc = await json<SpecDoc>(
      t.req("POST", "/bundles", { profile: "adr", name: "decisions/0002-queue" }),
    );
    expect(doc).toMatchObject({ slug: "decisions/0002-queue", title: "0002-queue", profile_key: "adr" });
    const text = readFileSync(join(t.root, "decisions/0002-queue/0002-queue.md"), "utf8");
    expect(text).toContain("type: adr");
    expect(text).toContain("# {{Short title of the decision}}");
  });

  it("refuses an unknown profile, a taken name (in any case) and unsafe names, writing nothing", async () => {
    await problem(await t.req("POST", "/bundles", { profile: "nope", name: "x" }), 400, "unknown_profile");
    expect(existsSync(join(t.root, "x"))).toBe(false);

    await json<SpecDoc>(t.req("POST", "/bundles", { profile: "design", name: "search" }));
    await problem(await t.req("POST", "/bundles", { profile: "prd", name: "search" }), 409, "bundle_exists");
    await problem(await t.req("POST", "/bundles", { profile: "prd", name: "Search" }), 409, "bundle_exists");
    expect(readFileSync(join(t.root, "search/search.md"), "utf8")).toContain("type: design");

    for (const name of ["../out", "/abs", "a/../b", ".hidden", "a\\b", "a//b", "trail/"])
      await problem(await t.req("POST", "/bundles", { profile: "prd", name }), 400, "bad_path");
    await problem(await t.req("POST", "/bundles", { profile: "prd" }), 400, "validation_failed");
    expect(readdirSync(t.root).filter((n) => !n.startsWith("."))).toEqual(["search"]);
    expect(readdirSync(join(t.root, ".spec-review", "import"))).toEqual([]);
  });

  it("refuses a name that goes through a symlink out of the served folder", async () => {
    const outside = mkdtempSync(join(tmpdir(), "sr-outside-"));
    symlinkSync(outside, join(t.root, "link"));
    await problem(await t.req("POST", "/bundles", { profile: "prd", name: "link/new" }), 400, "bad_path");
    expect(readdirSync(outside)).toEqual([]);
  });

  it("creates a bundle nested in a folder that is already a bundle; both list", async () => {
    await json<SpecDoc>(t.req("POST", "/bundles", { profile: "prd", name: "payments" }));
    const nested = await t.req("POST", "/bundles", {
      profile: "api",
      name: "payments/api",
      title: "Payments API",
    });
    expect(nested.status).toBe(201);
    expect((await json<SpecDoc>(nested)).slug).toBe("payments/api");
    const list = await json<BundleList>(t.req("GET", "/bundles"));
    expect(list.items.map((b) => [b.slug, b.docs[0]!.profile_key])).toEqual([
      ["payments", "prd"],
      ["payments/api", "api"],
    ]);
  });
});
