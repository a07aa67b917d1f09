/**
 * Bundles the local store found on disk and has not recorded yet: their files are read
 * and hashed, and every bundle, doc, blob, first version and disk state is inserted in
 * one transaction of batched statements (a first start on a large folder makes a few
 * statements, not a few per bundle).
 */
import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { DiscoveredBundle } from "../../core/bundle/discover.js";
import type { Db } from "../db/index.js";
import { bundles, docs } from "../db/schema.js";
import { docKeyOf, docProblems, insertDiskFiles, type BundleState } from "./disk-state.js";
import { boundedIo, sha256, type DiskFile } from "./fsutil.js";
import type { FileState } from "./scan.js";
import type { VersionRecord } from "./types.js";
import type { NewVersion, VersionRepository } from "./versions.js";

const ROWS = 500;

export interface FoundBundle {
  state: BundleState;
  record: VersionRecord;
  /** The spec doc's bytes (what its lint reads). */
  main?: Uint8Array;
}

/** Read a found bundle's files (those still there) and make its state and first version. */
async function prepare(
  root: string,
  f: DiscoveredBundle,
  byPath: ReadonlyMap<string, DiskFile>,
  blobsToPut: Map<string, Uint8Array>,
  version: Omit<NewVersion, "bundleId" | "files" | "number">,
  io: ReturnType<typeof boundedIo>,
): Promise<{ f: DiscoveredBundle; state: BundleState; version: NewVersion; main?: Uint8Array }> {
  const files = new Map<string, FileState>();
  let main: Uint8Array | undefined;
  await Promise.all(
    f.files.map(async (rel) => {
      const full = f.slug === "." ? rel : `${f.slug}/${rel}`;
      const d = byPath.get(full);
      if (!d) return;
      let bytes: Uint8Array;
      try {
        bytes = await io(() => readFile(join(root, full)));
      } catch {
        return; // vanished since the walk: the next scan sees it
      }
      const sha = sha256(bytes);
      files.set(rel, { sha256: sha, size: bytes.length, mtimeMs: d.mtimeMs });
      blobsToPut.set(sha, bytes);
      if (rel === f.doc.path) main = bytes;
    }),
  );
  const state: BundleState = {
    id: randomUUID(),
    slug: f.slug,
    docId: randomUUID(),
    docPath: f.doc.path,
    headId: null,
    headNumber: 0,
    files: new Map([...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    docKey: docKeyOf(f.doc.path, f.doc.type, docProblems(f.doc.frontmatterError)),
    gone: false,
  };
  return {
    f,
    state,
    version: { ...version, id: randomUUID(), bundleId: state.id, number: 0, files: state.files },
    ...(main ? { main } : {}),
  };
}

/** Record bundles found on disk, each with its first version by `author`. */
export async function recordFound(
  db: Db,
  repo: VersionRepository,
  root: string,
  found: readonly DiscoveredBundle[],
  byPath: ReadonlyMap<string, DiskFile>,
  opts: { now: Date; author: string; message: string },
): Promise<FoundBundle[]> {
  const { now } = opts;
  const blobsToPut = new Map<string, Uint8Array>();
  // Every bundle's files are read at once, IO_IN_FLIGHT reads at a time (not one bundle
  // after another: a first start on 1,000 bundles waited for 1,000 rounds of reads).
  const io = boundedIo();
  const version = { author: opts.author, message: opts.message, createdAt: now };
  const prepared = await Promise.all(found.map((f) => prepare(root, f, byPath, blobsToPut, version, io)));
  const records = await db.transaction(async (tx) => {
    const bundleRows = prepared.map(({ f, state, version }) => ({
      id: state.id,
      sourceKind: "local" as const,
      slug: f.slug,
      title: f.title,
      headVersionId: version.id!,
      headNumber: 1,
      createdAt: now,
      updatedAt: now,
    }));
    for (let i = 0; i < bundleRows.length; i += ROWS)
      await tx.insert(bundles).values(bundleRows.slice(i, i + ROWS));
    const docRows = prepared.map(({ f, state }) => ({
      id: state.docId,
      bundleId: state.id,
      path: f.doc.path,
      profileKey: f.doc.type,
      problems: docProblems(f.doc.frontmatterError),
      createdAt: now,
      updatedAt: now,
    }));
    for (let i = 0; i < docRows.length; i += ROWS) await tx.insert(docs).values(docRows.slice(i, i + ROWS));
    await repo.putBlobs(tx, blobsToPut);
    const recs = await repo.insertVersions(
      tx,
      prepared.map((p) => p.version),
    );
    await insertDiskFiles(
      tx,
      prepared.flatMap(({ state }) =>
        [...state.files].map(([path, f]) => ({ bundleId: state.id, path, ...f })),
      ),
    );
    return recs;
  });
  return prepared.map(({ state, main }, i) => ({ state, record: records[i]!, ...(main ? { main } : {}) }));
}
