/**
 * The version repository: a commit records the version, its files, its new blobs and the
 * caller's steps all or nothing (one statement for a small change, a transaction for a
 * large one); large blobs are stored in slices of bounded size, read back whole, stored
 * once per content, deleted with the last version using them.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { asc, count, eq, sql } from "drizzle-orm";
import { blobChunks, blobs, bundles, diskFiles, versionFiles, versions } from "../../../server/db/schema.js";
import { diskFileSteps } from "../../../server/store/disk-state.js";
import type { FileState } from "../../../server/store/scan.js";
import { SLICE_BYTES, VersionRepository } from "../../../server/store/versions.js";
import { VersionConflictError } from "../../../server/errors.js";
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

describe.each(DB_KINDS)("version commits on %s", (kind) => {
  beforeAll(async () => {
    await emptyDatabase(kind);
  });

  const BUNDLE = "00000000-0000-4000-8000-000000000002";
  const text = (s: string) => new TextEncoder().encode(s);

  /** `n` files (one new blob each), the manifest, the blobs and the disk state they make. */
  function change(n: number, tag: string) {
    const files = new Map<string, { sha256: string; size: number }>();
    const blobsOf = new Map<string, Uint8Array>();
    const disk = new Map<string, FileState>();
    for (let i = 0; i < n; i++) {
      const b = text(`# file ${i} ${tag}\n`);
      const path = i === 0 ? "spec.md" : `notes/${String(i).padStart(3, "0")}.md`;
      files.set(path, { sha256: sha(b), size: b.length });
      blobsOf.set(sha(b), b);
      disk.set(path, { sha256: sha(b), size: b.length, mtimeMs: 1000 + i });
    }
    return { files, blobsOf, disk };
  }

  async function state(db: Awaited<ReturnType<typeof emptyDatabase>>["db"]) {
    const [b] = await db.select().from(bundles).where(eq(bundles.id, BUNDLE));
    const vs = await db.select().from(versions).orderBy(asc(versions.number));
    const [vf] = await db.select({ n: count() }).from(versionFiles);
    const [bl] = await db.select({ n: count() }).from(blobs);
    const disk = await db.select().from(diskFiles).orderBy(asc(diskFiles.path));
    return { head: b!.headVersionId, number: b!.headNumber, versions: vs, files: vf!.n, blobs: bl!.n, disk };
  }

  // 3 files take the one-statement commit, 150 the transaction: both must write the same.
  it.each([3, 150])(
    "%i files: the version, its files, new blobs and the steps are written together, and nothing on a stale base",
    async (n) => {
      const { db } = await emptyDatabase(kind);
      const repo = new VersionRepository(db);
      await db.insert(bundles).values({
        id: BUNDLE,
        sourceKind: "local",
        slug: "b",
        title: "b",
        createdAt: new Date(),
        updatedAt: new Date(),
      });
      const first = change(n, "one");
      const v1 = await repo.commit(
        { id: null, number: 0 },
        {
          bundleId: BUNDLE,
          number: 0,
          files: first.files,
          author: "ann",
          message: "first",
          createdAt: new Date(),
        },
        first.blobsOf,
        { steps: (moved) => diskFileSteps(BUNDLE, new Map(), first.disk, moved) },
      );
      expect(v1).toMatchObject({ number: 1, created_by: "ann", message: "first" });
      const after1 = await state(db);
      expect(after1).toMatchObject({ head: v1.id, number: 1, files: n, blobs: n });
      expect(after1.versions.map((v) => [v.id, v.number, v.createdBy])).toEqual([[v1.id, 1, "ann"]]);
      expect(new Date(v1.created_at).getTime()).toBe(after1.versions[0]!.createdAt.getTime());
      expect(after1.disk.map((d) => [d.path, d.mtimeMs])).toEqual(
        [...first.disk].map(([p, f]) => [p, f.mtimeMs]).sort((a, b) => (a[0]! < b[0]! ? -1 : 1)),
      );
      expect(Buffer.from((await repo.fileBytes(v1.id, "spec.md")).bytes).toString()).toBe("# file 0 one\n");

      // A second writer still on the empty base: refused, with the head it missed; nothing of it stays.
      const second = change(n, "two");
      const stale = repo.commit(
        { id: null, number: 0 },
        {
          bundleId: BUNDLE,
          number: 0,
          files: second.files,
          author: "bob",
          message: "late",
          createdAt: new Date(),
        },
        second.blobsOf,
        { steps: (moved) => diskFileSteps(BUNDLE, first.disk, second.disk, moved) },
      );
      await expect(stale).rejects.toBeInstanceOf(VersionConflictError);
      await expect(stale).rejects.toMatchObject({ extra: { current_version: { id: v1.id, number: 1 } } });
      expect(await state(db)).toEqual(after1);

      // On the current base it goes in: changed disk rows replaced, removed ones deleted.
      const third = change(Math.max(1, n - 1), "three");
      let read: unknown;
      const v2 = await repo.commit(
        { id: v1.id, number: 1 },
        {
          bundleId: BUNDLE,
          number: 1,
          files: third.files,
          author: "bob",
          message: "next",
          createdAt: new Date(),
        },
        third.blobsOf,
        {
          steps: (moved) => diskFileSteps(BUNDLE, first.disk, third.disk, moved),
          // Read with the commit, as it was before the steps replaced the disk rows.
          read: {
            value: sql`(select count(*)::int from ${diskFiles} where ${diskFiles.bundleId} = ${BUNDLE})`,
            into: (value) => (read = value),
          },
        },
      );
      expect(Number(read)).toBe(n);
      const after2 = await state(db);
      expect(after2).toMatchObject({ head: v2.id, number: 2, files: n + third.files.size });
      expect(after2.disk.map((d) => [d.path, d.sha256])).toEqual(
        [...third.disk].map(([p, f]) => [p, f.sha256]).sort((a, b) => (a[0]! < b[0]! ? -1 : 1)),
      );
    },
  );
});
