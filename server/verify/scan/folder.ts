/**
 * A folder on disk as a scan source. Directories are walked without following symbolic
 * links (so a link loop cannot trap the walk; links are counted, not read), only regular
 * files are read (a FIFO or a device would block a read), and version-control and
 * dependency folders are skipped: `.git`, `.hg`, `.svn`, `node_modules`.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import type { Batch, ScanSource, SourceContext } from "./pool.js";

export const SKIPPED_DIRS = new Set([".git", ".hg", ".svn", "node_modules"]);
const BATCH_FILES = 64;

export function folderSource(root: string): ScanSource {
  return {
    async *batches(ctx: SourceContext): AsyncIterable<Batch> {
      let paths: string[] = [];
      let files = 0;
      const stack: string[] = [""];
      while (stack.length > 0) {
        if (ctx.stopped()) return;
        const rel = stack.pop()!;
        // One call per folder (not one promise per entry): the walk keeps ahead of the workers.
        const entries = await readdir(join(root, rel), { withFileTypes: true });
        const subdirs: string[] = [];
        for (const ent of entries) {
          const path = rel === "" ? ent.name : `${rel}/${ent.name}`;
          if (ent.isSymbolicLink()) ctx.skip("symlink", path);
          else if (ent.isDirectory()) {
            if (!SKIPPED_DIRS.has(ent.name)) subdirs.push(path);
          } else if (ent.isFile()) {
            if (++files > ctx.limits.maxFiles) {
              ctx.hit("files");
              if (paths.length) yield { type: "paths", root, paths };
              return;
            }
            paths.push(path);
            if (paths.length >= BATCH_FILES) {
              yield { type: "paths", root, paths };
              paths = [];
            }
          } else ctx.skip("special", path);
        }
        // Sorted, pushed in reverse: the walk visits folders in name order.
        subdirs.sort();
        for (let i = subdirs.length - 1; i >= 0; i--) stack.push(subdirs[i]!);
      }
      if (paths.length) yield { type: "paths", root, paths };
    },
  };
}
