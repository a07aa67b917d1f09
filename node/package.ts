/** Where spec-review's own files are: its package root and the built-in profiles. */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let root: string | undefined;
/** The folder holding spec-review's package.json, from source (tsx) or from dist/. */
export function packageRoot(): string {
  if (root) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json")) || !existsSync(join(dir, "profiles"))) {
    const up = dirname(dir);
    if (up === dir) throw new Error("cannot find spec-review's package.json");
    dir = up;
  }
  root = dir;
  return dir;
}

let version: string | undefined;
/** spec-review's own version, from its package.json. */
export function packageVersion(): string {
  version ??= (JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as { version: string })
    .version;
  return version;
}

/** The built-in profiles shipped with the package. */
export function builtinProfilesDir(): string {
  return join(packageRoot(), "profiles");
}
