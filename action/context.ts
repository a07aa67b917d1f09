/**
 * What the workflow run is about, read from the environment GitHub sets and the event
 * payload file. Read once per run (not at import), so tests can hand in their own env.
 */
import { readFileSync } from "node:fs";
import { ActionEventError } from "./errors.js";

export interface PullRequestInfo {
  number: number;
  /** The commit the check run goes on. */
  headSha: string;
  /** owner/name of the head repository; undefined when the fork was deleted. */
  headRepo: string | undefined;
  baseRepo: string;
  url: string | undefined;
}

export interface RunContext {
  eventName: string;
  owner: string;
  repo: string;
  /** GITHUB_SHA: the commit of the run (a merge commit on pull_request). */
  sha: string;
  /** The commit to report on: the pull request's head, else GITHUB_SHA. */
  headSha: string;
  pullRequest: PullRequestInfo | undefined;
  /** The pull request comes from another repository (its token is read-only). */
  fork: boolean;
  apiUrl: string;
  serverUrl: string;
  /** Link to this workflow run, when GitHub said which one it is. */
  runUrl: string | undefined;
  /** Link to the Action's own repository (GITHUB_ACTION_REPOSITORY), for SARIF rule help. */
  actionUrl: string | undefined;
  workspace: string;
}

export const PULL_REQUEST_EVENTS = new Set(["pull_request", "pull_request_target"]);

interface PullRequestPayload {
  number?: unknown;
  html_url?: unknown;
  head?: { sha?: unknown; repo?: { full_name?: unknown } | null };
  base?: { repo?: { full_name?: unknown } | null };
}

function str(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

function readPayload(path: string | undefined): Record<string, unknown> {
  if (!path) return {};
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new ActionEventError(`cannot read the event payload GITHUB_EVENT_PATH=${path}`, { cause: err });
  }
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== "object" || value === null || Array.isArray(value))
      throw new ActionEventError(`the event payload ${path} is not a JSON object`);
    return value as Record<string, unknown>;
  } catch (err) {
    if (err instanceof ActionEventError) throw err;
    throw new ActionEventError(`the event payload ${path} is not valid JSON`, { cause: err });
  }
}

export function readContext(env: NodeJS.ProcessEnv = process.env): RunContext {
  const eventName = env["GITHUB_EVENT_NAME"] ?? "";
  const payload = readPayload(env["GITHUB_EVENT_PATH"]);
  const [owner = "", repo = ""] = (env["GITHUB_REPOSITORY"] ?? "").split("/");
  const sha = env["GITHUB_SHA"] ?? "";
  const serverUrl = (env["GITHUB_SERVER_URL"] ?? "https://github.com").replace(/\/+$/, "");
  const apiUrl = (env["GITHUB_API_URL"] ?? "https://api.github.com").replace(/\/+$/, "");
  const runId = env["GITHUB_RUN_ID"];
  let pullRequest: PullRequestInfo | undefined;
  const pr = payload["pull_request"] as PullRequestPayload | undefined;
  if (PULL_REQUEST_EVENTS.has(eventName)) {
    const number = typeof pr?.number === "number" ? pr.number : payload["number"];
    const headSha = str(pr?.head?.sha);
    const baseRepo = str(pr?.base?.repo?.full_name) ?? `${owner}/${repo}`;
    if (typeof number !== "number" || !headSha)
      throw new ActionEventError(
        `a ${eventName} event payload must hold pull_request.number and pull_request.head.sha`,
      );
    pullRequest = {
      number,
      headSha,
      headRepo: str(pr?.head?.repo?.full_name),
      baseRepo,
      url: str(pr?.html_url),
    };
  }
  return {
    eventName,
    owner,
    repo,
    sha,
    headSha: pullRequest?.headSha ?? sha,
    pullRequest,
    fork: pullRequest !== undefined && pullRequest.headRepo !== pullRequest.baseRepo,
    apiUrl,
    serverUrl,
    runUrl: runId && owner ? `${serverUrl}/${owner}/${repo}/actions/runs/${runId}` : undefined,
    actionUrl: env["GITHUB_ACTION_REPOSITORY"]
      ? `${serverUrl}/${env["GITHUB_ACTION_REPOSITORY"]}`
      : undefined,
    workspace: env["GITHUB_WORKSPACE"] ?? process.cwd(),
  };
}
