/**
 * The version repository's storage of large blobs: in slices of bounded size, read back
 * whole, stored once per content, deleted with the last version using them.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { count, eq } from "drizzle-orm";
import { blobChunks, blobs, bundles } from "../../../server/db/schema.js";
import { SLICE_BYTES, VersionRepository } from "../../../server/store/versions.js";
import { DB_KINDS, emptyDatabase } from "../../helpers/app.js";

const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

function bytes(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

describe.each(DB_KINDS)("version repository, large blobs on %s", (kind) => {
  // Opening the database takes a while on a busy machine: once, before the tests.
  beforeAll(async () => {
    await emptyDatabase(kind);
  });

  it("stores a blob over one slice in slices, reads it back whole, and stores the same bytes once", async () => {
    const { db } = await emptyDatabase(kind);
    const repo = new VersionRepository(db);
    const big = bytes(SLICE_BYTES * 3 + 1234, 7);
    const small = new TextEncoder().encode("# small\n");
    await db.insert(bundles).values({
      id: "00000000-0000-4000-8000-000000000001",
      sourceKind: "local",
      slug: "b",
      title: "b",
      createdAt: new Date(),
      updatedAt: new Date(),
    });
    const v = await repo.commit(
      { id: null, number: 0 },
      {
        bundleId: "00000000-0000-4000-8000-000000000001",
        number: 0,
        files: new Map([
          ["big.bin", { sha256: sha(big), size: big.length }],
          ["spec.md", { sha256: sha(small), size: small.length }],
        ]),
        author: "ann",
        message: "first",
        createdAt: new Date(),
      },
      new Map([
        [sha(big), big],
        [sha(small), small],
      ]),
    );
    const [slices] = await db
      .select({ n: count() })
      .from(blobChunks)
      .where(eq(blobChunks.sha256, sha(big)));
    expect(slices!.n).toBe(4);
    const [row] = await db
      .select()
      .from(blobs)
      .where(eq(blobs.sha256, sha(big)));
    expect(row).toMatchObject({ size: big.length, utf8: false });
    expect(row!.content.length).toBe(0);
    const [inline] = await db
      .select()
      .from(blobs)
      .where(eq(blobs.sha256, sha(small)));
    expect(new TextDecoder().decode(inline!.content)).toBe("# small\n");

    expect(Buffer.from((await repo.fileBytes(v.id, "big.bin")).bytes).equals(Buffer.from(big))).toBe(true);
    expect(Buffer.from(await repo.blob(sha(big))).equals(Buffer.from(big))).toBe(true);
    expect((await repo.files(v.id)).map((f) => [f.path, f.size])).toEqual([
      ["big.bin", big.length],
      ["spec.md", small.length],
    ]);

    // The same content again: no second row, no second set of slices.
    await repo.putBlobs(db, new Map([[sha(big), big]]));
    const [again] = await db.select({ n: count() }).from(blobChunks);
    expect(again!.n).toBe(4);

    // Gone with the last version that uses it.
    await db.delete(bundles);
    await repo.deleteOrphanBlobs();
    const [left] = await db.select({ n: count() }).from(blobChunks);
    expect(left!.n).toBe(0);
  });

  it("refuses to answer a sliced blob with a slice missing rather than answer wrong bytes", async () => {
    const { db } = await emptyDatabase(kind);
    const repo = new VersionRepository(db);
    const big = bytes(SLICE_BYTES * 2 + 10, 11);
    await repo.putBlobs(db, new Map([[sha(big), big]]));
    await db.delete(blobChunks).where(eq(blobChunks.seq, 1));
    await expect(repo.blob(sha(big))).rejects.toThrow(/damaged/);
  });
});
