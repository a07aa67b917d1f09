/**
 * The Action's side of linting: find the bundles of the checkout, pick the ones a pull
 * request touches (or the `paths` select), and lint them with the same code as
 * `spec-review lint` (node/lint.ts over core/bundle discovery, core/lint, core/verdict).
 */
import { randomUUID } from "node:crypto";
import { basename, isAbsolute, relative, resolve, sep } from "node:path";
import {
  baseName,
  folderOf,
  isMarkdownPath,
  isUnder,
  type DiscoveredBundle,
  type Discovery,
  type DiscoveryProblem,
} from "../../core/bundle/discover.js";
import { adoptionNote } from "../../core/lint/adopt.js";
import type { SarifDoc } from "../../core/lint/sarif.js";
import type { Finding, Level } from "../../core/lint/types.js";
import type { Profile } from "../../core/profile/schema.js";
import type { VerdictResult } from "../../core/verdict/verdict.js";
import { lintDocOnDisk, repoTypes, scanFolder } from "../lint.js";
import { walkFiles } from "../walk.js";
import {
  holdsProfiles,
  loadProfileLayers,
  repositoryProfilesDir,
  type LoadedProfiles,
  type ProfileLayer,
} from "../profiles.js";
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
  /** What adoption did (docs/profiles.md): the guessed type or size and the findings lowered. */
  adoption?: string;
  /** Why the folder is not a valid bundle (then there is no verdict from the engine). */
  problem?: string;
  /** The doc as core/lint/sarif takes it (absent for an invalid folder, as in `spec-review lint`). */
  sarif?: SarifDoc;
  /**
   * Waivers written in the doc's sidecar (`<name>.review.yaml`). The Action cannot check
   * their signatures: they are unverified, and counted only when the workflow sets
   * `trust-sidecar-waivers` (docs/waivers.md).
   */
  sidecar_waivers?: Array<{
    check: string;
    reason: string;
    requested_by: string;
    findings: number;
    counted: boolean;
    /** Why it names no finding although its text fits several. */
    problem?: string;
  }>;
}

/**
 * The bundles of the checkout. `exclude` lists folders (relative to `root`) left out:
 * a profiles folder inside the checkout, whose templates name a type but are not specs.
 */
export function scanWorkspace(root: string, exclude: readonly string[] = []): Discovery {
  const listed = walkFiles(root).filter((f) => !exclude.some((folder) => isUnder(f, folder)));
  const discovery = scanFolder(root, [], undefined, listed);
  // Markdown naming no type that the repository's `.spec-review/config.yaml` types (by
  // path or glob, from the repository's root): a spec doc, each its own bundle in its
  // folder, as `spec-review lint` lints it (a folder of many proposals holds many).
  const typeOf = repoTypes(root);
  if (!typeOf) return discovery;
  const skipped: string[] = [];
  const mapped: DiscoveredBundle[] = [];
  for (const path of discovery.skipped) {
    const type = typeOf(resolve(root, path));
    if (type === undefined) {
      skipped.push(path);
      continue;
    }
    const slug = folderOf(path);
    mapped.push({
      slug,
      title: slug === "." ? basename(resolve(root)) : baseName(slug),
      doc: { path: baseName(path), type },
      files: listed.filter((f) => isUnder(f, slug)).map((f) => (slug === "." ? f : f.slice(slug.length + 1))),
    });
  }
  const bundles = [...discovery.bundles, ...mapped].sort((a, b) =>
    a.slug === b.slug ? (a.doc.path < b.doc.path ? -1 : 1) : a.slug < b.slug ? -1 : 1,
  );
  return { ...discovery, bundles, skipped };
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
  const docOf = (b: DiscoveredBundle) => (b.slug === "." ? b.doc.path : `${b.slug}/${b.doc.path}`);
  const docs = new Set(discovery.bundles.map(docOf));
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
    if ("slug" in best) {
      // A folder of several docs the config types: a doc touches its own bundle, an asset all of them.
      const slug = best.slug;
      for (const b of discovery.bundles)
        if (b.slug === slug && (!docs.has(path) || docOf(b) === path)) bundles.add(b);
    } else problems.add(best);
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

/**
 * The profile layers of a run: the built-ins shipped with the Action, the repository's own
 * `.spec-review/profiles/` (committed), then the `profiles` input's folder; a later
 * profile with the key of an earlier one replaces it.
 */
export function profileLayers(root: string, input: string | undefined, builtinDir: string): ProfileLayer[] {
  const layers: ProfileLayer[] = [{ dir: builtinDir, origin: "built-in" }];
  const repo = repositoryProfilesDir(root);
  if (holdsProfiles(repo)) layers.push({ dir: repo, origin: "repository" });
  if (input) {
    const dir = resolve(root, input);
    if (!holdsProfiles(dir))
      throw new ActionInputError(`profiles: '${input}' holds no <key>/profile.yaml under ${root}`);
    layers.push({ dir, origin: "option" });
  }
  return layers;
}

/** Load and validate the layers; an invalid profile stops the run with its file, line and column. */
export function loadLayers(layers: readonly ProfileLayer[], root: string): LoadedProfiles {
  const loaded = loadProfileLayers(layers);
  if (loaded.errors.length > 0)
    throw new ActionInputError(
      `invalid profiles:\n${loaded.errors.map((e) => `${relativeTo(root, e.file)}:${e.line}:${e.column} ${e.message}`).join("\n")}`,
    );
  if (loaded.profiles.length === 0) throw new ActionInputError("no profiles to lint with");
  return loaded;
}

function relativeTo(root: string, file: string): string {
  const rel = relative(root, file);
  return rel.startsWith("..") || isAbsolute(rel) ? file : sep === "/" ? rel : rel.split(sep).join("/");
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
  trustSidecarWaivers = false,
): BundleResult {
  const bundleDir = bundle.slug === "." ? root : resolve(root, bundle.slug);
  const { result, verdict, positions, sidecar } = lintDocOnDisk(
    bundleDir,
    bundle.doc.path,
    bundle.files,
    profiles,
    runId,
    // Links leaving the bundle resolve in the checkout when it is the repository root.
    prefix === "" ? { root, bundlePath: bundle.slug === "." ? "" : bundle.slug } : undefined,
    { trustSidecarWaivers, type: bundle.doc.type },
  );
  const folder = repoPath(prefix, bundle.slug);
  const docPath = repoPath(folder, bundle.doc.path);
  const note = adoptionNote(result);
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
    ...(note ? { adoption: note } : {}),
    ...(sidecar && sidecar.waivers.length > 0
      ? {
          sidecar_waivers: sidecar.waivers.map((w) => ({
            check: w.check,
            reason: w.reason,
            requested_by: w.requested_by,
            findings: w.findings.length,
            counted: w.counted,
            ...(w.problem ? { problem: w.problem } : {}),
          })),
        }
      : {}),
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
  trustSidecarWaivers = false,
): BundleResult[] {
  const runId = randomUUID();
  return [
    ...selection.bundles.map((b) => lintOne(root, b, profiles, runId, prefix, trustSidecarWaivers)),
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
  /** Count the waivers of sidecar files although no signature can be checked (input `trust-sidecar-waivers`). */
  trustSidecarWaivers?: boolean;
}

/**
 * The one call the Action makes: lint the bundles of the checkout at `root` that the
 * change touches (every bundle without one), narrowed by the patterns. Patterns that
 * select no bundle of the whole checkout are a mistake (a mistyped `paths`), not a pass.
 */
export function lintTouched(root: string, options: LintTouchedOptions): BundleResult[] {
  const discovery = scanWorkspace(root, options.exclude);
  const patterns = options.patterns ?? [];
  if (patterns.length > 0) {
    const any = selectBundles(discovery, patterns);
    if (any.bundles.length === 0 && any.problems.length === 0)
      throw new ActionInputError(
        `paths: ${patterns.map((p) => `'${p}'`).join(", ")} select${patterns.length === 1 ? "s" : ""} no bundle ` +
          `(${discovery.bundles.length} bundle${discovery.bundles.length === 1 ? "" : "s"} found under the working directory)`,
      );
  }
  const all: Selection = options.changed ? touchedBundles(discovery, options.changed) : discovery;
  return lintSelection(
    root,
    selectBundles(all, patterns),
    options.profiles,
    options.prefix,
    options.trustSidecarWaivers === true,
  );
}
