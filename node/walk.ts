/**
 * The one walker of spec-review's disk readers (the CLI, the Action, the server's
 * profile loading): every regular file under a folder, relative posix paths, sorted.
 * Dot-folders and dot-files (`.git`, `.spec-review`, `.DS_Store`) and `node_modules`
 * are never part of a bundle, so they are never listed. Symbolic links are not followed.
 */
import { globSync } from "tinyglobby";

/** Folders never walked into, besides dot-folders. */
export const IGNORED_FOLDERS: ReadonlySet<string> = new Set(["node_modules"]);

const IGNORE = [...IGNORED_FOLDERS].map((name) => `**/${name}/**`);

/** Every file under `root`, relative posix paths, sorted. A missing folder lists nothing. */
export function walkFiles(root: string): string[] {
  let files: string[];
  try {
    files = globSync("**", {
      cwd: root,
      dot: false,
      onlyFiles: true,
      followSymbolicLinks: false,
      ignore: IGNORE,
      expandDirectories: false,
    });
  } catch {
    return [];
  }
  return files.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
