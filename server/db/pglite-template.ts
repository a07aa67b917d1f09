/**
 * A migrated, empty PGlite database kept as a gzip tarball, so a new database starts by
 * unpacking it instead of running initdb and every migration: about 5x faster (measured
 * in docs/performance.md), which is most of a first start and of each test file's setup.
 *
 * A template fits one PGlite release, one set of server options and one set of
 * migrations; its file name is the hash of the three. It is looked for in the package
 * (`dist/pglite/`, written by `npm run build`), then in the user's cache folder
 * (`$SPEC_REVIEW_CACHE_DIR`, else `$XDG_CACHE_HOME/spec-review`, else
 * `~/.cache/spec-review`). Without one, the database is made the slow way and a template
 * is saved to the cache folder for the next time. A template that fails to load is
 * ignored (the slow way again); nothing depends on the cache folder being writable.
 */
import { createHash, randomUUID } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { packageRoot } from "../../node/package.js";

/** Where `npm run build` puts the template, inside the package. */
export function packagedTemplateDir(): string {
  return join(packageRoot(), "dist", "pglite");
}

export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SPEC_REVIEW_CACHE_DIR) return env.SPEC_REVIEW_CACHE_DIR;
  return join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "spec-review");
}

/** The template's name: the PGlite release, the server options and every migration file. */
export function templateKey(migrationsFolder: string, options: object): string {
  const h = createHash("sha256");
  const entry = createRequire(import.meta.url).resolve("@electric-sql/pglite");
  const pglite = JSON.parse(readFileSync(join(dirname(entry), "..", "package.json"), "utf8")) as {
    version: string;
  };
  h.update(`pglite ${pglite.version}\n${JSON.stringify(options)}\n`);
  const files = readdirSync(migrationsFolder, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort();
  for (const f of files) h.update(`${f.slice(migrationsFolder.length)}\n`).update(readFileSync(f));
  return h.digest("hex").slice(0, 32);
}

/** The template for `key`, from the package or the cache folder, or undefined. */
export function findTemplate(key: string): { blob: Blob; path: string } | undefined {
  // SPEC_REVIEW_PACKAGED_TEMPLATE=0 skips the package's own template (the cache folder
  // alone is searched): for testing the cache, and for ruling out a bad package.
  const packaged = process.env.SPEC_REVIEW_PACKAGED_TEMPLATE === "0" ? [] : [packagedTemplateDir()];
  for (const dir of [...packaged, cacheDir()]) {
    const path = join(dir, `${key}.tar.gz`);
    try {
      return { blob: new Blob([readFileSync(path)]), path };
    } catch {
      // not there: try the next place
    }
  }
  return undefined;
}

/** Writes a template (atomically: parallel test workers may race) into `dir`. */
export function saveTemplate(dir: string, key: string, tarball: Uint8Array): boolean {
  const temp = join(dir, `.${key}.${randomUUID()}.tmp`);
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(temp, tarball);
    renameSync(temp, join(dir, `${key}.tar.gz`));
    prune(dir);
    return true;
  } catch {
    rmSync(temp, { force: true });
    return false;
  }
}

/** Keeps the newest few templates of a folder (older releases' and migrations' go). */
function prune(dir: string, keep = 3): void {
  const all = readdirSync(dir)
    .filter((n) => n.endsWith(".tar.gz"))
    .map((n) => ({ path: join(dir, n), mtime: statSync(join(dir, n)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  for (const old of all.slice(keep)) rmSync(old.path, { force: true });
}
