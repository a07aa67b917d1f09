/**
 * The first thing `spec-review lint` does with its paths: walk the folders and, when they
 * hold enough markdown files for threads, start the worker threads at once, before this
 * thread loads the lint engine, so the workers load theirs meanwhile. Loads only the
 * walker, the pool and the frontmatter reader (which `lint` has loaded already). The walk is handed on, so no folder is walked twice.
 */
import { statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { isMarkdownPath } from "../core/bundle/discover.js";
import { walkFiles } from "../node/walk.js";
import { startLintPool, threadsFor, type LintPool } from "./lint-pool.js";

export interface EarlyStart {
  /** Started workers, when the paths hold enough markdown files. */
  pool?: LintPool;
  /** Every file under each folder given (absolute path), as `walkFiles` lists them. */
  walks: Map<string, string[]>;
}

export function startEarly(paths: readonly string[], cwd: string, workers?: number): EarlyStart {
  const walks = new Map<string, string[]>();
  let markdown = 0;
  for (const p of paths) {
    const abs = resolve(cwd, p);
    let folder: boolean;
    try {
      folder = statSync(abs).isDirectory();
    } catch {
      continue; // reported as a usage error by lintPaths
    }
    if (!folder) {
      if (isMarkdownPath(abs)) markdown++;
      continue;
    }
    if (walks.has(abs)) continue;
    const files = walkFiles(abs);
    walks.set(abs, files);
    markdown += files.filter(isMarkdownPath).length;
  }
  const count = threadsFor(markdown, availableParallelism(), workers);
  return { walks, ...(count > 1 && markdown > 1 ? { pool: startLintPool(count, markdown) } : {}) };
}
