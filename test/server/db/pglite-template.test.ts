/**
 * A new PGlite database starts from a template of the empty, migrated database when one
 * fits, and makes (and keeps) one when none does; a template that does not load is
 * ignored rather than trusted.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../../server/db/index.js";
import { bundles } from "../../../server/db/schema.js";

let cache: string;
const saved: Record<string, string | undefined> = {};
beforeAll(() => {
  for (const k of ["SPEC_REVIEW_CACHE_DIR", "SPEC_REVIEW_PACKAGED_TEMPLATE"]) saved[k] = process.env[k];
  cache = mkdtempSync(join(tmpdir(), "sr-template-"));
  process.env.SPEC_REVIEW_CACHE_DIR = cache;
  // `npm run build` ships a template in dist/pglite: these tests are about the cache folder.
  process.env.SPEC_REVIEW_PACKAGED_TEMPLATE = "0";
});
afterAll(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  rmSync(cache, { recursive: true, force: true });
});

const templates = () => readdirSync(cache).filter((n) => n.endsWith(".tar.gz"));

describe("PGlite templates", { timeout: 180_000 }, () => {
  it("keeps a template after making a database the slow way, and the next database is the same empty, migrated one", async () => {
    const first = await openDatabase("memory://");
    await first.close();
    expect(templates()).toHaveLength(1);

    const dir = mkdtempSync(join(tmpdir(), "sr-template-db-"));
    try {
      const second = await openDatabase(dir);
      expect(existsSync(join(dir, "PG_VERSION"))).toBe(true);
      expect(await second.db.select().from(bundles)).toEqual([]);
      await second.close();
      // and the folder opens again as an ordinary data folder
      const again = await openDatabase(dir);
      expect(await again.db.select().from(bundles)).toEqual([]);
      await again.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(templates()).toHaveLength(1);
  });

  it("drops a template that does not load, opens the database anyway and keeps a good template again", async () => {
    const [name] = templates();
    writeFileSync(join(cache, name!), "not a tarball");
    const dir = mkdtempSync(join(tmpdir(), "sr-template-db-"));
    try {
      const opened = await openDatabase(dir);
      expect(await opened.db.select().from(bundles)).toEqual([]);
      await opened.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(templates()).toEqual([name]);
    expect(statSync(join(cache, name!)).size).toBeGreaterThan(100_000);
  });
});
