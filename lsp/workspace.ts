/**
 * What the language server knows of the folders open in the editor: the repository's
 * configuration (`.spec-review/config.yaml` types, `.spec-review/profiles`, the extra
 * profile folders of the settings), the bundles under each workspace folder, and the
 * lint of an open buffer. Everything on disk is read through node/ (the same readers
 * `spec-review lint` uses) and kept until a file event says it changed; a buffer's lint
 * reads nothing but its bundle's folder listing, which is kept too.
 */
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { classifyMarkdown, isMarkdownPath, type Discovery } from "../core/bundle/discover.js";
import { parseMarkdown, type MarkdownDoc } from "../core/markdown/document.js";
import { frontmatterType } from "../core/markdown/frontmatter.js";
import type { Profile } from "../core/profile/schema.js";
import type { BrokenLink } from "../core/trace/link-findings.js";
import { frontmatterLinks } from "../core/trace/links.js";
import { lintDocOnDisk, repoTypes, scanFolder, type DiskLint } from "../node/lint.js";
import { builtinProfilesDir } from "../node/package.js";
import {
  CONFIG_FOLDER,
  findRepositoryProfiles,
  loadProfileLayers,
  type LoadedProfiles,
  type ProfileLayer,
} from "../node/profiles.js";
import { walkFiles } from "../node/walk.js";

/** The `specReview` settings (workspace/configuration), with the environment as fallback. */
export interface Settings {
  /** The service: `SPEC_REVIEW_URL` when the editor sets none. */
  serviceUrl?: string;
  /** Its API token: `SPEC_REVIEW_TOKEN` when the editor sets none. */
  token?: string;
  /** More profile folders (`<key>/profile.yaml`), relative to the workspace folder; like `lint --profiles`. */
  profiles: string[];
}

export function settingsFrom(raw: unknown, env: Record<string, string | undefined> = process.env): Settings {
  const r = (raw && typeof raw === "object" ? raw : {}) as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === "string" && v.trim() !== "" ? v.trim() : undefined);
  const serviceUrl = str(r["serviceUrl"]) ?? str(env["SPEC_REVIEW_URL"]);
  const token = str(r["token"]) ?? str(env["SPEC_REVIEW_TOKEN"]);
  const profiles = Array.isArray(r["profiles"])
    ? r["profiles"].filter((p): p is string => typeof p === "string" && p.trim() !== "")
    : [];
  return {
    ...(serviceUrl ? { serviceUrl: serviceUrl.replace(/\/+$/, "") } : {}),
    ...(token ? { token } : {}),
    profiles,
  };
}

const toPosix = (p: string) => (sep === "/" ? p : p.split(sep).join("/"));

/** The path of a `file:` URI; undefined for any other scheme (an untitled buffer). */
export function uriPath(uri: string): string | undefined {
  if (!uri.startsWith("file:")) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}

/** An open spec doc, linted. */
export interface LintedDoc {
  uri: string;
  path: string;
  /** The buffer's version the lint is of. */
  version: number;
  doc: MarkdownDoc;
  profile: Profile;
  lint: DiskLint;
  /** The workspace folder (or repository) the doc's links resolve in, and its bundle's slug there. */
  root: string;
  bundleDir: string;
  slug: string;
}

export class Workspace {
  roots: string[] = [];
  settings: Settings = settingsFrom(undefined);
  private readonly listings = new Map<string, string[]>();
  private readonly discoveries = new Map<string, Discovery>();
  private readonly loaded = new Map<string, LoadedProfiles>();
  private readonly layerCache = new Map<string, ProfileLayer[]>();
  private readonly typeLookups = new Map<string, ((abs: string) => string | undefined) | undefined>();
  private readonly verdicts = new Map<string, DiskLint>();
  /** What features work out from files on disk (trace IDs of other docs), kept until a file event. */
  readonly memo = new Map<string, unknown>();

  /** Forget what was read from disk: `files` after a file was created, deleted or renamed; `all` after profiles or config changed. */
  invalidate(what: "files" | "all"): void {
    this.listings.clear();
    this.discoveries.clear();
    this.verdicts.clear();
    this.memo.clear();
    if (what === "all") {
      this.loaded.clear();
      this.layerCache.clear();
      this.typeLookups.clear();
    }
  }

  /** The workspace folder holding a path (the innermost), else its repository's root, else its folder. */
  rootOf(path: string): string {
    const inside = this.roots
      .filter((r) => path === r || path.startsWith(r.endsWith(sep) ? r : r + sep))
      .sort((a, b) => b.length - a.length)[0];
    if (inside) return inside;
    for (let dir = dirname(path); ;) {
      if (existsSync(join(dir, ".git")) || existsSync(join(dir, CONFIG_FOLDER))) return dir;
      const up = dirname(dir);
      if (up === dir) return dirname(path);
      dir = up;
    }
  }

  /** The profile layers for a doc in `dir`: as `spec-review lint` run there, plus the settings' folders. */
  layers(dir: string): ProfileLayer[] {
    const known = this.layerCache.get(dir);
    if (known) return known;
    const layers: ProfileLayer[] = [{ dir: builtinProfilesDir(), origin: "built-in" }];
    const repo = findRepositoryProfiles(dir);
    if (repo) layers.push({ dir: repo, origin: "repository" });
    const root = this.rootOf(join(dir, "x"));
    for (const p of this.settings.profiles) layers.push({ dir: resolve(root, p), origin: "option" });
    this.layerCache.set(dir, layers);
    return layers;
  }

  /** The profiles that apply in `dir`, loaded once until a profile or setting changes. */
  profiles(dir: string): LoadedProfiles {
    const layers = this.layers(dir);
    const id = JSON.stringify(layers);
    let loaded = this.loaded.get(id);
    if (!loaded) {
      loaded = loadProfileLayers(layers);
      this.loaded.set(id, loaded);
    }
    return loaded;
  }

  /** Every set of profiles loaded so far (their errors are published on the profile files). */
  loadedProfiles(): LoadedProfiles[] {
    return [...this.loaded.values()];
  }

  /** The type `.spec-review/config.yaml` gives a file by its path. */
  typeOf(path: string): string | undefined {
    const dir = dirname(path);
    if (!this.typeLookups.has(dir)) this.typeLookups.set(dir, repoTypes(dir));
    return this.typeLookups.get(dir)?.(path);
  }

  /** The type a markdown text names, else the one the config gives its path; undefined: not a spec doc. */
  specType(doc: MarkdownDoc, path: string): string | undefined {
    const named = doc.frontmatter.error ? classifyMarkdown(doc.text).type : frontmatterType(doc.frontmatter);
    return named ?? this.typeOf(path);
  }

  /** Files of a folder and below (bundle-relative posix), listed once until a file event. */
  filesOf(dir: string): string[] {
    let files = this.listings.get(dir);
    if (!files) {
      files = walkFiles(dir);
      this.listings.set(dir, files);
    }
    return files;
  }

  /** The bundles under a workspace folder, as `spec-review lint <folder>` finds them. */
  bundles(root: string): Discovery {
    let d = this.discoveries.get(root);
    if (!d) {
      const lookup = repoTypes(root);
      const inside = this.settings.profiles
        .map((p) => toPosix(relative(root, resolve(root, p))))
        .filter((rel) => rel !== "" && !rel.startsWith(".."));
      d = scanFolder(root, inside, undefined, undefined, lookup && ((rel) => lookup(join(root, rel))));
      this.discoveries.set(root, d);
    }
    return d;
  }

  /** The bundle a slug names under a root, with its doc's absolute path. */
  bundle(root: string, slug: string): { dir: string; docPath: string; title: string } | undefined {
    const b = this.bundles(root).bundles.find((x) => x.slug === slug);
    if (!b) return undefined;
    const dir = b.slug === "." ? root : join(root, b.slug);
    return { dir, docPath: join(dir, b.doc.path), title: b.title };
  }

  /** The lint of a bundle's doc as saved on disk (hover shows its verdict), kept until a file event. */
  savedLint(root: string, slug: string): { lint: DiskLint; title: string } | undefined {
    const b = this.bundle(root, slug);
    if (!b) return undefined;
    let lint = this.verdicts.get(b.docPath);
    if (!lint) {
      const { profiles } = this.profiles(b.dir);
      if (profiles.length === 0) return undefined;
      try {
        const rel = toPosix(relative(b.dir, b.docPath));
        lint = lintDocOnDisk(b.dir, rel, this.filesOf(b.dir), profiles, randomUUID());
      } catch {
        return undefined;
      }
      this.verdicts.set(b.docPath, lint);
    }
    return { lint, title: docTitle(readFileSync(b.docPath, "utf8")) ?? b.title };
  }

  /**
   * Lint an open buffer as `spec-review lint` lints the file: its bundle is its folder,
   * its profiles those of its repository, and links to other bundles resolve among the
   * bundles of its workspace folder. Undefined when it is no spec doc (or not a file).
   */
  lint(uri: string, text: string, version: number): LintedDoc | undefined {
    const path = uriPath(uri);
    if (!path || !isMarkdownPath(path)) return undefined;
    const doc = parseMarkdown(text);
    const type = this.specType(doc, path);
    if (type === undefined) return undefined;
    const bundleDir = dirname(path);
    const { profiles } = this.profiles(bundleDir);
    if (profiles.length === 0) return undefined;
    const mainPath = basename(path);
    const files = this.filesOf(bundleDir);
    const root = this.rootOf(path);
    const slug = toPosix(relative(root, bundleDir)) || ".";
    const named = doc.frontmatter.error ? classifyMarkdown(text).type : frontmatterType(doc.frontmatter);
    const lint = lintDocOnDisk(
      bundleDir,
      mainPath,
      files.includes(mainPath) ? files : [...files, mainPath],
      profiles,
      "lsp",
      // A workspace folder that is not the repository's root may not hold every target.
      { root, bundlePath: slug === "." ? "" : slug, rootKnown: existsSync(join(root, ".git")) },
      {
        doc,
        brokenLinks: this.brokenLinks(doc, root, slug),
        ...(named === undefined ? { type } : {}),
      },
    );
    const profile = profiles.find((p) => p.key === lint.result.profile_key)!;
    return { uri, path, version, doc, profile, lint, root, bundleDir, slug };
  }

  /** Frontmatter links to bundles that are not among the root's bundles (or name the doc's own). */
  private brokenLinks(doc: MarkdownDoc, root: string, slug: string): BrokenLink[] {
    if (doc.frontmatter.error) return [];
    const links = frontmatterLinks(doc.frontmatter.data).links.filter((l) => !l.external);
    if (links.length === 0) return [];
    const known = new Set(this.bundles(root).bundles.map((b) => b.slug));
    return links
      .filter((l) => l.target === slug || !known.has(l.target))
      .map((l) => ({ kind: l.kind, target: l.target, self: l.target === slug }));
  }
}

/** A doc's title: its first level-1 heading, else its `title` key. */
export function docTitle(text: string): string | undefined {
  const doc = parseMarkdown(text);
  const h1 = doc.sections.find((s) => s.level === 1);
  if (h1) return h1.title;
  const t = doc.frontmatter.data["title"];
  return typeof t === "string" && t.trim() !== "" ? t.trim() : undefined;
}
