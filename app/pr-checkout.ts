/**
 * A partial checkout of a pull request's head, for the linter the Action uses: the App has
 * no workspace, so it writes to a temporary folder the files the lint needs and nothing
 * more: the markdown of every folder above a changed path (to find which bundle the change
 * touches), every file of those bundles, and the repository's own profiles
 * (`.spec-review/profiles/`) and configuration (`.spec-review/config.yaml`). Files come from
 * git by blob id.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import pLimit from "p-limit";
import { classifyMarkdown, folderOf, isMarkdownPath, isUnder } from "../core/bundle/discover.js";

export interface TreeFile {
  path: string;
  sha: string;
}

/** Reads a blob's bytes by id. */
export type BlobReader = (sha: string) => Promise<Uint8Array>;

const decoder = new TextDecoder();

/** Every folder above `path`, innermost first, up to the root ("."). */
function foldersAbove(path: string): string[] {
  const out: string[] = [];
  let f = folderOf(path);
  for (;;) {
    out.push(f);
    if (f === ".") return out;
    f = folderOf(f);
  }
}

/**
 * Write what linting `changed` needs into a new temporary folder; answers it and how to
 * remove it. Blobs are read 8 at a time.
 */
export async function partialCheckout(
  tree: readonly TreeFile[],
  changed: readonly string[],
  read: BlobReader,
): Promise<{ root: string; files: number; remove: () => void }> {
  const root = mkdtempSync(join(tmpdir(), "spec-review-pr-"));
  const limit = pLimit(8);
  const bytes = new Map<string, Uint8Array>();
  const fetch = (files: readonly TreeFile[]) =>
    Promise.all(
      files
        .filter((f) => !bytes.has(f.path))
        .map((f) => limit(async () => bytes.set(f.path, await read(f.sha)))),
    );
  try {
    const folders = new Set(changed.flatMap(foldersAbove));
    // Markdown directly in those folders: which of them hold a spec doc.
    await fetch(tree.filter((f) => isMarkdownPath(f.path) && folders.has(folderOf(f.path))));
    const bundleFolders = new Set<string>();
    for (const [path, b] of bytes)
      if (classifyMarkdown(decoder.decode(b)).type !== undefined) bundleFolders.add(folderOf(path));
    // A bundle at the root holds the whole repo: read only what the change touches there.
    const whole = [...bundleFolders].filter((f) => f !== ".");
    await fetch(
      tree.filter(
        (f) =>
          whole.some((b) => isUnder(f.path, b)) ||
          f.path.startsWith(".spec-review/profiles/") ||
          f.path === ".spec-review/config.yaml" ||
          (bundleFolders.has(".") && changed.includes(f.path)),
      ),
    );
    for (const [path, b] of bytes) {
      const to = join(root, ...path.split("/"));
      mkdirSync(dirname(to), { recursive: true });
      writeFileSync(to, b);
    }
    return { root, files: bytes.size, remove: () => rmSync(root, { recursive: true, force: true }) };
  } catch (err) {
    rmSync(root, { recursive: true, force: true });
    throw err;
  }
}
