/**
 * What only the database store does (the shared rules are in contract.test.ts): new bundles
 * from a set of files with no folder around them, names compared as folders would be, and
 * two stores on one database (two processes) agreeing, on PGlite and Postgres.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tmpdir } from "node:os";
import { ApiError } from "../../../server/errors.js";
import { silentLogger, systemClock } from "../../../server/deps.js";
import type { Database } from "../../../server/db/index.js";
import { DbStore } from "../../../server/store/db/store.js";
import { createServices } from "../../../server/services.js";
import { DB_KINDS, emptyDatabase } from "../../helpers/app.js";

const enc = new TextEncoder();
const PRD = "---\ntype: prd\n---\n# Saved searches\n\nShoppers save a search.\n";
const ADR = "---\ntype: adr\nstatus: [unclosed\n---\n# Use Postgres\n";

async function code(p: Promise<unknown>): Promise<string | undefined> {
  return p.then(
    () => undefined,
    (e: unknown) => (e instanceof ApiError ? e.code : `not an ApiError: ${String(e)}`),
  );
}

describe.each(DB_KINDS)("DbStore on %s", (kind) => {
  let database: Database;
  let a: DbStore;
  let b: DbStore;
  beforeEach(async () => {
    database = await emptyDatabase(kind);
    a = new DbStore({ db: database.db, clock: systemClock, logger: silentLogger });
    b = new DbStore({ db: database.db, clock: systemClock, logger: silentLogger });
    // The first opens the test file's database (PGlite: seconds, more on a busy machine).
  }, 180_000);
  afterEach(async () => {
    await a.stop();
    await b.stop();
  });

  it("splits a set of files into bundles as a folder would be, each internal, by the author", async () => {
    const ids = await a.addFolder(
      "specs",
      new Map([
        ["search/prd.md", enc.encode(PRD)],
        ["search/img/flow.png", new Uint8Array([137, 80, 78, 71])],
        ["search/notes.md", enc.encode("# Notes, no type\n")],
        ["decisions/adr.md", enc.encode(ADR)],
      ]),
      { author: "mia" },
    );
    const rows = await a.bundlesByIds(ids);
    expect(
      rows.map((r) => [r.bundle.slug, r.bundle.title, r.bundle.sourceKind, r.bundle.visibility]).sort(),
    ).toEqual([
      ["specs/decisions", "decisions", "db", "internal"],
      ["specs/search", "search", "db", "internal"],
    ]);
    const search = rows.find((r) => r.bundle.slug === "specs/search")!;
    expect(search.head).toMatchObject({ number: 1, created_by: "mia", message: "Created" });
    expect((await a.files(search.head.id)).map((f) => f.path)).toEqual([
      "img/flow.png",
      "notes.md",
      "prd.md",
    ]);
    // A spec doc whose frontmatter does not parse is still a bundle, with its problem recorded.
    const adr = rows.find((r) => r.bundle.slug === "specs/decisions")!;
    expect(adr.doc.profileKey).toBe("adr");
    expect(adr.doc.problems?.[0]?.message).toMatch(/invalid frontmatter/);
    expect(a.problems()).toEqual([]);
  });

  it("refuses a file outside every bundle, two spec docs in a folder, or no spec doc, storing nothing", async () => {
    expect(
      await code(
        a.addFolder(
          "specs",
          new Map([
            ["search/prd.md", enc.encode(PRD)],
            ["README.md", enc.encode("# Specs\n")],
          ]),
        ),
      ),
    ).toBe("bad_path");
    expect(
      await code(
        a.addFolder(
          "specs",
          new Map([
            ["prd.md", enc.encode(PRD)],
            ["adr.md", enc.encode(ADR)],
          ]),
        ),
      ),
    ).toBe("two_spec_docs");
    expect(await code(a.addFolder("specs", new Map([["x.md", enc.encode("# x\n")]])))).toBe("no_spec_doc");
    expect(await code(a.addFolder("specs", new Map([["../prd.md", enc.encode(PRD)]])))).toBe("bad_path");
    expect(
      await code(
        a.addFolder(
          "specs",
          new Map([
            ["prd.md", enc.encode(PRD)],
            ["PRD.md", enc.encode("# also\n")],
          ]),
        ),
      ),
    ).toBe("duplicate_path");
    expect(await a.listBundles({ limit: 10 })).toEqual([]);
  });

  it("takes a name in any letter case and the folders above a bundle, across stores", async () => {
    await a.addFolder("Payments/Refunds", new Map([["prd.md", enc.encode(PRD)]]));
    for (const name of ["payments/refunds", "PAYMENTS", "payments"])
      expect(await b.nameTaken(name)).toBe(true);
    expect(await b.nameTaken("payments/refunds/appeals")).toBe(false);
    expect(await b.nameTaken("pay")).toBe(false);
    expect(await code(b.addFolder("payments", new Map([["prd.md", enc.encode(PRD)]])))).toBe("bundle_exists");
  });

  it("two stores on one database (two processes): one writer on a base wins, the other sees its version", async () => {
    const [id] = await a.addFolder("search", new Map([["prd.md", enc.encode(PRD)]]));
    const rec = await b.bundle(id!);
    const docId = rec.doc.id;
    const results = await Promise.allSettled([
      a.write(docId, rec.head.id, [{ path: "a.txt", bytes: enc.encode("a") }], "ann", "A"),
      b.write(docId, rec.head.id, [{ path: "b.txt", bytes: enc.encode("b") }], "bob", "B"),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const lost = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect((lost.reason as ApiError).code).toBe("version_conflict");
    const head = await a.resolveVersion(id!);
    expect(head.number).toBe(2);
    expect((await b.doc(docId)).head.id).toBe(head.id);
    // A write changes the doc row for every store: the type follows the spec doc's text.
    await b.write(
      docId,
      head.id,
      [{ path: "prd.md", bytes: enc.encode(PRD.replace("prd", "rfc")) }],
      "bob",
      "T",
    );
    expect((await a.doc(docId)).doc.profileKey).toBe("rfc");
  });
});

describe("createServices: the store follows the mode", () => {
  it("refuses a folder in hosted mode and local mode without one", async () => {
    const key = new Uint8Array(32);
    await expect(
      createServices({ mode: "hosted", folder: tmpdir(), database: "memory://", secretKey: key }),
    ).rejects.toThrow(/hosted mode serves no folder/);
    await expect(createServices({ mode: "local", database: "memory://", secretKey: key })).rejects.toThrow(
      /local mode needs the folder/,
    );
  });
});
