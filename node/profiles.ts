/**
 * The one reader of profile folders on disk, for the CLI, the Action and the server.
 *
 * Profiles come in layers, later ones adding to and replacing earlier ones by key:
 * the built-ins shipped with spec-review, then the repository's own
 * (`.spec-review/profiles/<key>/profile.yaml` + `template.md`, committed), then any
 * folder named on the command line (`--profiles`) or in the Action's `profiles` input.
 * A repository profile with a built-in's key replaces that built-in for the repository.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import {
  loadProfile,
  parseProfile,
  type ParentProfile,
  type ParentResolver,
  type ParseProfileOptions,
  type ProfileError,
  type ProfileParseResult,
  type ProfileSource,
} from "../core/profile/load.js";
import type { Profile } from "../core/profile/schema.js";
import { packageRoot } from "./package.js";

/** The repository's configuration folder (`config.yaml`, `profiles/`); local mode keeps its data in `data/`. */
export const CONFIG_FOLDER = ".spec-review";

/** Where a repository (or served folder) keeps its own profiles. */
export function repositoryProfilesDir(root: string): string {
  return join(root, CONFIG_FOLDER, "profiles");
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** A profile source over a folder holding `<key>/profile.yaml` and `<key>/template.md`. */
export function folderProfileSource(dir: string): ProfileSource {
  return {
    keys: () => {
      let entries;
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch {
        return [];
      }
      return entries
        .filter(
          (d) => d.isDirectory() && !d.name.startsWith(".") && existsSync(join(dir, d.name, "profile.yaml")),
        )
        .map((d) => d.name)
        .sort();
    },
    read: (key, file) => {
      try {
        return readFileSync(join(dir, key, file), "utf8");
      } catch {
        return undefined;
      }
    },
  };
}

/**
 * Parsed built-in profiles, written by `npm run build` (scripts/compile-profiles.mjs) to
 * `dist/profiles.json`: parsing and validating the YAML costs a cold process about a
 * quarter of a small lint run (docs/performance.md). An entry is used only for the exact
 * text it was made from (its SHA-256 and key), so an edited or unknown profile is parsed.
 */
type Compiled = Record<string, { sha256: string; profile: string }>;
let compiled: Compiled | null | undefined;

export function compiledProfilesPath(): string {
  return join(packageRoot(), "dist", "profiles.json");
}

function compiledProfiles(): Compiled | null {
  if (compiled === undefined) {
    try {
      compiled = JSON.parse(readFileSync(compiledProfilesPath(), "utf8")) as Compiled;
    } catch {
      compiled = null; // not built, or no package folder (the Action's bundle): parse
    }
  }
  return compiled;
}

/** Uses this table of parsed profiles (`null`: none) instead of `dist/profiles.json`. */
export function useCompiledProfiles(table: Compiled | null): void {
  compiled = table;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** `parseProfile`, answered from the parsed built-ins when the text is one of them. */
export function parseProfileFast(yamlText: string, options: ParseProfileOptions = {}): ProfileParseResult {
  const entry = options.key ? compiledProfiles()?.[options.key] : undefined;
  if (entry && entry.sha256 === sha256(yamlText)) {
    const profile = JSON.parse(entry.profile) as Profile;
    if (options.templateText !== undefined) profile.templateText = options.templateText;
    return { ok: true, profile };
  }
  return parseProfile(yamlText, options);
}

/** The parsed form of every valid profile in a folder, as `dist/profiles.json` holds it. */
export function compileProfiles(dir: string): Compiled {
  const source = folderProfileSource(dir);
  const out: Compiled = {};
  for (const key of source.keys()) {
    const yaml = source.read(key, "profile.yaml")!;
    const parsed = parseProfile(yaml, { key });
    if (parsed.ok) out[key] = { sha256: sha256(yaml), profile: JSON.stringify(parsed.profile) };
  }
  return out;
}

/** True when the folder holds at least one `<key>/profile.yaml`. */
export function holdsProfiles(dir: string): boolean {
  return isDirectory(dir) && folderProfileSource(dir).keys().length > 0;
}

/**
 * The repository profiles that apply to `start`: the nearest `.spec-review/profiles`
 * folder at `start` or above it, not looking past the repository's root (a folder
 * holding `.git`). Undefined when there is none.
 */
export function findRepositoryProfiles(start: string): string | undefined {
  let dir = resolve(start);
  for (;;) {
    const candidate = repositoryProfilesDir(dir);
    if (isDirectory(candidate)) return candidate;
    if (existsSync(join(dir, ".git"))) return undefined;
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

/** Where a layer of profiles comes from. */
export type ProfileOrigin = "built-in" | "repository" | "option";

export interface ProfileLayer {
  dir: string;
  origin: ProfileOrigin;
}

/** An error of one profile file, with the file's full path. */
export interface LayerError extends ProfileError {
  /** Absolute path of the file at fault. */
  file: string;
}

export interface LoadedProfiles {
  /** Usable profiles, one per key (the last layer holding a key wins), sorted by key. */
  profiles: Profile[];
  /** Profiles that do not load: nothing of them is used. */
  errors: LayerError[];
  /** Which layer each profile came from. */
  origins: Map<string, ProfileLayer>;
}

/**
 * What `extends: <key>` names, for a profile of these layers: the same key names the
 * profile it replaces (the nearest layer below its own, a built-in for a repository's
 * `prd`); another key names the profile the layers end with. `file` (absolute) tells them
 * apart, so a cycle is found.
 */
export function layersParentResolver(layers: readonly ProfileLayer[]): ParentResolver {
  const sources = layers.map((l) => folderProfileSource(l.dir));
  const fileOf = (i: number, key: string) => join(layers[i]!.dir, key, "profile.yaml");
  const at = (i: number, key: string): ParentProfile | undefined => {
    const yaml = sources[i]!.read(key, "profile.yaml");
    if (yaml === undefined) return undefined;
    const named = /^template:[ \t]*["']?([^"'#\n]+?)["']?[ \t]*(?:#.*)?$/m.exec(yaml)?.[1];
    const template = sources[i]!.read(key, named ?? "template.md");
    return { yaml, file: fileOf(i, key), ...(template !== undefined ? { template } : {}) };
  };
  return (key, from) => {
    // The same key: the profile this one replaces, in the layers below its own.
    let below = layers.length;
    if (key === from.key && from.file !== undefined)
      layers.forEach((_, i) => {
        if (resolve(from.file!) === resolve(fileOf(i, key))) below = i;
      });
    for (let i = below - 1; i >= 0; i--) {
      const p = at(i, key);
      if (p) return p;
    }
    return undefined;
  };
}

/** Load profile layers; later layers add to and replace earlier ones by key. */
export function loadProfileLayers(layers: readonly ProfileLayer[]): LoadedProfiles {
  const byKey = new Map<string, { profile: Profile; layer: ProfileLayer }>();
  const errors: LayerError[] = [];
  const parent = layersParentResolver(layers);
  for (const [i, layer] of layers.entries()) {
    const source = folderProfileSource(layer.dir);
    for (const key of source.keys()) {
      const file = join(layers[i]!.dir, key, "profile.yaml");
      const r = loadProfile(source, key, (text, options) =>
        parseProfileFast(text, { ...options, parent, file }),
      );
      if (r.ok) byKey.set(key, { profile: r.profile, layer });
      else
        errors.push(
          ...r.errors.map((e) => ({
            ...e,
            file: e.file === file ? file : join(layer.dir, e.file ?? key),
          })),
        );
    }
  }
  const keys = [...byKey.keys()].sort();
  return {
    profiles: keys.map((k) => byKey.get(k)!.profile),
    errors,
    origins: new Map(keys.map((k) => [k, byKey.get(k)!.layer])),
  };
}

const cache = new Map<string, LoadedProfiles>();
/** `loadProfileLayers`, once per process for the same layers (the CLI's worker threads each load once). */
export function loadProfileLayersCached(layers: readonly ProfileLayer[]): LoadedProfiles {
  const id = JSON.stringify(layers.map((l) => [resolve(l.dir), l.origin]));
  let loaded = cache.get(id);
  if (!loaded) {
    loaded = loadProfileLayers(layers);
    cache.set(id, loaded);
  }
  return loaded;
}

/** The text of one profile folder entry, as the server stores it. */
export interface ProfileFiles {
  key: string;
  yaml: string;
  template: string;
  /** The layer the files come from. */
  origin: ProfileOrigin;
  /** True when a built-in has this key (the files may be a repository's that replace it). */
  builtin: boolean;
}

/**
 * The raw files of every profile of the layers (later layers replace earlier ones by
 * key), for the server to seed and version. Parsing is left to the caller; only the
 * template's file name is read from the YAML.
 */
export function readProfileFiles(layers: readonly ProfileLayer[]): ProfileFiles[] {
  const byKey = new Map<string, ProfileFiles>();
  for (const layer of layers) {
    const source = folderProfileSource(layer.dir);
    for (const key of source.keys()) {
      const yaml = source.read(key, "profile.yaml");
      if (yaml === undefined) continue;
      const parsed = parseProfileFast(yaml, { key });
      const template = source.read(key, parsed.ok ? parsed.profile.template : "template.md") ?? "";
      const builtin = layer.origin === "built-in" || (byKey.get(key)?.builtin ?? false);
      byKey.set(key, { key, yaml, template, origin: layer.origin, builtin });
    }
  }
  return [...byKey.values()].sort((a, b) => (a.key < b.key ? -1 : 1));
}
