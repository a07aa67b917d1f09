/**
 * Lint spec bundles on disk, with no server and no database. Node-side (fs, worker
 * threads); the rules themselves are in core/lint. The CLI and the GitHub Action both
 * use this module: find bundles under paths, lint them, give each doc its verdict.
 */
import { randomUUID } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { discoverBundles, isMarkdownPath } from "../core/bundle/discover.js";
import { decodeText, lintDoc, type Adopt, type Assumption } from "../core/lint/engine.js";
import type { Finding } from "../core/lint/types.js";
import { parseMarkdown } from "../core/markdown/document.js";
import type { LineCol } from "../core/markdown/text.js";
import { loadProfiles, type ProfileError, type ProfileSource } from "../core/profile/load.js";
import type { Profile } from "../core/profile/schema.js";
import { computeVerdict, type Verdict } from "../core/verdict/verdict.js";
import { packageRoot } from "../server/paths.js";

/** Folders never walked into. Dot-folders (.git, .spec-review, ...) are skipped too. */
export const IGNORED_FOLDERS = new Set(["node_modules"]);

const toPosix = (p: string) => (sep === "/" ? p : p.split(sep).join("/"));

/** A profile source over a folder holding `<key>/profile.yaml` and `<key>/template.md`. */
export function fsProfileSource(dir: string): ProfileSource {
  return {
    keys: () =>
      readdirSync(dir, { withFileTypes: true })
        .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, "profile.yaml")))
        .map((d) => d.name)
        .sort(),
    read: (key, file) => {
      try {
        return readFileSync(join(dir, key, file), "utf8");
      } catch {
        return undefined;
      }
    },
  };
}

/** The built-in profiles folder of the package. */
export function builtinProfilesDir(): string {
  return join(packageRoot(), "profiles");
}

const profileCache = new Map<string, { profiles: Profile[]; errors: ProfileError[] }>();
/** Load (once per process) the profiles of a folder. */
export function loadProfilesFromDir(dir: string): { profiles: Profile[]; errors: ProfileError[] } {
  const abs = resolve(dir);
  let loaded = profileCache.get(abs);
  if (!loaded) {
    loaded = loadProfiles(fsProfileSource(abs));
    profileCache.set(abs, loaded);
  }
  return loaded;
}

/** Every file under `root`, relative posix paths, sorted; skips dot-folders and node_modules. */
export function walkFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, rel: string) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (e.name.startsWith(".") || IGNORED_FOLDERS.has(e.name)) continue;
        walk(join(dir, e.name), path);
      } else if (e.isFile()) out.push(path);
    }
  };
  walk(root, "");
  return out.sort();
}

/** One spec doc to lint. */
export interface LintTask {
  /** Absolute path of the bundle folder. */
  bundleDir: string;
  /** Path of the doc relative to the bundle. */
  mainPath: string;
  /** Files of the bundle, relative to it. */
  files: string[];
  /** How to show the doc's path (relative to the working folder, posix). */
  displayPath: string;
  /** Bundle folder as shown. */
  bundle: string;
}

export interface PositionedFinding extends Finding {
  /** 1-based line and UTF-16 column of the anchor start and end. */
  start: LineCol;
  end: LineCol;
}

export interface DocReport {
  path: string;
  bundle: string;
  profile_key: string;
  size: string;
  verdict: Verdict;
  adopt?: Adopt;
  findings: PositionedFinding[];
  assumptions: Assumption[];
}

export interface Problem {
  path: string;
  message: string;
}

export interface LintReport {
  docs: DocReport[];
  problems: Problem[];
  /** Markdown files under the folders that name no `type` and were not linted. */
  skipped: string[];
}

/** Find the spec docs under the paths: folders are walked for bundles; a markdown file is linted as it is. */
export function collectTasks(
  paths: readonly string[],
  cwd: string,
): { tasks: LintTask[]; problems: Problem[]; skipped: string[] } {
  const tasks: LintTask[] = [];
  const problems: Problem[] = [];
  const skipped: string[] = [];
  const seen = new Set<string>();
  const show = (abs: string) => toPosix(relative(cwd, abs)) || ".";
  for (const p of paths) {
    const abs = resolve(cwd, p);
    if (statSync(abs).isDirectory()) {
      const files = walkFiles(abs);
      const discovery = discoverBundles(files, (f) => readFileSync(join(abs, f), "utf8"), basename(abs));
      for (const b of discovery.bundles) {
        const bundleDir = b.slug === "." ? abs : join(abs, b.slug);
        const docAbs = join(bundleDir, b.doc.path);
        if (seen.has(docAbs)) continue;
        seen.add(docAbs);
        tasks.push({
          bundleDir,
          mainPath: b.doc.path,
          files: b.files,
          displayPath: show(docAbs),
          bundle: show(bundleDir),
        });
      }
      for (const pr of discovery.problems)
        problems.push({ path: show(join(abs, pr.path)), message: pr.message });
      for (const s of discovery.skipped) skipped.push(show(join(abs, s)));
    } else {
      if (seen.has(abs)) continue;
      seen.add(abs);
      const bundleDir = dirname(abs);
      tasks.push({
        bundleDir,
        mainPath: basename(abs),
        files: walkFiles(bundleDir),
        displayPath: show(abs),
        bundle: show(bundleDir),
      });
    }
  }
  return { tasks, problems, skipped };
}

/** Lint one doc on disk and give it a lint verdict. */
export function lintTask(task: LintTask, profiles: readonly Profile[], runId: string): DocReport {
  const bytes = readFileSync(join(task.bundleDir, task.mainPath));
  const { text, invalid } = decodeText(bytes);
  const doc = parseMarkdown(text);
  const files = new Map<string, string>(task.files.map((f) => [f, ""]));
  files.set(task.mainPath, text);
  const readFile = (p: string) => readFileSync(join(task.bundleDir, p));
  const result = lintDoc(
    doc,
    { files, mainPath: task.mainPath, profiles, readFile },
    { invalidEncoding: invalid },
  );
  const profile = profiles.find((p) => p.key === result.profile_key);
  const verdict = computeVerdict({
    findings: result.findings,
    kind: "lint",
    runId,
    versionNumber: 0,
    radarCategories: profile?.radar.map((r) => r.key),
  });
  const report: DocReport = {
    path: task.displayPath,
    bundle: task.bundle,
    profile_key: result.profile_key,
    size: result.size,
    verdict,
    findings: result.findings.map((f) => ({
      ...f,
      start: doc.index.positionOfByte(f.anchor.start),
      end: doc.index.positionOfByte(f.anchor.end),
    })),
    assumptions: result.assumptions,
  };
  if (result.adopt) report.adopt = result.adopt;
  return report;
}

export interface LintPathsOptions {
  /** Folder of profiles; default the built-ins. */
  profilesDir?: string;
  /** Worker threads: undefined decides by the number of docs, 0 or 1 lints in this thread. */
  workers?: number;
  cwd?: string;
}

/** Below this many docs, threads cost more than they save. */
export const WORKER_THRESHOLD = 48;

/**
 * Lint every spec doc under the paths. Throws `LintUsageError` for a path that does not
 * exist or profiles that do not load.
 */
export async function lintPaths(
  paths: readonly string[],
  options: LintPathsOptions = {},
): Promise<LintReport> {
  const cwd = options.cwd ?? process.cwd();
  for (const p of paths) {
    const abs = resolve(cwd, p);
    if (!existsSync(abs)) throw new LintUsageError(`no such file or folder: ${p}`);
    if (!statSync(abs).isDirectory() && !isMarkdownPath(abs))
      throw new LintUsageError(`not a markdown file or a folder: ${p}`);
  }
  const profilesDir = resolve(cwd, options.profilesDir ?? builtinProfilesDir());
  if (!existsSync(profilesDir))
    throw new LintUsageError(`no such profiles folder: ${options.profilesDir ?? profilesDir}`);
  const { profiles, errors } = loadProfilesFromDir(profilesDir);
  if (errors.length > 0)
    throw new LintUsageError(
      errors
        .map(
          (e) =>
            `${toPosix(relative(cwd, join(profilesDir, e.file ?? "")))}:${e.line}:${e.column} ${e.message}`,
        )
        .join("\n"),
    );
  if (profiles.length === 0) throw new LintUsageError(`no profiles in ${options.profilesDir ?? profilesDir}`);
  const { tasks, problems, skipped } = collectTasks(paths, cwd);
  const runId = randomUUID();
  const cores = availableParallelism();
  const workers = options.workers ?? (tasks.length >= WORKER_THRESHOLD && cores > 1 ? Math.min(cores, 8) : 0);
  let docs: DocReport[];
  if (workers > 1 && tasks.length > 1) {
    const { lintInWorkers } = await import("./lint-pool.js");
    docs = await lintInWorkers(tasks, profilesDir, runId, workers);
  } else docs = tasks.map((t) => lintTask(t, profiles, runId));
  return { docs, problems, skipped };
}

export class LintUsageError extends Error {
  readonly code = "usage";
  constructor(message: string) {
    super(message);
    this.name = "LintUsageError";
  }
}
