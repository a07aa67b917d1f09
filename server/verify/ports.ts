/**
 * What handoff and verification need from features other branches build. Each port has a
 * default that does nothing or answers a clear problem; `createServices` takes the real
 * ones (ServicesConfig `verify`), and `services.verify.ports` can be set once at start.
 *
 * - ThreadPort: threads (issue 15). A blocked handoff report and a verification that finds
 *   a MUST ID missing on a run taken from a handoff open a blocking thread through it.
 *   Default: opens nothing (the report has no `thread_id`; the run's
 *   `opened_blocking_thread` stays false).
 * - RepoReader: the repo host (issue 16). Reads a repository at a commit through the
 *   GitHub App's installation token, else the workspace's repohost token. Default: every
 *   call is 409 `repohost_reader_missing`.
 * - VerificationWaivers: which trace IDs an approved verification waiver excuses in a
 *   repo. Default: the verification_waivers table this branch writes (server/verify/waivers.ts).
 */
import { ApiError } from "../errors.js";
import type { ScanSource } from "./scan/pool.js";

export interface BlockingThreadInput {
  docId: string;
  bundleId: string;
  /** Who opens it (the reporter, or the person who started the verification). */
  createdBy: string;
  title: string;
  /** Markdown. */
  body: string;
  /** The section the thread is about, when known. */
  anchor?: { heading_path: string[] };
  handoffId?: string;
  /** The bundle version the builder took. */
  handoffVersion?: number;
}

export interface ThreadPort {
  /** Opens a blocking thread for humans; answers its id, or undefined when threads are not wired. */
  openBlocking(input: BlockingThreadInput): Promise<{ threadId: string } | undefined>;
}

export const noThreads: ThreadPort = { openBlocking: () => Promise.resolve(undefined) };

/** A repository on the repo host as a target names it. */
export interface RepoRef {
  /** `owner/name`. */
  repo: string;
  /** The host of a URL target (`github.com`, a GitHub Enterprise host). */
  host?: string;
  branch?: string;
  sha?: string;
  pull_request?: number;
  /** A file a URL pointed at (`/blob/<ref>/<file>`); the run still reads the whole commit. */
  file?: string;
}

export interface ResolvedRepo {
  repo: string;
  /** The full commit SHA the run reads. */
  sha: string;
  branch?: string;
  pull_request?: number;
  /** The merge base with the default branch; empty when none. */
  base_sha: string;
  /** Files changed between the base and the commit. */
  changed: string[];
}

export interface RepoReader {
  /**
   * The commit a ref names. Throws ApiError `repo_not_found` (no such repo, or private
   * without a token), `repohost_token_missing`, `commit_not_found`.
   */
  resolve(ref: RepoRef): Promise<ResolvedRepo>;
  /** The files of a commit as a scan source (server/verify/scan/pool.ts). */
  source(repo: string, sha: string): ScanSource;
  /** One file at a commit, or undefined when it has none. */
  readFile(repo: string, sha: string, path: string): Promise<Uint8Array | undefined>;
}

const missing = () =>
  new ApiError(
    "repohost_reader_missing",
    "this service reads no repositories from a repo host (local mode, or hosted mode with no repo host set up); verify a folder or a git repository on disk in local mode",
  );

export const missingRepoReader: RepoReader = {
  resolve: () => Promise.reject(missing()),
  source: () => {
    throw missing();
  },
  readFile: () => Promise.reject(missing()),
};

export interface VerificationWaivers {
  /** Trace IDs of the doc an approved verification waiver excuses in `repo` (as runs name it). */
  approvedTraceIds(docId: string, repo: string): Promise<Set<string>>;
}

export interface VerifyPorts {
  threads: ThreadPort;
  repos: RepoReader;
  waivers?: VerificationWaivers;
}
