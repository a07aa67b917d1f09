/**
 * `spec-review lint` over paths: check them, load the profile layers, lint every doc
 * (on worker threads when there are many). The walking, profile reading and linting of
 * one doc live in node/ (shared with the Action and the server).
 */
import { randomUUID } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join, relative, resolve, sep } from "node:path";
import { isMarkdownPath } from "../core/bundle/discover.js";
import { builtinProfilesDir } from "../node/package.js";
import {
  findRepositoryProfiles,
  loadProfileLayersCached,
  type LoadedProfiles,
  type ProfileLayer,
} from "../node/profiles.js";
import {
  collectTasks,
  lintTask,
  repoTypes,
  resolveBundleLinks,
  type DocReport,
  type LintReport,
} from "../node/lint.js";
import type { EarlyStart } from "./lint-early.js";
import { WORKER_THRESHOLD, startLintPool, threadsFor, type LintPool } from "./lint-pool.js";

export { builtinProfilesDir } from "../node/package.js";
export { folderProfileSource as fsProfileSource } from "../node/profiles.js";
export { walkFiles, IGNORED_FOLDERS } from "../node/walk.js";
export { collectTasks, lintTask } from "../node/lint.js";
export type { DocReport, LintReport, LintTask, PositionedFinding, Problem } from "../node/lint.js";
export { WORKER_THRESHOLD } from "./lint-pool.js";

const toPosix = (p: string) => (sep === "/" ? p : p.split(sep).join("/"));

export interface LintPathsOptions {
  /** Folders of profiles added to (and replacing by key) the built-ins and the repository's. */
  profilesDirs?: readonly string[];
  /** Worker threads: undefined decides by the number of docs, 0 or 1 lints in this thread. */
  workers?: number;
  /** Workers and walks started before the lint engine was loaded (cli/lint-early.ts). */
  early?: EarlyStart;
  /** `--profile KEY`: markdown that names no type (and the config types not) is linted with KEY. */
  profile?: string;
  /** `--no-specs-ok`: a markdown file given by path that names no type is skipped, not adopted. */
  skipUntypedFiles?: boolean;
  /**
   * `--changed-since`: the files changed (absolute paths, deleted ones included). Only the
   * docs of bundles holding one of them (a loose doc: the doc itself; every doc when the
   * configuration changed) are linted; links still resolve among every bundle found.
   */
  changed?: ReadonlySet<string>;
  cwd?: string;
}

/** A path in a `.spec-review/` folder, but not its `data/` (local mode's database). */
const SPEC_REVIEW_CONFIG = /(?:^|[\\/])\.spec-review[\\/](?!data(?:[\\/]|$))/;

/** Is a changed file `dir` itself or under it? */
function holdsChange(changed: ReadonlySet<string>, dir: string): boolean {
  const prefix = dir.endsWith(sep) ? dir : dir + sep;
  for (const f of changed) if (f === dir || f.startsWith(prefix)) return true;
  return false;
}

/**
 * The profile layers `spec-review lint` uses from `cwd`: the built-ins, the repository's
 * `.spec-review/profiles` (the nearest at or above `cwd`), then each `--profiles` folder.
 */
export function profileLayers(cwd: string, profilesDirs: readonly string[] = []): ProfileLayer[] {
  const layers: ProfileLayer[] = [{ dir: builtinProfilesDir(), origin: "built-in" }];
  const repo = findRepositoryProfiles(cwd);
  if (repo) layers.push({ dir: repo, origin: "repository" });
  for (const d of profilesDirs) {
    const dir = resolve(cwd, d);
    if (!existsSync(dir) || !statSync(dir).isDirectory())
      throw new LintUsageError(`no such profiles folder: ${d}`);
    layers.push({ dir, origin: "option" });
  }
  return layers;
}

/** Load the layers; a profile that does not load stops the run with its file, line and column. */
export function loadLayers(layers: readonly ProfileLayer[], cwd: string): LoadedProfiles {
  const loaded = loadProfileLayersCached(layers);
  if (loaded.errors.length > 0)
    throw new LintUsageError(
      loaded.errors
        .map((e) => `${toPosix(relative(cwd, e.file))}:${e.line}:${e.column} ${e.message}`)
        .join("\n"),
    );
  if (loaded.profiles.length === 0) throw new LintUsageError("no profiles to lint with");
  return loaded;
}

/**
 * Lint every spec doc under the paths. Throws `LintUsageError` for a path that does not
 * exist or profiles that do not load.
 */
export async function lintPaths(
  paths: readonly string[],
  options: LintPathsOptions = {},
): Promise<LintReport & { loaded: LoadedProfiles; unchanged: number }> {
  const cwd = options.cwd ?? process.cwd();
  for (const p of paths) {
    const abs = resolve(cwd, p);
    if (!existsSync(abs)) throw new LintUsageError(`no such file or folder: ${p}`);
    if (!statSync(abs).isDirectory() && !isMarkdownPath(abs))
      throw new LintUsageError(`not a markdown file or a folder: ${p}`);
  }
  const layers = profileLayers(cwd, options.profilesDirs);
  const loaded = loadLayers(layers, cwd);
  if (options.profile !== undefined && !loaded.profiles.some((p) => p.key === options.profile))
    throw new LintUsageError(
      `--profile: no profile '${options.profile}' (${loaded.profiles.map((p) => p.key).join(", ")})`,
    );
  const exclude = layers.filter((l) => l.origin === "option").map((l) => l.dir);
  const runId = randomUUID();
  const cores = availableParallelism();
  const wanted = (docs: number) => threadsFor(docs, cores, options.workers);
  // Worker threads start as soon as a walk shows enough markdown files for them (the CLI
  // starts them before it loads this module), so they load their modules while this
  // thread reads the files and finds the bundles.
  let pool: LintPool | undefined = options.early?.pool;
  let markdownFiles = 0;
  const walked = (n: number) => {
    markdownFiles += n;
    if (!pool && markdownFiles > 1 && wanted(markdownFiles) > 1)
      pool = startLintPool(wanted(markdownFiles), markdownFiles);
  };
  let collected: ReturnType<typeof collectTasks>;
  try {
    const typeOf = repoTypes(cwd);
    collected = collectTasks(paths, cwd, exclude, walked, options.early?.walks, {
      ...(typeOf ? { typeOf } : {}),
      ...(options.profile !== undefined ? { fallbackProfile: options.profile } : {}),
      ...(options.skipUntypedFiles ? { skipUntypedFiles: true } : {}),
    });
  } catch (err) {
    pool?.close();
    throw err;
  }
  const all = collected.tasks;
  let { tasks, problems, skipped } = collected;
  const changed = options.changed;
  // A change to the configuration (`.spec-review/`: profiles, config.yaml) or to a
  // `--profiles` folder can change every doc's findings: then every doc is linted.
  const configChanged =
    changed !== undefined &&
    ([...changed].some((f) => SPEC_REVIEW_CONFIG.test(f)) || exclude.some((d) => holdsChange(changed, d)));
  if (changed && !configChanged) {
    tasks = tasks.filter((t) =>
      t.root ? holdsChange(changed, t.bundleDir) : changed.has(join(t.bundleDir, t.mainPath)),
    );
    problems = problems.filter((p) => holdsChange(changed, resolve(cwd, p.path)));
    skipped = skipped.filter((p) => changed.has(resolve(cwd, p)));
  }
  let docs: DocReport[];
  // The walk counts every markdown file; fewer of them may be spec docs than threads pay for.
  if (pool && tasks.length > 1 && (options.workers !== undefined || tasks.length >= WORKER_THRESHOLD))
    docs = await pool.lint(tasks, loaded.profiles, runId, lintTask);
  else {
    pool?.close();
    docs = tasks.map((t) => lintTask(t, loaded.profiles, runId));
  }
  resolveBundleLinks(tasks, docs, loaded.profiles, runId, all);
  return { docs, problems, skipped, loaded, unchanged: all.length - tasks.length };
}

export class LintUsageError extends Error {
  readonly code = "usage";
  constructor(message: string) {
    super(message);
    this.name = "LintUsageError";
  }
}
