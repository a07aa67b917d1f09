/**
 * A branch read from its archive: `GET /repos/{owner}/{repo}/tarball/{ref}` (GitHub answers
 * with a redirect to codeload, or to its own host on Enterprise Server; github.ts follows
 * it), gunzipped and untarred as it streams in. Each file's git blob id is computed from
 * its bytes as they pass (git's `blob <size>\0` header, then the bytes: the id a tree
 * names), so the file list matches what the tree API would give; only the bytes the
 * caller asks to keep (markdown to classify, the repository's config) stay in memory, so
 * an archive of any size costs the memory of the files kept, not of the archive.
 *
 * GitHub's layout: one top folder `<owner>-<repo>-<sha7>/`, stripped here; the commit id
 * is in the pax global header's comment (git archive writes it).
 *
 * When to read the archive rather than blob by blob (docs/app.md, "Reading a repository"):
 * the first read of a source and any read that starts over always read it (one call and
 * its redirect instead of one per file); a push reads its changed files one by one when
 * they are few (at most `BLOB_BY_BLOB_MAX`, and in a source of more than 1,000 files at
 * most 1 in 20 of them), else the archive.
 */
import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import { extract as tarExtract } from "tar-stream";
import type { GitHubApi } from "./github.js";

/** The most changed files a push reads one by one; more read the archive. */
export const BLOB_BY_BLOB_MAX = 50;

/** True when `n` changed files of a source of `total` files are read one by one (else: the archive). */
export function blobByBlob(n: number, total: number): boolean {
  return n <= BLOB_BY_BLOB_MAX && n * 20 <= Math.max(total, BLOB_BY_BLOB_MAX * 20);
}

export interface ArchiveEntry {
  /** The git blob id of its bytes. */
  sha: string;
  size: number;
}

export interface ArchiveRead {
  /** Every file under `prefix` (path relative to the repo root), by path. */
  files: Map<string, ArchiveEntry>;
  /** The bytes kept (`keep`), by blob id. */
  kept: Map<string, Uint8Array>;
  /** The commit the archive is of, when it says (the pax comment). */
  commit?: string;
  /** Bytes of the archive's files (uncompressed). */
  bytes: number;
}

/**
 * Stream the archive of `ref` and list its files. `keep(path, size)`: keep this file's
 * bytes. `under`: only files below this folder of the repo ("" for all).
 */
export async function readArchive(
  api: GitHubApi,
  owner: string,
  repo: string,
  ref: string,
  opts: { keep: (path: string, size: number) => boolean; under?: string },
): Promise<ArchiveRead> {
  return api.download(`/repos/${owner}/${repo}/tarball/${encodeURIComponent(ref)}`, (body) =>
    untar(body, opts),
  );
}

/** The files of a `.tar.gz` stream, as `readArchive` gives them. */
export async function untar(
  body: ReadableStream<Uint8Array>,
  opts: { keep: (path: string, size: number) => boolean; under?: string },
): Promise<ArchiveRead> {
  const under = opts.under ?? "";
  const out: ArchiveRead = { files: new Map(), kept: new Map(), bytes: 0 };
  const extract = tarExtract();
  const piping = pipeline(Readable.fromWeb(body), createGunzip(), extract);
  // The pipeline's error (a cut connection, a bad gzip) surfaces through the loop too.
  piping.catch(() => undefined);
  for await (const entry of extract) {
    const h = entry.header;
    const comment = (h.pax as Record<string, string> | undefined)?.["comment"];
    if (comment && /^[0-9a-f]{40}$/.test(comment)) out.commit = comment;
    const slash = h.name.indexOf("/");
    const path = slash < 0 ? "" : h.name.slice(slash + 1);
    const wanted = path !== "" && (under === "" || path.startsWith(under + "/"));
    if (!wanted || (h.type !== "file" && h.type !== "symlink")) {
      entry.resume();
      await new Promise<void>((resolve, reject) => {
        entry.on("end", resolve);
        entry.on("error", reject);
      });
      continue;
    }
    if (h.type === "symlink") {
      // Git keeps a symbolic link as a blob of its target.
      const bytes = new Uint8Array(Buffer.from(h.linkname ?? "", "utf8"));
      entry.resume();
      add(
        out,
        path,
        bytes.length,
        blobIdOf([bytes], bytes.length),
        opts.keep(path, bytes.length) ? bytes : undefined,
      );
      continue;
    }
    const size = h.size ?? 0;
    const hash = createHash("sha1").update(`blob ${size}\0`);
    const keep = opts.keep(path, size);
    const chunks: Buffer[] = [];
    for await (const chunk of entry as AsyncIterable<Buffer>) {
      hash.update(chunk);
      if (keep) chunks.push(chunk);
    }
    add(out, path, size, hash.digest("hex"), keep ? new Uint8Array(Buffer.concat(chunks)) : undefined);
  }
  await piping;
  return out;
}

function add(out: ArchiveRead, path: string, size: number, sha: string, bytes: Uint8Array | undefined): void {
  out.files.set(path, { sha, size });
  out.bytes += size;
  if (bytes) out.kept.set(sha, bytes);
}

function blobIdOf(parts: Uint8Array[], size: number): string {
  const h = createHash("sha1").update(`blob ${size}\0`);
  for (const p of parts) h.update(p);
  return h.digest("hex");
}

/**
 * The files of a commit below `under` ("" for all): the recursive tree when GitHub gives
 * it whole, else (`truncated: true`, a tree past GitHub's limits) the archive, since a cut
 * tree is never taken as whole.
 */
export async function filesAt(
  api: GitHubApi,
  owner: string,
  repo: string,
  sha: string,
  under = "",
): Promise<Array<{ path: string; sha: string; size: number }>> {
  const tree = await api.tree(owner, repo, sha);
  if (!tree.truncated)
    return tree.entries
      .filter((e) => e.type === "blob" && (under === "" || e.path.startsWith(under + "/")))
      .map((e) => ({ path: e.path, sha: e.sha, size: e.size ?? 0 }));
  const read = await readArchive(api, owner, repo, sha, { keep: () => false, under });
  return [...read.files].map(([path, f]) => ({ path, sha: f.sha, size: f.size }));
}
