/**
 * Lint spec bundles on disk, with no server and no database: find the bundles under a
 * folder, lint a doc with the core engine and give it its lint verdict, with line and
 * column positions. `spec-review lint` (cli/) and the GitHub Action (action/) both use
 * this module; the rules themselves are in core/lint.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import {
  baseName,
  classifyMarkdown,
  discoverClassified,
  folderOf,
  isMarkdownPath,
  isUnder,
  type Discovery,
} from "../core/bundle/discover.js";
import { classifyWithTypes, configTypes, typesMap, type TypeOf } from "../core/bundle/types-map.js";
import { decodeText, lintDoc, type Adopt, type Assumption, type LintResult } from "../core/lint/engine.js";
import type { Finding } from "../core/lint/types.js";
import { parseMarkdown, type MarkdownDoc } from "../core/markdown/document.js";
import { frontmatterType } from "../core/markdown/frontmatter.js";
import type { LineCol } from "../core/markdown/text.js";
import type { Profile } from "../core/profile/schema.js";
import { linkFindings, type BrokenLink } from "../core/trace/link-findings.js";
import { frontmatterLinks, type LinkKind } from "../core/trace/links.js";
import { computeVerdict, type Verdict } from "../core/verdict/verdict.js";
import { ambiguityText, namedFinding } from "../core/waivers/match.js";
import { parseSidecar, sidecarPath } from "../core/waivers/sidecar.js";
import { walkFiles } from "./walk.js";

const toPosix = (p: string) => (sep === "/" ? p : p.split(sep).join("/"));

/**
 * The bundles under `root`. `exclude` lists folders (relative to `root`) left out, such
 * as a profiles folder inside the tree, whose templates name a type but are not specs.
 * `.spec-review/` (the repository's own profiles among it) is never walked.
 */
export function scanFolder(
  root: string,
  exclude: readonly string[] = [],
  walked?: (files: readonly string[]) => void,
  listed?: readonly string[],
  /** Types the repository's config gives files by path relative to `root` (`repoTypes`). */
  typeOf?: TypeOf,
): Discovery {
  const files = (listed ?? walkFiles(root)).filter((f) => !exclude.some((folder) => isUnder(f, folder)));
  walked?.(files);
  return discoverClassified(
    files,
    (f) => {
      const c = classifyMarkdown(readFileSync(join(root, f), "utf8"));
      return typeOf ? classifyWithTypes(c, typeOf, f) : c;
    },
    basename(resolve(root)),
  );
}

/**
 * The `types` of the repository's `.spec-review/config.yaml` (core/bundle/types-map.ts):
 * the nearest one at `start` or above it, not past the repository's root (a folder holding
 * `.git`). The lookup takes absolute paths; undefined when there is no config or no types.
 */
export function repoTypes(start: string): ((abs: string) => string | undefined) | undefined {
  let dir = resolve(start);
  for (;;) {
    let text: string | undefined;
    try {
      text = readFileSync(join(dir, ".spec-review", "config.yaml"), "utf8");
    } catch {
      text = undefined;
    }
    if (text !== undefined) {
      const types = configTypes(text);
      if (Object.keys(types).length === 0) return undefined;
      const typeOf = typesMap(types);
      const root = dir;
      return (abs) => {
        const rel = toPosix(relative(root, abs));
        return rel === "" || rel.startsWith("../") || rel === ".." ? undefined : typeOf(rel);
      };
    }
    if (existsSync(join(dir, ".git"))) return undefined;
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

/** A waiver found in the doc's sidecar file: unverified (only the service can check its signature). */
export interface SidecarWaiverSeen {
  check: string;
  reason: string;
  requested_by: string;
  /** The id of the one finding it names (core/waivers/match.ts); empty when it names none. */
  findings: string[];
  /** The verdict counts it (the workflow trusts sidecar waivers, and it names a finding); otherwise listed only. */
  counted: boolean;
  /** Why it names no finding although its text fits several. */
  problem?: string;
}

/** A doc linted on disk: the engine's result, its lint verdict, and where each finding is. */
export interface DiskLint {
  result: LintResult;
  verdict: Verdict;
  /** The waivers of the doc's sidecar (`<name>.review.yaml`), when it has one. */
  sidecar?: { path: string; waivers: SidecarWaiverSeen[]; problem?: string };
  /** Per finding (same order): 1-based line and UTF-16 column of the anchor's start and end. */
  positions: { start: LineCol; end: LineCol }[];
  /** The bundles the frontmatter links to (kind and slug; URLs left out). */
  bundleLinks: { kind: LinkKind; target: string }[];
}

/**
 * Lint one doc of a bundle folder and give it a lint verdict. With `repo` (the repository
 * root and the bundle's folder in it), links that leave the bundle resolve in the repository.
 */
export function lintDocOnDisk(
  bundleDir: string,
  mainPath: string,
  bundleFiles: readonly string[],
  profiles: readonly Profile[],
  runId: string,
  repo?: { root: string; bundlePath: string; rootKnown?: boolean },
  opts: {
    trustSidecarWaivers?: boolean;
    /** Frontmatter links to bundles that do not resolve: SHOULD findings of `links-resolve`. */
    brokenLinks?: readonly BrokenLink[];
    /** The type `.spec-review/config.yaml` gives the doc: used when its frontmatter names none. */
    type?: string;
    /** The profile a doc that names no type (and the config gives none) is linted with (`lint --profile`). */
    fallbackProfile?: string;
    /** The doc, already parsed, instead of the file's bytes on disk (an editor's unsaved buffer). */
    doc?: MarkdownDoc;
  } = {},
): DiskLint {
  const { text, invalid } = opts.doc
    ? { text: opts.doc.text, invalid: false }
    : decodeText(readFileSync(join(bundleDir, mainPath)));
  const doc = opts.doc ?? parseMarkdown(text);
  const names = doc.frontmatter.error ? classifyMarkdown(text).type : frontmatterType(doc.frontmatter);
  const fallback =
    names === undefined && opts.type === undefined && opts.fallbackProfile !== undefined
      ? profiles.find((p) => p.key === opts.fallbackProfile)
      : undefined;
  const files = new Map<string, string>(bundleFiles.map((f) => [f, ""]));
  files.set(mainPath, text);
  // Sibling files a profile reads (a metadata file beside the doc) come from the bundle folder.
  const readFile = (p: string) => readFileSync(join(bundleDir, p));
  const repoView = repo && {
    bundlePath: repo.bundlePath,
    exists: (p: string) => existsSync(join(repo.root, p)),
    ...(repo.rootKnown !== undefined ? { rootKnown: repo.rootKnown } : {}),
  };
  const result = lintDoc(
    doc,
    {
      files,
      mainPath,
      profiles,
      readFile,
      ...(repoView ? { repo: repoView } : {}),
      ...(opts.type !== undefined ? { type: opts.type } : {}),
      ...(fallback ? { profile: fallback } : {}),
    },
    { invalidEncoding: invalid },
  );
  const profile = profiles.find((p) => p.key === result.profile_key);
  if (opts.brokenLinks?.length) {
    for (const { stage: _stage, ...f } of linkFindings(text, mainPath, profile, opts.brokenLinks))
      result.findings.push(f);
    result.findings.sort((a, b) => a.anchor.start - b.anchor.start);
  }
  const sidecar = sidecarWaivers(bundleDir, mainPath, result.findings, opts.trustSidecarWaivers === true);
  const verdict = computeVerdict({
    findings: result.findings,
    waived: sidecar?.waivers.filter((w) => w.counted).flatMap((w) => w.findings),
    kind: "lint",
    runId,
    versionNumber: 0,
    radarCategories: profile?.radar.map((r) => r.key),
  });
  const positions = result.findings.map((f) => ({
    start: doc.index.positionOfByte(f.anchor.start),
    end: doc.index.positionOfByte(f.anchor.end),
  }));
  const bundleLinks = doc.frontmatter.error
    ? []
    : frontmatterLinks(doc.frontmatter.data)
        .links.filter((l) => !l.external)
        .map((l) => ({ kind: l.kind, target: l.target }));
  return { result, verdict, positions, bundleLinks, ...(sidecar ? { sidecar } : {}) };
}

/**
 * The waivers of the doc's sidecar, matched to its findings. Without the service there is
 * no key to check a signature with: they count only when the caller trusts the file.
 */
function sidecarWaivers(
  bundleDir: string,
  mainPath: string,
  findings: readonly Finding[],
  trust: boolean,
): DiskLint["sidecar"] {
  const path = sidecarPath(mainPath);
  const file = join(bundleDir, path);
  if (!existsSync(file)) return undefined;
  const parsed = parseSidecar(decodeText(readFileSync(file)).text);
  return {
    path,
    waivers: parsed.waivers.map((w) => {
      // The service's rule (core/waivers/match.ts): trusted, an entry's id is taken as signed.
      const named = namedFinding(w, findings, trust);
      const problem = ambiguityText(named);
      return {
        check: w.check ?? "",
        reason: w.reason ?? "",
        requested_by: w.requested_by ?? "",
        findings: named.kind === "one" ? [named.id] : [],
        counted: trust && named.kind === "one",
        ...(problem ? { problem } : {}),
      };
    }),
    ...(parsed.problem ? { problem: parsed.problem } : {}),
  };
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
  /** The folder it was found under (absolute) and its slug there: frontmatter links resolve among that folder's bundles. */
  root?: { dir: string; slug: string };
  /** Set by `resolveBundleLinks`: links of the doc that name no bundle under its folder. */
  brokenLinks?: BrokenLink[];
  /** The type the repository's config gives the doc (used when its frontmatter names none). */
  type?: string;
  /** The profile for a doc that names no type and the config gives none (`lint --profile`). */
  fallbackProfile?: string;
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
  /** The bundles the frontmatter links to; taken off the report once checked (`resolveBundleLinks`). */
  bundle_links?: { kind: LinkKind; target: string }[];
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

/**
 * Find the spec docs under the paths: folders are walked for bundles; a markdown file is
 * linted as it is. `exclude` holds absolute folders not to look for bundles in.
 * `walked` hears, before their files are read, how many markdown files each path holds
 * (at most that many docs): the CLI starts its worker threads then. `walks` holds folders
 * (absolute) already walked, with their `walkFiles` listing.
 */
export function collectTasks(
  paths: readonly string[],
  cwd: string,
  exclude: readonly string[] = [],
  walked?: (markdownFiles: number) => void,
  walks?: ReadonlyMap<string, readonly string[]>,
  options: {
    /** The repository's `types` by absolute path (`repoTypes`). */
    typeOf?: (abs: string) => string | undefined;
    /** `lint --profile KEY`: markdown naming no type is a spec doc linted with KEY. */
    fallbackProfile?: string;
    /**
     * `lint --no-specs-ok`: a markdown file given by path that names no type (and is not
     * typed otherwise) is skipped, as under a folder, instead of adopting a profile.
     */
    skipUntypedFiles?: boolean;
  } = {},
): { tasks: LintTask[]; problems: Problem[]; skipped: string[] } {
  const tasks: LintTask[] = [];
  const problems: Problem[] = [];
  const skipped: string[] = [];
  const seen = new Set<string>();
  const show = (abs: string) => toPosix(relative(cwd, abs)) || ".";
  for (const p of paths) {
    const abs = resolve(cwd, p);
    if (statSync(abs).isDirectory()) {
      const inside = exclude
        .map((e) => toPosix(relative(abs, e)))
        .filter((rel) => rel !== "" && !rel.startsWith("..") && !rel.startsWith("/"));
      const listed = walks?.get(abs) ?? walkFiles(abs);
      const typeOf = options.typeOf;
      const discovery = scanFolder(
        abs,
        inside,
        walked && ((files) => walked(files.filter(isMarkdownPath).length)),
        listed,
      );
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
          root: { dir: abs, slug: b.slug },
        });
      }
      for (const pr of discovery.problems)
        problems.push({ path: show(join(abs, pr.path)), message: pr.message });
      // Markdown that names no type, outside every bundle: a spec doc when the repository's
      // config names its type, or with `--profile`; each linted on its own with its folder's
      // files (a folder of many proposals is not one bundle), like a file given by path.
      const folderFiles = new Map<string, string[]>();
      for (const s of discovery.skipped) {
        const docAbs = join(abs, s);
        const type = typeOf?.(docAbs);
        if (type === undefined && options.fallbackProfile === undefined) {
          skipped.push(show(docAbs));
          continue;
        }
        if (seen.has(docAbs)) continue;
        seen.add(docAbs);
        const folder = folderOf(s);
        let files = folderFiles.get(folder);
        if (!files) {
          files = listed
            .filter((f) => isUnder(f, folder) && !inside.some((e) => isUnder(f, e)))
            .map((f) => (folder === "." ? f : f.slice(folder.length + 1)));
          folderFiles.set(folder, files);
        }
        const bundleDir = folder === "." ? abs : join(abs, folder);
        tasks.push({
          bundleDir,
          mainPath: baseName(s),
          files,
          displayPath: show(docAbs),
          bundle: show(bundleDir),
          ...(type !== undefined ? { type } : { fallbackProfile: options.fallbackProfile! }),
        });
      }
    } else {
      if (seen.has(abs)) continue;
      seen.add(abs);
      walked?.(1);
      const bundleDir = dirname(abs);
      const type = options.typeOf?.(abs);
      if (
        options.skipUntypedFiles &&
        type === undefined &&
        options.fallbackProfile === undefined &&
        classifyMarkdown(readFileSync(abs, "utf8")).type === undefined
      ) {
        skipped.push(show(abs));
        continue;
      }
      tasks.push({
        bundleDir,
        mainPath: basename(abs),
        files: walkFiles(bundleDir),
        displayPath: show(abs),
        bundle: show(bundleDir),
        ...(type !== undefined ? { type } : {}),
        ...(options.fallbackProfile !== undefined ? { fallbackProfile: options.fallbackProfile } : {}),
      });
    }
  }
  return { tasks, problems, skipped };
}

/** Lint one task and shape its report. */
export function lintTask(task: LintTask, profiles: readonly Profile[], runId: string): DocReport {
  const { result, verdict, positions, bundleLinks } = lintDocOnDisk(
    task.bundleDir,
    task.mainPath,
    task.files,
    profiles,
    runId,
    undefined,
    {
      ...(task.brokenLinks ? { brokenLinks: task.brokenLinks } : {}),
      ...(task.type !== undefined ? { type: task.type } : {}),
      ...(task.fallbackProfile !== undefined ? { fallbackProfile: task.fallbackProfile } : {}),
    },
  );
  const report: DocReport = {
    path: task.displayPath,
    bundle: task.bundle,
    profile_key: result.profile_key,
    size: result.size,
    verdict,
    findings: result.findings.map((f, i) => ({ ...f, ...positions[i]! })),
    assumptions: result.assumptions,
  };
  if (result.adopt) report.adopt = result.adopt;
  if (task.root && !task.brokenLinks && bundleLinks.length > 0) report.bundle_links = bundleLinks;
  return report;
}

/**
 * A slug that names a folder beside the one linted, relative to a folder above it (up to
 * the repository's root): the folder given was part of a larger tree, whose bundles were
 * not all read, so the link is not called broken.
 */
function outsideFolder(dir: string, slug: string): boolean {
  for (let cur = dir, n = 0; n < 64; n++) {
    if (existsSync(join(cur, ".git"))) return false;
    const up = dirname(cur);
    if (up === cur) return false;
    const target = join(up, slug);
    if (existsSync(target) && statSync(target).isDirectory()) return true;
    cur = up;
  }
  return false;
}

/**
 * Frontmatter links to bundles, checked among the bundles found under the same folder
 * (slugs relative to it, as `serve` and `spec-review trace` name them; a slug that names a
 * folder relative to a folder above, up to the repository's root, is left alone): a doc
 * with a link that names no bundle, or its own, is linted again with a SHOULD finding of its profile's
 * `links-resolve` check for each (as the server's lint runs add). `docs[i]` is `tasks[i]`'s
 * report; `bundle_links` is taken off every report.
 */
export function resolveBundleLinks(
  tasks: readonly LintTask[],
  docs: DocReport[],
  profiles: readonly Profile[],
  runId: string,
  /** Every bundle found, when only some of them were linted (`lint --changed-since`): links resolve among all. */
  known: readonly LintTask[] = tasks,
): void {
  const slugs = new Map<string, Set<string>>();
  for (const t of known)
    if (t.root) {
      let set = slugs.get(t.root.dir);
      if (!set) slugs.set(t.root.dir, (set = new Set()));
      set.add(t.root.slug);
    }
  docs.forEach((d, i) => {
    const links = d.bundle_links;
    delete d.bundle_links;
    const task = tasks[i];
    if (!links || !task?.root) return;
    const known = slugs.get(task.root.dir)!;
    const broken = links
      .filter(
        (l) =>
          l.target === task.root!.slug || (!known.has(l.target) && !outsideFolder(task.root!.dir, l.target)),
      )
      .map((l) => ({ ...l, self: l.target === task.root!.slug }));
    if (broken.length > 0) docs[i] = lintTask({ ...task, brokenLinks: broken }, profiles, runId);
  });
}
