/**
 * The store seam: what routes and services need from wherever a bundle's files live
 * (a local folder today; the database (`db`) and a git repository host (`repohost`)
 * next). Every answer is a plain record; no database row leaves a store.
 */
import type { EventEmitter } from "node:events";
import type { DiscoveryProblem } from "../../core/bundle/discover.js";
import type { DocProblem, DocStatus, SourceKind, Visibility } from "../db/schema.js";

export type { DocProblem, DocStatus, SourceKind, Visibility };

export interface Limits {
  maxFileMb: number;
  maxBundleMb: number;
}

/** A version of a bundle's file set, as the contract shows it. */
export interface VersionRecord {
  id: string;
  number: number;
  created_by: string;
  message: string;
  created_at: string;
}

/** One file of a version. */
export interface FileEntry {
  path: string;
  size: number;
  sha256: string;
}

/** One file of a version as a listing shows it: also whether its bytes are UTF-8 text. */
export interface ListedFile extends FileEntry {
  utf8: boolean;
}

export interface BundleInfo {
  id: string;
  sourceKind: SourceKind;
  slug: string;
  title: string;
  visibility: Visibility | null;
  /** Who created the bundle (its author); null for a bundle found on disk. */
  createdBy: string | null;
  updatedAt: Date;
  /**
   * Archived (its repohost source was deleted): readable as before, left out of lists unless
   * asked, every write refused (409 `bundle_archived`). Absent for a bundle that is not.
   */
  archived?: boolean;
  /** Where a repohost bundle is read from, and its draft (contract 2.2); absent for other kinds. */
  origin?: RepohostOrigin;
}

export interface RepohostOrigin {
  repo: string;
  branch: string;
  path: string;
  draft: boolean;
  ahead: boolean;
  pr_url?: string;
}

export interface DocInfo {
  id: string;
  bundleId: string;
  /** Path of the spec doc inside its bundle. */
  path: string;
  profileKey: string;
  status: DocStatus;
  problems: DocProblem[] | null;
  updatedAt: Date;
}

/** A bundle with its spec doc and its current version. */
export interface DocRecord {
  bundle: BundleInfo;
  doc: DocInfo;
  head: VersionRecord;
}

export interface WriteResult {
  version: VersionRecord;
  changed: boolean;
}

/** One change of a write: new bytes for a path, or `null` to remove it. */
export interface FileChange {
  path: string;
  bytes: Uint8Array | null;
}

export interface VersionEvent {
  bundleId: string;
  docId: string;
  version: VersionRecord;
  /** Path of the spec doc in this version. */
  mainPath: string;
  /** The spec doc's bytes when the writer had them at hand (saves), so readers need not load them. */
  mainBytes?: Uint8Array;
  /** One of many versions recorded at once (a first scan): its lint is bulk work. */
  bulk?: boolean;
  /** The doc's review status when the version was recorded, when the store read it. */
  docStatus?: DocStatus;
}

/**
 * A write that changes the spec doc is about to record a version (sent while its bytes go
 * to disk or to the database), so the lint of the new text can start before the version
 * exists.
 */
export interface WritingEvent {
  bundleId: string;
  docId: string;
  /** Path of the spec doc in the version being written. */
  mainPath: string;
  /** Its new bytes: the same array the version event will carry. */
  mainBytes: Uint8Array;
  /** Every path of the version being written. */
  paths: string[];
  /** The doc's type as the version records it. */
  profileKey: string;
}

export interface StoreEvents {
  /** A new version of a bundle. */
  version: [VersionEvent];
  /** A version is being written (the write may still fail: then no version event follows). */
  writing: [WritingEvent];
  /** Anything else a bundle list shows changed (doc fields, presence). */
  changed: [{ bundleId: string }];
}

/** What two versions hold, for a diff: the file lists, and bytes loaded on demand. */
export interface DiffInputs {
  from: FileEntry[];
  to: FileEntry[];
  /** Bytes of a blob by sha256. */
  bytes(sha256: string): Promise<Uint8Array>;
}

export interface DismissedDoc {
  path: string;
  created_by: string;
  created_at: string;
}

/**
 * Everything routes and services ask of a bundle store. `LocalStore` implements it
 * over a folder, `DbStore` (store/db/) in the database; each implementation runs the
 * suite in test/server/store/.
 *
 * Rules every implementation keeps: a write names the version it is based on and fails
 * with `version_conflict` (changing nothing) when that is no longer the head; versions
 * are immutable and read back exactly; a write that changes nothing makes no version;
 * request paths are checked and normalized to NFC (`safeRelativePath`).
 */
export interface BundleStore {
  readonly events: EventEmitter<StoreEvents>;

  start(): Promise<void>;
  stop(): Promise<void>;
  /** The size limits in force now (workspace settings). */
  currentLimits(): Promise<Limits>;

  // ------------------------------------------------------------------ bundles
  /**
   * Visible bundles after the slug `after`, by slug; archived bundles only with `archived`
   * (visible: not gone from disk or from its branch).
   */
  listBundles(opts: { limit: number; after?: string; archived?: boolean }): Promise<DocRecord[]>;
  /** Visible bundles among `ids` (any order), archived ones included (`bundle.archived`). */
  bundlesByIds(ids: readonly string[]): Promise<DocRecord[]>;
  /** A visible bundle (an archived one too), or 404 `not_found`. */
  bundle(bundleId: string): Promise<DocRecord>;
  /** A visible doc with its bundle (an archived one too), or 404 `not_found`. */
  doc(docId: string): Promise<DocRecord>;
  /** The bundle of a doc, or 404 `not_found`. */
  bundleIdOfDoc(docId: string): Promise<string>;
  /** Bring one bundle up to date with its source before a read or a write. */
  refreshBundle(bundleId: string): Promise<void>;
  /** Problems of the last discovery: folders that look like bundles but are not valid ones. */
  problems(): DiscoveryProblem[];
  /** Version count, file count and bytes of the current version (the delete plan). */
  bundleStats(bundleId: string): Promise<{ versions: number; files: number; bytes: number }>;
  /** Delete a bundle's files and every record of it. */
  deleteBundle(bundleId: string): Promise<{ files: number }>;
  /** True when a new bundle folder `name` would clash with what exists (in any letter case). */
  nameTaken(name: string): Promise<boolean>;
  /**
   * Add a new folder `name` holding `files` (paths relative to it) and register the
   * bundles in it; answers their ids. `bundle_exists` when the name is taken. `author`:
   * who the first versions are by, where the store records it (the database store; the
   * local store records what it finds on disk as by `local`).
   */
  addFolder(
    name: string,
    files: ReadonlyMap<string, Uint8Array>,
    opts?: { author?: string },
  ): Promise<string[]>;

  // ----------------------------------------------------------------- versions
  /** The version `ref` names (its id, or its number), or the head; 400 `bad_version` otherwise. */
  resolveVersion(bundleId: string, ref?: string): Promise<VersionRecord>;
  /** Versions newest first; `before` is a version number. */
  versions(bundleId: string, opts: { limit: number; before?: number }): Promise<VersionRecord[]>;
  /** The files of a version, by path, with whether each is UTF-8 text (no bytes loaded). */
  files(versionId: string): Promise<ListedFile[]>;
  /** The files of a version, by path (cheap for the head: kept in memory). */
  manifest(versionId: string): Promise<FileEntry[]>;
  /** One file of a version, or 404 `file_not_found`. */
  fileBytes(versionId: string, path: string): Promise<{ entry: FileEntry; bytes: Uint8Array }>;
  /** All files of a version with their bytes. */
  snapshot(versionId: string): Promise<Map<string, Uint8Array>>;
  /** What a diff of two versions needs, without loading a byte. */
  diffInputs(fromVersionId: string, toVersionId: string): Promise<DiffInputs>;
  /** True when the current version of the doc's bundle has a file at `path`. */
  hasFile(docId: string, path: string): Promise<boolean>;

  // ------------------------------------------------------------------- writes
  /**
   * Apply changes as one new version on `base`. `version_conflict` when `base` is not the
   * head (nothing changes); `file_not_found` when a removed path is not there.
   */
  write(
    docId: string,
    base: string,
    changes: FileChange[],
    author: string,
    message: string,
  ): Promise<WriteResult>;
  /** Rename or move a file inside the bundle as one version (base checked first). */
  rename(docId: string, base: string, from: string, to: string, author: string): Promise<WriteResult>;

  // --------------------------------------------------- skipped and dismissed
  /** Markdown outside every bundle that names no type and nobody dismissed. */
  skipped(): Promise<string[]>;
  /**
   * Write a `type` into skipped markdown files (all picks or none) and register the
   * bundles they become; answers their ids.
   */
  adoptSkipped(
    picks: Array<{ path: string; profile: string }>,
    write: (text: string, type: string) => string,
  ): Promise<string[]>;
  dismissed(): Promise<DismissedDoc[]>;
  dismiss(path: string, by: string): Promise<DismissedDoc>;
  undismiss(path: string): Promise<boolean>;
}
