/**
 * The Action's side of linting: walk the checked-out tree, find the bundles, pick the
 * ones a pull request touches (or the `paths` select), and lint them with the same core
 * as `spec-review lint` (core/bundle discovery, core/lint, core/verdict). Node-side: the
 * only module of the Action that reads the checkout.
 *
 * cli/lint-fs.ts does the same walk for the CLI, but it imports server/ (the package
 * root), and the Action imports core only; the walker and the profile folder reader are
 * the few lines repeated here.
 */
import { randomUUID } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import {
  discoverBundles,
  folderOf,
  isMarkdownPath,
  isUnder,
  type DiscoveredBundle,
  type Discovery,
  type DiscoveryProblem,
} from "../core/bundle/discover.js";
import { decodeText, lintDoc } from "../core/lint/engine.js";
import type { SarifDoc } from "../core/lint/sarif.js";
import type { Finding, Level } from "../core/lint/types.js";
import { parseMarkdown } from "../core/markdown/document.js";
import { loadProfiles, type ProfileSource } from "../core/profile/load.js";
import type { Profile } from "../core/profile/schema.js";
import { computeVerdict, type VerdictResult } from "../core/verdict/verdict.js";
import { ActionInputError } from "./errors.js";
import { selected } from "./glob.js";

/** One finding, placed in the repository: path from the repository root, 1-based line and UTF-16 column. */
export interface ActionFinding {
  id: string;
  file: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  level: Level;
  check: string;
  message: string;
  relaxed: boolean;
}

/** What the Action reports for one touched bundle (or one folder that is not a valid bundle). */
export interface BundleResult {
  /** Bundle folder from the repository root ("." for the root). */
  bundle: string;
  /** Spec doc from the repository root; for an invalid folder, the folder or file at fault. */
  doc: string;
  profile: string | null;
  size: string | null;
  result: Exclude<VerdictResult, "stale">;
  /** 0-100; null for a folder that is not a valid bundle. */
  score: number | null;
  must: number;
  should: number;
  info: number;
  findings: ActionFinding[];
  /** Why the folder is not a valid bundle (then there is no verdict from the engine). */
  problem?: string;
  /** The doc as core/lint/sarif takes it (absent for an invalid folder, as in `spec-review lint`). */
  sarif?: SarifDoc;
}

/** Folders never walked into, besides dot-folders (same as `spec-review lint`). */
const IGNORED_FOLDERS = new Set(["node_modules"]);

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

/**
 * The bundles of the checkout. `exclude` lists folders (relative to `root`) left out:
 * the profiles folder in use, whose templates name a type but are not specs.
 */
export function scanWorkspace(root: string, exclude: readonly string[] = []): Discovery {
  const files = walkFiles(root).filter((f) => !exclude.some((folder) => isUnder(f, folder)));
  return discoverBundles(files, (f) => readFileSync(join(root, f), "utf8"), basename(resolve(root)));
}

/** Bundles and invalid folders to report. */
export interface Selection {
  bundles: DiscoveredBundle[];
  problems: DiscoveryProblem[];
}

/**
 * The bundles a change touches: a changed path (added, modified, removed or renamed
 * from) inside a bundle folder, the doc or any asset, touches that bundle. A path inside
 * a nested bundle touches only the nested one.
 */
export function touchedBundles(discovery: Discovery, changed: readonly string[]): Selection {
  const bundles = new Set<DiscoveredBundle>();
  const problems = new Set<DiscoveryProblem>();
  for (const path of changed) {
    let best: DiscoveredBundle | DiscoveryProblem | undefined;
    let bestLength = -1;
    for (const b of discovery.bundles)
      if (isUnder(path, b.slug) && (b.slug === "." ? 0 : b.slug.length) > bestLength) {
        best = b;
        bestLength = b.slug === "." ? 0 : b.slug.length;
      }
    for (const p of discovery.problems)
      if ((p.path === path || isUnder(path, p.path)) && p.path.length > bestLength) {
        best = p;
        bestLength = p.path.length;
      }
    if (!best) continue;
    if ("slug" in best) bundles.add(best);
    else problems.add(best);
  }
  return {
    bundles: discovery.bundles.filter((b) => bundles.has(b)),
    problems: discovery.problems.filter((p) => problems.has(p)),
  };
}

/** The bundles the `paths` patterns select (every one when there are no patterns). */
export function selectBundles(selection: Selection, patterns: readonly string[]): Selection {
  const docOf = (b: DiscoveredBundle) => (b.slug === "." ? b.doc.path : `${b.slug}/${b.doc.path}`);
  return {
    bundles: selection.bundles.filter((b) => selected(patterns, [b.slug, docOf(b)])),
    problems: selection.problems.filter((p) => selected(patterns, [p.path])),
  };
}

/** A profile source over a folder holding `<key>/profile.yaml` and `<key>/template.md`. */
function folderProfileSource(dir: string): ProfileSource {
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

/** True when the folder holds at least one `<key>/profile.yaml`. */
export function holdsProfiles(dir: string): boolean {
  try {
    return statSync(dir).isDirectory() && folderProfileSource(dir).keys().length > 0;
  } catch {
    return false;
  }
}

/**
 * Which profiles to lint with: the `profiles` input when given; else the repository's own
 * `profiles/` folder when it holds a profile; else the built-ins shipped with the Action.
 */
export function resolveProfilesDir(
  root: string,
  input: string | undefined,
  builtinDir: string,
): { dir: string; source: "input" | "repository" | "built-in" } {
  if (input) {
    const dir = resolve(root, input);
    if (!holdsProfiles(dir))
      throw new ActionInputError(`profiles: '${input}' holds no <key>/profile.yaml under ${root}`);
    return { dir, source: "input" };
  }
  const own = join(root, "profiles");
  if (holdsProfiles(own)) return { dir: own, source: "repository" };
  return { dir: builtinDir, source: "built-in" };
}

/** Load and validate the profiles of a folder; an invalid profile stops the run with its line. */
export function loadProfilesDir(dir: string): Profile[] {
  const { profiles, errors } = loadProfiles(folderProfileSource(dir));
  if (errors.length > 0)
    throw new ActionInputError(
      `invalid profiles in ${dir}:\n${errors.map((e) => `${e.file ?? ""}:${e.line}:${e.column} ${e.message}`).join("\n")}`,
    );
  if (profiles.length === 0) throw new ActionInputError(`no profiles in ${dir}`);
  return profiles;
}

/** A path from the repository root: `rel` (relative to the checkout) under `prefix`; "." for the root. */
export function repoPath(prefix: string, rel: string): string {
  const parts = [prefix, rel].filter((p) => p !== "" && p !== ".");
  return parts.length > 0 ? parts.join("/") : ".";
}

/** Lint one bundle of the checkout with the core engine and give it a lint verdict. */
export function lintOne(
  root: string,
  bundle: DiscoveredBundle,
  profiles: readonly Profile[],
  runId: string,
  prefix = "",
): BundleResult {
  const bundleDir = bundle.slug === "." ? root : join(root, bundle.slug);
  const { text, invalid } = decodeText(readFileSync(join(bundleDir, bundle.doc.path)));
  const doc = parseMarkdown(text);
  const files = new Map<string, string>(bundle.files.map((f) => [f, ""]));
  files.set(bundle.doc.path, text);
  const readFile = (p: string) => readFileSync(join(bundleDir, p));
  const repo = {
    bundlePath: bundle.slug === "." ? "" : bundle.slug,
    exists: (p: string) => existsSync(join(root, p)),
  };
  const result = lintDoc(
    doc,
    // Links leaving the bundle resolve in the checkout when it is the repository root.
    { files, mainPath: bundle.doc.path, profiles, readFile, ...(prefix === "" ? { repo } : {}) },
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
  const folder = repoPath(prefix, bundle.slug);
  const docPath = repoPath(folder, bundle.doc.path);
  const positions = result.findings.map((f) => ({
    start: doc.index.positionOfByte(f.anchor.start),
    end: doc.index.positionOfByte(f.anchor.end),
  }));
  return {
    bundle: folder,
    doc: docPath,
    profile: result.profile_key,
    size: result.size,
    result: verdict.result === "build_ready" ? "build_ready" : "not_build_ready",
    score: verdict.score,
    must: verdict.must,
    should: verdict.should,
    info: verdict.info,
    sarif: { uri: docPath, profile_key: result.profile_key, findings: result.findings, positions },
    findings: result.findings.map((f: Finding, i) => {
      const { start, end } = positions[i]!;
      return {
        id: f.id,
        file: docPath,
        line: start.line,
        column: start.column,
        endLine: end.line,
        endColumn: end.column,
        level: f.level,
        check: f.check,
        message: f.message,
        relaxed: f.relaxed,
      };
    }),
  };
}

/** A folder (or file) discovery could not make a bundle of: Not Build Ready, one MUST. */
export function problemResult(problem: DiscoveryProblem, prefix = ""): BundleResult {
  const path = repoPath(prefix, problem.path);
  const file = isMarkdownPath(problem.path);
  return {
    bundle: file ? repoPath(prefix, folderOf(problem.path)) : path,
    doc: path,
    profile: null,
    size: null,
    result: "not_build_ready",
    score: null,
    must: 1,
    should: 0,
    info: 0,
    problem: problem.message,
    // An annotation needs a file; a folder holding two spec docs is reported in the table only.
    findings: file
      ? [
          {
            id: "",
            file: path,
            line: 1,
            column: 1,
            endLine: 1,
            endColumn: 1,
            level: "MUST",
            check: "bundle-invalid",
            message: problem.message,
            relaxed: false,
          },
        ]
      : [],
  };
}

/**
 * Lint the selected bundles of the checkout at `root`. `prefix` is where `root` sits in
 * the repository ("" when it is the repository root), so paths match the pull request's.
 */
export function lintSelection(
  root: string,
  selection: Selection,
  profiles: readonly Profile[],
  prefix = "",
): BundleResult[] {
  const runId = randomUUID();
  return [
    ...selection.bundles.map((b) => lintOne(root, b, profiles, runId, prefix)),
    ...selection.problems.map((p) => problemResult(p, prefix)),
  ].sort((a, b) => (a.doc < b.doc ? -1 : a.doc > b.doc ? 1 : 0));
}

export interface LintTouchedOptions {
  /** Paths (relative to the checkout) the pull request changes; undefined lints every bundle. */
  changed?: readonly string[];
  /** The `paths` patterns; empty selects every bundle. */
  patterns?: readonly string[];
  profiles: readonly Profile[];
  /** Where the checkout sits in the repository ("" at its root). */
  prefix?: string;
  /** Folders (relative to the checkout) not to look for bundles in. */
  exclude?: readonly string[];
}

/**
 * The one call the Action makes: lint the bundles of the checkout at `root` that the
 * change touches (every bundle without one), narrowed by the patterns.
 */
export function lintTouched(root: string, options: LintTouchedOptions): BundleResult[] {
  const discovery = scanWorkspace(root, options.exclude);
  const all: Selection = options.changed ? touchedBundles(discovery, options.changed) : discovery;
  return lintSelection(root, selectBundles(all, options.patterns ?? []), options.profiles, options.prefix);
}
