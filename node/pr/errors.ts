/** The Action's own errors: each with a stable code, keeping its cause. */
export type ActionErrorCode = "input_invalid" | "event_invalid";

export class ActionError extends Error {
  readonly code: ActionErrorCode;
  constructor(code: ActionErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ActionError";
    this.code = code;
  }
}

/** An input (or a folder an input names) is not usable. */
export class ActionInputError extends ActionError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("input_invalid", message, options);
    this.name = "ActionInputError";
  }
}

/** The workflow event file is missing or not the JSON GitHub writes. */
export class ActionEventError extends ActionError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("event_invalid", message, options);
    this.name = "ActionEventError";
  }
}

/** The HTTP status of an Octokit request error, if it is one. */
export function httpStatus(err: unknown): number | undefined {
  if (typeof err === "object" && err !== null && "status" in err && typeof err.status === "number")
    return err.status;
  return undefined;
}

/**
 * Why a call to GitHub was refused, in words for the summary, when the token lacks the
 * permission (403, or 404 for a resource a read-only token cannot see); else undefined.
 */
export function permissionReason(err: unknown, fork: boolean): string | undefined {
  const status = httpStatus(err);
  if (status !== 403 && status !== 404) return undefined;
  const message = err instanceof Error ? err.message.split("\n")[0] : "";
  const why = fork
    ? "the pull request comes from a fork, and GitHub gives workflows of fork pull requests a read-only token"
    : "the token lacks the permission (grant `checks: write` and `pull-requests: write` in the workflow's `permissions`)";
  return `${status}${message ? ` ${message}` : ""}: ${why}`;
}
