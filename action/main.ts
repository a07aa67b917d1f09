/**
 * The GitHub Action: lint the spec bundles a pull request touches (or the `paths` on a
 * push), post the `Build Ready` check run with annotations, keep one sticky comment,
 * write the job summary, the outputs and a SARIF file, and fail the step per `fail-on`.
 * See docs/action.md. `run()` never throws: everything ends in the summary or setFailed.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import * as core from "@actions/core";
import { getOctokit } from "@actions/github";
import { toSarif, type SarifDoc } from "../core/lint/sarif.js";
import { readContext, type RunContext } from "./context.js";
import { ActionError, ActionInputError, permissionReason } from "./errors.js";
import { splitPatterns } from "./glob.js";
import {
  commentMarker,
  listChangedFiles,
  postCheckRun,
  upsertComment,
  type GitHubClient,
  type PostedCheckRun,
  type RepoRef,
} from "./github.js";
import { lintTouched, loadLayers, profileLayers, type BundleResult } from "./lint.js";
import {
  annotationsOf,
  checkSummary,
  commentBody,
  conclusionOf,
  headline,
  isReady,
  jobSummary,
  verdictsJson,
  type FailOn,
  type ReportContext,
} from "./report.js";

export const FAIL_ON: readonly FailOn[] = ["not_build_ready", "never"];
export const DEFAULT_CHECK_NAME = "Build Ready";

export interface Inputs {
  /** Glob patterns selecting bundles; empty selects every bundle. */
  paths: string[];
  failOn: FailOn;
  /** Empty when none was given: then nothing is posted. */
  token: string;
  /** Folder of profiles added to the built-ins and `.spec-review/profiles` (relative to the working directory). */
  profiles: string | undefined;
  checkName: string;
  /** Keep the sticky comment on pull requests. */
  comment: boolean;
  /** Where the SARIF file goes. */
  sarifFile: string;
  /** Where the repository is checked out, relative to GITHUB_WORKSPACE. */
  workingDirectory: string;
  /** Count sidecar waivers although their signatures cannot be checked here (docs/waivers.md). */
  trustSidecarWaivers: boolean;
}

type GetInput = (name: string) => string;

function booleanInput(name: string, value: string, fallback: boolean): boolean {
  if (value === "") return fallback;
  if (/^(true|yes|on)$/i.test(value)) return true;
  if (/^(false|no|off)$/i.test(value)) return false;
  throw new ActionInputError(`${name} must be true or false, not '${value}'`);
}

/** Read and check the inputs (action.yml); a bad value stops the run with what was expected. */
export function parseInputs(
  get: GetInput = (name) => core.getInput(name),
  env: NodeJS.ProcessEnv = process.env,
): Inputs {
  const failOn = get("fail-on").trim() || "not_build_ready";
  if (!FAIL_ON.includes(failOn as FailOn))
    throw new ActionInputError(`fail-on must be one of ${FAIL_ON.join(", ")}, not '${failOn}'`);
  const profiles = get("profiles").trim();
  const sarifFile = get("sarif-file").trim();
  return {
    paths: splitPatterns(get("paths")),
    failOn: failOn as FailOn,
    token: get("token").trim(),
    profiles: profiles === "" ? undefined : profiles,
    checkName: get("check-name").trim() || DEFAULT_CHECK_NAME,
    comment: booleanInput("comment", get("comment").trim(), true),
    sarifFile: sarifFile || join(env["RUNNER_TEMP"] ?? ".", "spec-review.sarif"),
    workingDirectory: get("working-directory").trim() || ".",
    trustSidecarWaivers: booleanInput("trust-sidecar-waivers", get("trust-sidecar-waivers").trim(), false),
  };
}

/** The folder holding action.yml: the built-in profiles and package.json sit beside it. */
export function actionRoot(from: string = dirname(fileURLToPath(import.meta.url))): string {
  let dir = from;
  for (;;) {
    if (existsSync(join(dir, "action.yml")) && existsSync(join(dir, "profiles"))) return dir;
    const up = dirname(dir);
    if (up === dir)
      throw new Error(`cannot find the Action's folder (action.yml and profiles/) above ${from}`);
    dir = up;
  }
}

function toolVersion(root: string): string {
  try {
    return (
      (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version?: string }).version ??
      "0.0.0"
    );
  } catch {
    return "0.0.0";
  }
}

export interface RunDeps {
  /** Make the GitHub client; default @actions/github's getOctokit on GITHUB_API_URL. */
  github?: (token: string, apiUrl: string) => GitHubClient;
  /** Folder of built-in profiles; default `<action root>/profiles`. */
  builtinProfilesDir?: string;
  toolVersion?: string;
}

export interface RunOutcome {
  results: BundleResult[];
  ready: boolean;
  checkRun?: PostedCheckRun;
  /** What could not be done, in words (also in the job summary). */
  notes: string[];
}

const posix = (p: string) => (sep === "/" ? p : p.split(sep).join("/"));

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The whole run. Never throws; a failure ends in core.setFailed. */
export async function run(deps: RunDeps = {}): Promise<RunOutcome | undefined> {
  try {
    return await runAction(parseInputs(), readContext(), deps);
  } catch (err) {
    core.setFailed(err instanceof ActionError ? `${err.name}: ${err.message}` : errorMessage(err));
    if (err instanceof Error && err.stack && !(err instanceof ActionError)) core.debug(err.stack);
    return undefined;
  }
}

export async function runAction(inputs: Inputs, ctx: RunContext, deps: RunDeps = {}): Promise<RunOutcome> {
  const root = resolve(ctx.workspace, inputs.workingDirectory);
  const prefix = posix(relative(ctx.workspace, root));
  if (prefix.startsWith("..") || isAbsolute(prefix))
    throw new ActionInputError(`working-directory '${inputs.workingDirectory}' is outside GITHUB_WORKSPACE`);
  if (!existsSync(root))
    throw new ActionInputError(`working-directory '${inputs.workingDirectory}' does not exist`);

  let builtinDir = deps.builtinProfilesDir;
  let version = deps.toolVersion;
  if (builtinDir === undefined || version === undefined) {
    const own = actionRoot();
    builtinDir ??= join(own, "profiles");
    version ??= toolVersion(own);
  }
  const layers = profileLayers(root, inputs.profiles, builtinDir);
  const { profiles } = loadLayers(layers, root);
  const profilesWords = [
    "the built-in",
    ...layers
      .filter((l) => l.origin !== "built-in")
      .map((l) => `\`${posix(relative(ctx.workspace, l.dir)) || "."}\``),
  ].join(" and ");

  const ref: RepoRef = { owner: ctx.owner, repo: ctx.repo };
  const pr = ctx.pullRequest;
  const notes: string[] = [];
  /** Errors from GitHub other than a missing permission: reported, then the step fails. */
  const failures: string[] = [];
  const gh = inputs.token ? (deps.github ?? defaultGitHub)(inputs.token, ctx.apiUrl) : undefined;
  if (pr && !gh) notes.push("No token was given, so nothing was posted to the pull request.");

  // Which bundles: those the pull request touches, or every one (narrowed by `paths`).
  let changed: string[] | undefined;
  let scope =
    inputs.paths.length > 0
      ? `the bundles under ${inputs.paths.map((p) => `\`${p}\``).join(", ")}`
      : "every bundle";
  if (pr && gh) {
    try {
      const files = await listChangedFiles(gh, ref, pr.number);
      changed =
        prefix === ""
          ? files
          : files.filter((f) => f.startsWith(`${prefix}/`)).map((f) => f.slice(prefix.length + 1));
      scope = `the bundles pull request #${pr.number} touches${inputs.paths.length > 0 ? ` under ${inputs.paths.map((p) => `\`${p}\``).join(", ")}` : ""}`;
    } catch (err) {
      const reason = permissionReason(err, ctx.fork);
      if (!reason) throw err;
      notes.push(`Could not list the pull request's files (${reason}); linted ${scope} instead.`);
    }
  }
  // A profiles folder inside the checkout holds templates that name a type: not specs.
  const exclude = layers
    .filter((l) => l.origin === "option")
    .map((l) => posix(relative(root, l.dir)))
    .filter((rel) => rel !== "" && !rel.startsWith("..") && !isAbsolute(rel));
  const results = lintTouched(root, {
    ...(changed ? { changed } : {}),
    patterns: inputs.paths,
    profiles,
    prefix,
    exclude,
    trustSidecarWaivers: inputs.trustSidecarWaivers,
  });
  const ready = isReady(results);
  core.info(headline(results));
  for (const r of results) {
    for (const f of r.findings)
      core.info(`${f.file}:${f.line}:${f.column} ${f.level} ${f.check} ${f.message}`);
    if (r.problem !== undefined) core.info(`${r.doc}: not a valid bundle: ${r.problem}`);
    core.info(
      `${r.doc}: ${r.result}${r.score === null ? "" : ` score ${r.score}`}, ${r.must} MUST, ${r.should} SHOULD, ${r.info} INFO`,
    );
  }

  // SARIF for github/codeql-action/upload-sarif.
  const sarifPath = resolve(ctx.workspace, inputs.sarifFile);
  const sarifDocs = results.map((r) => r.sarif).filter((d): d is SarifDoc => d !== undefined);
  mkdirSync(dirname(sarifPath), { recursive: true });
  writeFileSync(
    sarifPath,
    `${JSON.stringify(
      toSarif(sarifDocs, {
        toolVersion: version,
        profiles,
        ...(ctx.actionUrl ? { informationUri: ctx.actionUrl } : {}),
      }),
      null,
      2,
    )}\n`,
  );

  const report: ReportContext = {
    scope,
    profiles: profilesWords,
    notes,
    base: { serverUrl: ctx.serverUrl, owner: ctx.owner, repo: ctx.repo, sha: ctx.headSha },
  };

  let checkRun: PostedCheckRun | undefined;
  if (pr && gh) {
    try {
      checkRun = await postCheckRun(gh, ref, {
        name: inputs.checkName,
        headSha: pr.headSha,
        conclusion: conclusionOf(results, inputs.failOn),
        title: headline(results),
        summary: checkSummary(results, report),
        annotations: annotationsOf(results),
        ...(ctx.runUrl ? { detailsUrl: ctx.runUrl } : {}),
      });
      core.info(`Check run '${inputs.checkName}': ${checkRun.url}`);
    } catch (err) {
      const reason = permissionReason(err, ctx.fork);
      if (reason) notes.push(`Could not post the check run '${inputs.checkName}' (${reason}).`);
      else failures.push(`posting the check run failed: ${errorMessage(err)}`);
    }
    if (inputs.comment) {
      const marker = commentMarker(inputs.checkName);
      try {
        const body = commentBody(results, report, {
          marker,
          checkName: inputs.checkName,
          ...(checkRun ? { checkRunUrl: checkRun.url } : {}),
          ...(ctx.runUrl ? { runUrl: ctx.runUrl } : {}),
        });
        const posted = await upsertComment(gh, ref, pr.number, marker, body, results.length > 0);
        if (posted.url) core.info(`Comment ${posted.action}: ${posted.url}`);
      } catch (err) {
        const reason = permissionReason(err, ctx.fork);
        if (reason) notes.push(`Could not post the pull request comment (${reason}).`);
        else failures.push(`posting the comment failed: ${errorMessage(err)}`);
      }
    }
  }
  for (const n of notes) core.warning(n);

  if (process.env["GITHUB_STEP_SUMMARY"])
    await core.summary
      .addRaw(jobSummary(results, { ...report, notes: [...notes, ...failures] }, inputs.checkName))
      .write();
  core.setOutput("build-ready", ready ? "true" : "false");
  core.setOutput("verdicts", verdictsJson(results));
  core.setOutput("sarif-file", sarifPath);

  if (failures.length > 0) core.setFailed(failures.join("\n"));
  else if (!ready && inputs.failOn === "not_build_ready") {
    const notReady = results.filter((r) => r.result !== "build_ready").length;
    core.setFailed(`${notReady} of ${results.length} spec docs are not Build Ready`);
  }
  return { results, ready, ...(checkRun ? { checkRun } : {}), notes };
}

function defaultGitHub(token: string, apiUrl: string): GitHubClient {
  return getOctokit(token, { baseUrl: apiUrl });
}
