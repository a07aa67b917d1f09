/**
 * Learning a profile from a team's existing docs through the API (`POST /profiles/infer`,
 * a product extension: docs/api-decisions.md, "Learning a profile"). The docs come from a
 * folder of the served tree (local mode) or from a repohost source (hosted mode: its
 * bundles' docs through the store, and the markdown its last sync passed over); the
 * learning itself is `inferProfile` (core/profile/infer.ts), as `spec-review profile infer`
 * does it (cli/profile.ts, docs/profiles.md "Adopting on your existing specs").
 *
 * With `save`, local mode writes the profile where the served folder keeps its own
 * (`.spec-review/profiles/<key>/`) and maps the folder's docs to it in
 * `.spec-review/config.yaml`, records it in the registry as a repository profile (a later
 * change of the files is seeded at the next start, as any repository profile's is) and
 * scans the folder again so the docs become bundles of that type. Hosted mode creates the
 * profile as `POST /profiles` does, which takes an admin.
 */
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import {
  inferProfile,
  type InferDoc,
  type InferredElement,
  type InferredProfile,
} from "../core/profile/infer.js";
import { folderGlob, readInferInputs } from "../node/profile-infer.js";
import { CONFIG_FOLDER, repositoryProfilesDir } from "../node/profiles.js";
import type { Actor } from "./auth/actor.js";
import type { Deps } from "./deps.js";
import { ApiError, BadPathError, NotFoundError } from "./errors.js";
import { REPOSITORY_AUTHOR } from "./profiles.js";
import { REPO_CONFIG_PATH, withTypes } from "./repohost/config.js";
import { safeRelativePath } from "./store/paths.js";

export interface InferRequest {
  key: string;
  source_id?: string;
  folder?: string;
  extends?: string;
  title?: string;
  save?: boolean;
}

export interface InferAnswer {
  key: string;
  profile_yaml: string;
  template: string;
  elements: InferredElement[];
  misfits: Array<{ path: string; why: string }>;
  /** The `types:` entries of `.spec-review/config.yaml` that map the learned docs to the key. */
  types: Record<string, string>;
  /** Markdown files read. */
  docs_read: number;
  saved: boolean;
  /** With `save` in local mode: the files written, relative to the served folder. */
  written?: string[];
}

/** Bundles of a source read at most (each is one read of its main doc, and of its metadata files). */
export const MAX_SOURCE_BUNDLES = 500;
/** A metadata file beside a doc is read when it is at most this big. */
const MAX_METADATA_BYTES = 256 * 1024;

const MARKDOWN = /\.(?:md|markdown)$/i;
const METADATA = /\.(?:ya?ml|json)$/i;
const decoder = new TextDecoder();
const dirOf = (p: string) => (p.includes("/") ? p.slice(0, p.lastIndexOf("/")) : "");
const toPosix = (p: string) => (sep === "/" ? p : p.split(sep).join("/"));

export async function inferFromDocs(d: Deps, actor: Actor, req: InferRequest): Promise<InferAnswer> {
  const parent = parentOf(d, req.extends);
  if (d.mode === "local") {
    if (req.source_id !== undefined || req.folder === undefined)
      throw new ApiError(
        "infer_source",
        "local mode learns from a folder of the served tree: send `folder` (repohost sources exist in hosted mode only)",
      );
    return inferLocal(d, req, parent);
  }
  if (req.folder !== undefined || req.source_id === undefined)
    throw new ApiError(
      "infer_source",
      "a hosted service reads no folders: send the `source_id` of a repohost source (GET /repohost/sources)",
    );
  return inferHosted(d, actor, req, parent);
}

function parentOf(d: Deps, key: string | undefined) {
  if (key === undefined) return undefined;
  const parent = d.profiles.get(key);
  if (!parent)
    throw new ApiError(
      "unknown_profile",
      `no profile ${key} to extend; profiles: ${d.profiles
        .list()
        .map((p) => p.key)
        .join(", ")}`,
      { errors: [{ field: "body.extends", message: "no such profile" }] },
    );
  return parent;
}

function learn(
  docs: readonly InferDoc[],
  req: InferRequest,
  parent: ReturnType<typeof parentOf>,
): InferredProfile {
  try {
    return inferProfile(docs, {
      key: req.key,
      ...(req.extends !== undefined ? { extends: req.extends } : {}),
      ...(req.title ? { title: req.title } : {}),
      ...(parent ? { parent } : {}),
    });
  } catch (err) {
    if (err instanceof Error && /no markdown docs/i.test(err.message))
      throw new ApiError(
        "no_docs_to_learn",
        `${err.message}: ${docs.filter((x) => MARKDOWN.test(x.path)).length} markdown files read`,
      );
    throw err;
  }
}

/** The paths of the markdown docs the profile was learned from (not a README or index beside them). */
function learnedPaths(docs: readonly InferDoc[], result: InferredProfile): string[] {
  const skipped = new Set(
    result.misfits.filter((m) => m.why.includes("not learned from")).map((m) => m.path),
  );
  return docs.map((x) => x.path).filter((p) => MARKDOWN.test(p) && !skipped.has(p));
}

function answerOf(
  req: InferRequest,
  result: InferredProfile,
  docs: readonly InferDoc[],
  types: Record<string, string>,
): InferAnswer {
  return {
    key: req.key,
    profile_yaml: result.yaml,
    template: result.template,
    elements: result.elements,
    misfits: result.misfits,
    types,
    docs_read: docs.filter((x) => MARKDOWN.test(x.path)).length,
    saved: false,
  };
}

/** The deepest folder (posix, "" for the root) holding every path, at or under `base`. */
function commonFolder(paths: readonly string[], base: string): string {
  const [first, ...rest] = paths.map((p) => dirOf(p).split("/").filter(Boolean));
  if (!first) return base;
  let n = first.length;
  for (const segs of rest) {
    let i = 0;
    while (i < n && i < segs.length && segs[i] === first[i]) i++;
    n = i;
  }
  const common = first.slice(0, n).join("/");
  return base === "" || common === base || common.startsWith(`${base}/`) ? common : base;
}

/* ------------------------------------------------------------------------------------ */
/* Local mode: a folder of the served tree                                               */

/** The folder inside the served root: `..`, absolute paths and symlinks out are 400 `bad_path`. */
function servedFolder(root: string, folder: string): { abs: string; rel: string } {
  const trimmed = folder.replace(/\/+$/, "");
  const rel = trimmed === "" || trimmed === "." ? "" : safeRelativePath(trimmed, "folder");
  let real: string;
  try {
    real = realpathSync(rel === "" ? root : join(root, rel));
  } catch {
    throw new ApiError("folder_not_found", `the served folder has no folder ${JSON.stringify(folder)}`);
  }
  if (real !== root && !real.startsWith(root + sep))
    throw new BadPathError(folder, "(folder) leads outside the served folder through a symbolic link");
  if (!statSync(real).isDirectory())
    throw new ApiError("folder_not_found", `${JSON.stringify(folder)} is a file, not a folder`);
  return { abs: real, rel };
}

async function inferLocal(
  d: Deps,
  req: InferRequest,
  parent: ReturnType<typeof parentOf>,
): Promise<InferAnswer> {
  const served = d.served;
  if (!served) throw new ApiError("infer_source", "this service serves no folder");
  const root = served.root;
  const { abs, rel } = servedFolder(root, req.folder!);
  const docs = readInferInputs([abs], root);
  const result = learn(docs, req, parent);
  const glob = folderGlob(rel, learnedPaths(docs, result));
  const types: Record<string, string> = glob ? { [glob]: req.key } : {};
  const answer = answerOf(req, result, docs, types);
  if (!req.save) return answer;

  // Refused before anything is written: a key that is taken, in the registry or on disk.
  const dir = join(repositoryProfilesDir(root), req.key);
  if (d.profiles.get(req.key) || existsSync(dir))
    throw new ApiError(
      "profile_exists",
      `a profile with key ${req.key} already exists${existsSync(dir) ? ` (${toPosix(relative(root, dir))})` : ""}; choose another key`,
    );
  const configPath = join(root, REPO_CONFIG_PATH);
  let config: string | undefined;
  if (Object.keys(types).length > 0) {
    const before = existsSync(configPath) ? readFileSync(configPath, "utf8") : undefined;
    try {
      config = withTypes(before, types);
    } catch (err) {
      throw new ApiError("repo_config_invalid", err instanceof Error ? err.message : String(err));
    }
  }
  // The registry first (it validates the YAML and refuses a key taken meanwhile), then the files.
  await d.profiles.create(
    req.key,
    result.yaml,
    result.template,
    REPOSITORY_AUTHOR,
    `Repository profile, learned from ${rel === "" ? "the served folder" : rel}`,
  );
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "profile.yaml"), result.yaml);
  await writeFile(join(dir, "template.md"), result.template);
  const written = [join(dir, "profile.yaml"), join(dir, "template.md")];
  if (config !== undefined) {
    await mkdir(join(root, CONFIG_FOLDER), { recursive: true });
    await writeFile(configPath, config);
    written.push(configPath);
  }
  // The watcher passes over `.spec-review/`: scan now, so the mapped docs become bundles.
  await served.rescan();
  return { ...answer, saved: true, written: written.map((f) => toPosix(relative(root, f))) };
}

/* ------------------------------------------------------------------------------------ */
/* Hosted mode: a repohost source                                                        */

async function sourceDocs(
  d: Deps,
  sourceId: string,
): Promise<{ docs: InferDoc[]; folder: string; label: string }> {
  const repohost = d.repohost;
  if (!repohost) throw new NotFoundError("source", sourceId);
  const source = await repohost.get(sourceId);
  const docs = new Map<string, InferDoc>();
  const ids = (await repohost.store.liveBundles(source.id)).slice(0, MAX_SOURCE_BUNDLES);
  for (const rec of await d.store.bundlesByIds(ids)) {
    const folder = rec.bundle.origin?.path ?? (rec.bundle.slug === "." ? "" : rec.bundle.slug);
    const prefix = folder === "" ? "" : `${folder}/`;
    const mainDir = dirOf(rec.doc.path);
    for (const f of await d.store.manifest(rec.head.id)) {
      const path = prefix + f.path;
      // The main doc and the metadata beside it are read; other files only exist (links to them resolve).
      const read =
        f.path === rec.doc.path ||
        (METADATA.test(f.path) && dirOf(f.path) === mainDir && f.size <= MAX_METADATA_BYTES);
      const text = read ? decoder.decode((await d.store.fileBytes(rec.head.id, f.path)).bytes) : "";
      docs.set(path, { path, text });
    }
  }
  // The markdown the source's last full read passed over (no type): most often the docs to learn from.
  const store = repohost.store;
  if (!store.skippedOf(source.id)?.length && !store.hasScan(source.id))
    await store.sync(source.id, { full: true });
  for (const path of store.skippedOf(source.id) ?? []) {
    if (docs.has(path)) continue;
    const text = await store.skippedText(source, path);
    if (text !== undefined) docs.set(path, { path, text });
  }
  const label = `${source.owner}/${source.repo}${source.path === "" ? "" : `/${source.path}`} (${source.branch})`;
  return { docs: [...docs.values()], folder: source.path, label };
}

async function inferHosted(
  d: Deps,
  actor: Actor,
  req: InferRequest,
  parent: ReturnType<typeof parentOf>,
): Promise<InferAnswer> {
  // Creating a profile takes an admin (`POST /profiles`): refused before the source is read.
  const admin = actor.role === "admin" ? actor : undefined;
  if (req.save && !admin)
    throw new ApiError(
      "forbidden",
      "saving a learned profile creates a profile, which takes an admin; without `save` the profile is answered for download",
    );
  if (req.save && d.profiles.get(req.key))
    throw new ApiError("profile_exists", `a profile with key ${req.key} already exists; choose another key`);
  const { docs, folder, label } = await sourceDocs(d, req.source_id!);
  const result = learn(docs, req, parent);
  // A source reads a whole repo or folder: the glob names the folder its learned docs share.
  const learned = learnedPaths(docs, result);
  const glob = folderGlob(commonFolder(learned, folder), learned);
  const types: Record<string, string> = glob ? { [glob]: req.key } : {};
  const answer = answerOf(req, result, docs, types);
  if (!req.save || !admin) return answer;
  await d.profiles.create(
    req.key,
    result.yaml,
    result.template,
    admin.id,
    `Learned from the docs of ${label}`,
  );
  return { ...answer, saved: true };
}
