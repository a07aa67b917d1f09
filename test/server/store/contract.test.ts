/**
 * The BundleStore contract: every store implementation runs these tests (add its factory
 * to STORES), on PGlite and, with TEST_DATABASE_URL, on Postgres.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiError } from "../../../server/errors.js";
import { silentLogger, systemClock } from "../../../server/deps.js";
import type { Database } from "../../../server/db/index.js";
import { LocalStore } from "../../../server/store/local.js";
import { DbStore } from "../../../server/store/db/store.js";
import type { BundleStore, VersionEvent } from "../../../server/store/types.js";
import { DB_KINDS, emptyDatabase } from "../../helpers/app.js";

interface Made {
  store: BundleStore;
  close(): Promise<void>;
}

/** Each implementation: a started, empty store on the given database. */
const STORES: Array<{ name: string; make: (database: Database) => Promise<Made> }> = [
  {
    name: "local",
    make: async (database) => {
      const root = mkdtempSync(join(tmpdir(), "sr-store-contract-"));
      const store = new LocalStore({
        root,
        db: database.db,
        clock: systemClock,
        logger: silentLogger,
        watch: false,
      });
      await store.start();
      return {
        store,
        close: async () => {
          await store.stop();
          rmSync(root, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: "db",
    make: async (database) => {
      const store = new DbStore({ db: database.db, clock: systemClock, logger: silentLogger });
      await store.start();
      return { store, close: () => store.stop() };
    },
  },
];

const enc = new TextEncoder();
const dec = new TextDecoder();
const SPEC =
  "---\ntype: prd\n---\n# Saved searches 🔎\r\n\r\nShoppers save a search.[^1]\n\n[^1]: Footnote.\n";

/** Expect an ApiError with this code. */
async function fails(p: Promise<unknown>, code: string): Promise<ApiError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, `expected ${code}`).toBeInstanceOf(ApiError);
  expect((err as ApiError).code).toBe(code);
  return err as ApiError;
}

describe.each(STORES.flatMap((s) => DB_KINDS.map((kind) => ({ ...s, kind }))))(
  "BundleStore contract: $name on $kind",
  ({ make, kind }) => {
    let made: Made;
    let store: BundleStore;
    let docId: string;
    let bundleId: string;
    let base: string;

    beforeEach(async () => {
      made = await make(await emptyDatabase(kind));
      store = made.store;
      const [id] = await store.addFolder(
        "saved-searches",
        new Map([
          ["spec.md", enc.encode(SPEC)],
          ["img/flow.bin", new Uint8Array([0, 1, 2, 255])],
        ]),
      );
      bundleId = id!;
      const rec = await store.bundle(bundleId);
      docId = rec.doc.id;
      base = rec.head.id;
      expect(rec).toMatchObject({
        bundle: { slug: "saved-searches", title: "saved-searches" },
        doc: { path: "spec.md", profileKey: "prd", bundleId },
        head: { number: 1 },
      });
    });
    afterEach(async () => {
      await made.close();
    });

    it("writes on a base as one new version and reads every version back exactly", async () => {
      const bin = new Uint8Array([0x00, 0xff, 0x0d, 0x0a, 0xf0, 0x9f, 0x94, 0x8e]);
      const w = await store.write(docId, base, [{ path: "data/raw.bin", bytes: bin }], "ann", "Add raw");
      expect(w).toMatchObject({
        changed: true,
        version: { number: 2, created_by: "ann", message: "Add raw" },
      });
      expect([...(await store.fileBytes(w.version.id, "data/raw.bin")).bytes]).toEqual([...bin]);
      expect(dec.decode((await store.fileBytes(base, "spec.md")).bytes)).toBe(SPEC);
      expect((await store.files(base)).map((f) => f.path)).toEqual(["img/flow.bin", "spec.md"]);
      expect((await store.files(w.version.id)).map((f) => [f.path, f.utf8])).toEqual([
        ["data/raw.bin", false],
        ["img/flow.bin", false],
        ["spec.md", true],
      ]);
      expect((await store.resolveVersion(bundleId, "1")).id).toBe(base);
      expect((await store.resolveVersion(bundleId, base.toUpperCase())).number).toBe(1);
      expect((await store.resolveVersion(bundleId)).id).toBe(w.version.id);
      expect((await store.versions(bundleId, { limit: 10 })).map((v) => v.number)).toEqual([2, 1]);
      expect((await store.doc(docId)).head.id).toBe(w.version.id);
      const snap = await store.snapshot(base);
      expect([...snap.keys()]).toEqual(["img/flow.bin", "spec.md"]);
    });

    it("keeps a large binary file (several database slices) byte for byte in every read", async () => {
      // 1.3 MB of pseudo-random bytes: no run of it repeats, so a slice put back in the
      // wrong order or twice shows.
      const big = new Uint8Array(1_300_000);
      let x = 2463534242;
      for (let i = 0; i < big.length; i++) {
        x ^= x << 13;
        x ^= x >>> 17;
        x ^= x << 5;
        big[i] = x & 0xff;
      }
      const w = await store.write(docId, base, [{ path: "media/demo.mp4", bytes: big }], "ann", "Add demo");
      const read = await store.fileBytes(w.version.id, "media/demo.mp4");
      expect(read.entry.size).toBe(big.length);
      expect(Buffer.from(read.bytes).equals(Buffer.from(big))).toBe(true);
      expect(
        Buffer.from((await store.snapshot(w.version.id)).get("media/demo.mp4")!).equals(Buffer.from(big)),
      ).toBe(true);
      const inputs = await store.diffInputs(base, w.version.id);
      const added = inputs.to.find((f) => f.path === "media/demo.mp4")!;
      expect(Buffer.from(await inputs.bytes(added.sha256)).equals(Buffer.from(big))).toBe(true);
      // The same bytes under a second name, in the next version: still the same content.
      const w2 = await store.write(
        docId,
        w.version.id,
        [{ path: "media/copy.mp4", bytes: big }],
        "ann",
        "Copy",
      );
      const files = await store.files(w2.version.id);
      expect(files.find((f) => f.path === "media/copy.mp4")).toMatchObject({
        sha256: added.sha256,
        utf8: false,
      });
      expect(
        Buffer.from((await store.fileBytes(w2.version.id, "media/copy.mp4")).bytes).equals(Buffer.from(big)),
      ).toBe(true);
    });

    it("makes no version for a write that changes nothing", async () => {
      const w = await store.write(docId, base, [{ path: "spec.md", bytes: enc.encode(SPEC) }], "ann", "Same");
      expect(w).toMatchObject({ changed: false, version: { id: base, number: 1 } });
      expect(await store.versions(bundleId, { limit: 10 })).toHaveLength(1);
    });

    it("refuses a stale base with version_conflict and changes nothing", async () => {
      const w = await store.write(docId, base, [{ path: "a.txt", bytes: enc.encode("a") }], "ann", "A");
      const err = await fails(
        store.write(
          docId,
          base,
          [{ path: "spec.md", bytes: enc.encode("---\ntype: prd\n---\n# lost\n") }],
          "bob",
          "B",
        ),
        "version_conflict",
      );
      expect(err.extra).toMatchObject({ current_version: { id: w.version.id, number: 2 } });
      expect(dec.decode((await store.fileBytes(w.version.id, "spec.md")).bytes)).toBe(SPEC);
      expect(await store.versions(bundleId, { limit: 10 })).toHaveLength(2);
    });

    it("lets exactly one of 20 writers on one base win", async () => {
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) =>
          store.write(docId, base, [{ path: "race.txt", bytes: enc.encode(`writer ${i}`) }], "w", `W${i}`),
        ),
      );
      const won = results.filter((r) => r.status === "fulfilled");
      expect(won).toHaveLength(1);
      for (const r of results)
        if (r.status === "rejected") expect((r.reason as ApiError).code).toBe("version_conflict");
      const head = await store.resolveVersion(bundleId);
      expect(head.number).toBe(2);
      const text = dec.decode((await store.fileBytes(head.id, "race.txt")).bytes);
      expect(text).toBe(`writer ${Number(/\d+/.exec(head.message)![0])}`);
    });

    it("renames a file as one version; the base is checked before the file", async () => {
      const r = await store.rename(docId, base, "img/flow.bin", "assets/flow.bin", "ann");
      expect(r).toMatchObject({
        changed: true,
        version: { number: 2, message: "Rename img/flow.bin to assets/flow.bin" },
      });
      expect((await store.files(r.version.id)).map((f) => f.path)).toEqual(["assets/flow.bin", "spec.md"]);
      expect([...(await store.fileBytes(r.version.id, "assets/flow.bin")).bytes]).toEqual([0, 1, 2, 255]);
      // The file is gone now and the base is stale: the stale base is the answer.
      await fails(store.rename(docId, base, "img/flow.bin", "x.bin", "ann"), "version_conflict");
      await fails(store.rename(docId, r.version.id, "img/flow.bin", "x.bin", "ann"), "file_not_found");
      await store.write(docId, r.version.id, [{ path: "b.txt", bytes: enc.encode("b") }], "ann", "B");
      const head = await store.resolveVersion(bundleId);
      await fails(store.rename(docId, head.id, "b.txt", "spec.md", "ann"), "file_exists");
      const main = await store.rename(docId, head.id, "spec.md", "requirements.md", "ann");
      expect((await store.doc(docId)).doc.path).toBe("requirements.md");
      await fails(
        store.rename(docId, main.version.id, "requirements.md", "sub/r.md", "ann"),
        "main_doc_required",
      );
    });

    it("deletes a file as a version; a stale base comes before file_not_found", async () => {
      const d = await store.write(docId, base, [{ path: "img/flow.bin", bytes: null }], "ann", "Delete");
      expect((await store.files(d.version.id)).map((f) => f.path)).toEqual(["spec.md"]);
      await fails(
        store.write(docId, base, [{ path: "img/flow.bin", bytes: null }], "ann", "Again"),
        "version_conflict",
      );
      await fails(
        store.write(docId, d.version.id, [{ path: "img/flow.bin", bytes: null }], "ann", "Again"),
        "file_not_found",
      );
      await fails(
        store.write(docId, d.version.id, [{ path: "spec.md", bytes: null }], "ann", "X"),
        "main_doc_required",
      );
    });

    it("gives diff inputs by sha256 and loads bytes only when asked", async () => {
      const w = await store.write(
        docId,
        base,
        [
          { path: "spec.md", bytes: enc.encode(SPEC + "\nMore.\n") },
          { path: "new.txt", bytes: enc.encode("new") },
        ],
        "ann",
        "Edit",
      );
      const inputs = await store.diffInputs(base, w.version.id);
      const from = new Map(inputs.from.map((f) => [f.path, f.sha256]));
      const to = new Map(inputs.to.map((f) => [f.path, f.sha256]));
      expect(from.get("img/flow.bin")).toBe(to.get("img/flow.bin"));
      expect(from.get("spec.md")).not.toBe(to.get("spec.md"));
      expect(from.has("new.txt")).toBe(false);
      expect(dec.decode(await inputs.bytes(to.get("new.txt")!))).toBe("new");
      expect(dec.decode(await inputs.bytes(from.get("spec.md")!))).toBe(SPEC);
    });

    it("normalizes paths to NFC, so names differing only in normalization are one file", async () => {
      const nfd = "re\u0301sume\u0301.txt";
      const nfc = nfd.normalize("NFC");
      expect(nfc).not.toBe(nfd);
      const a = await store.write(docId, base, [{ path: nfd, bytes: enc.encode("one") }], "ann", "A");
      const b = await store.write(docId, a.version.id, [{ path: nfc, bytes: enc.encode("two") }], "ann", "B");
      const files = (await store.files(b.version.id)).map((f) => f.path);
      expect(files).toEqual(["img/flow.bin", nfc, "spec.md"]);
      expect(dec.decode((await store.fileBytes(b.version.id, nfd)).bytes)).toBe("two");
      expect(await store.hasFile(docId, nfd)).toBe(true);
    });

    it.each([
      ["a bidirectional override", "evil\u202Etxt.md"],
      ["an isolate", "x\u2066y.txt"],
      ["a C1 control character", "x\u0085y.txt"],
      ["DEL", "x\u007fy.txt"],
      ["a 256-byte name", `${"a".repeat(252)}.txt`],
      ["a file used as a folder", "spec.md/x.txt"],
      ["a folder used as a file", "img"],
    ])("refuses %s with bad_path and writes nothing", async (_why, path) => {
      await fails(store.write(docId, base, [{ path, bytes: enc.encode("x") }], "ann", "X"), "bad_path");
      expect(await store.versions(bundleId, { limit: 10 })).toHaveLength(1);
    });

    it("answers bad_version for a version number no bigint holds", async () => {
      await fails(store.resolveVersion(bundleId, "99999999999999999999"), "bad_version");
      await fails(store.resolveVersion(bundleId, "9223372036854775808"), "bad_version");
      await fails(store.resolveVersion(bundleId, "2"), "bad_version");
    });

    it("says each new version once, with the spec doc's bytes when a write had them", async () => {
      const seen: VersionEvent[] = [];
      const on = (ev: VersionEvent) => seen.push(ev);
      store.events.on("version", on);
      try {
        const text = SPEC.replace("Saved searches", "Saved filters");
        const w = await store.write(docId, base, [{ path: "spec.md", bytes: enc.encode(text) }], "ann", "E");
        expect(seen).toHaveLength(1);
        expect(seen[0]).toMatchObject({
          bundleId,
          docId,
          mainPath: "spec.md",
          version: { id: w.version.id },
        });
        expect(dec.decode(seen[0]!.mainBytes)).toBe(text);
      } finally {
        store.events.off("version", on);
      }
    });

    it("lists and deletes bundles; a second folder is a second bundle", async () => {
      const ids = await store.addFolder(
        "decisions/0001-use-postgres",
        new Map([["adr.md", enc.encode("---\ntype: adr\n---\n# Use Postgres\n")]]),
      );
      expect(ids).toHaveLength(1);
      expect(await store.nameTaken("Saved-Searches")).toBe(true);
      await fails(store.addFolder("saved-searches", new Map([["x.md", enc.encode("x")]])), "bundle_exists");
      expect((await store.listBundles({ limit: 10 })).map((r) => r.bundle.slug)).toEqual([
        "decisions/0001-use-postgres",
        "saved-searches",
      ]);
      expect(
        (await store.listBundles({ limit: 10, after: "decisions/0001-use-postgres" })).map(
          (r) => r.bundle.slug,
        ),
      ).toEqual(["saved-searches"]);
      expect(await store.bundleStats(bundleId)).toMatchObject({
        versions: 1,
        files: 2,
        bytes: enc.encode(SPEC).length + 4,
      });
      await store.deleteBundle(bundleId);
      await fails(store.bundle(bundleId), "not_found");
      await fails(store.doc(docId), "not_found");
      expect((await store.bundlesByIds([bundleId, ids[0]!])).map((r) => r.bundle.id)).toEqual([ids[0]]);
    });
  },
);
