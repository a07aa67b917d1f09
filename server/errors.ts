/**
 * Domain errors. Each carries a stable `code` (listed in docs/errors.md) and the
 * HTTP status it maps to; one `app.onError` turns them into problem+json.
 */

export const ERROR_CODES = {
  validation_failed: { status: 400, title: "The request is not valid" },
  invalid_json: { status: 400, title: "The body is not valid JSON" },
  bad_path: { status: 400, title: "The path is not allowed" },
  empty_body: { status: 400, title: "The request has no body" },
  bad_version: { status: 400, title: "No such version of this bundle" },
  bad_cursor: { status: 400, title: "The cursor is not valid" },
  profile_invalid: { status: 400, title: "The profile is not valid" },
  unknown_profile: { status: 400, title: "No such profile" },
  unknown_backend: { status: 400, title: "No such model backend" },
  import_source: { status: 400, title: "Send exactly one of file, text or files" },
  bad_zip: { status: 400, title: "The .zip file cannot be read" },
  zip_symlink: { status: 400, title: "The .zip file holds a symbolic link" },
  duplicate_path: { status: 400, title: "Two files of the import have the same path" },
  no_spec_doc: { status: 400, title: "The import holds no spec doc" },
  // learning a profile from existing docs (POST /profiles/infer, docs/profiles.md)
  infer_source: {
    status: 400,
    title: "Name a folder of the served tree (local mode) or a repohost source (hosted mode) to learn from",
  },
  no_docs_to_learn: { status: 400, title: "No markdown doc with sections to learn a profile from" },
  unauthenticated: { status: 401, title: "Sign in first" },
  forbidden: { status: 403, title: "Not allowed for this caller" },
  cross_origin: { status: 403, title: "A web page of another origin may not change data here" },
  not_found: { status: 404, title: "Not found" },
  route_not_found: { status: 404, title: "No such route" },
  file_not_found: { status: 404, title: "No such file in this version" },
  method_not_allowed: { status: 405, title: "Method not allowed" },
  version_conflict: { status: 409, title: "The bundle has a newer version" },
  file_exists: { status: 409, title: "A file already exists at that path" },
  main_doc_required: { status: 409, title: "The bundle's spec doc cannot be removed this way" },
  two_spec_docs: { status: 409, title: "A folder would hold two spec docs" },
  already_typed: { status: 409, title: "The file already names a type" },
  bundle_exists: { status: 409, title: "A bundle with that name already exists" },
  profile_exists: { status: 409, title: "A profile with that key already exists" },
  profile_builtin: { status: 409, title: "A built-in profile cannot be deleted" },
  profile_in_use: { status: 409, title: "Bundles still name this profile" },
  backend_in_use: { status: 409, title: "A role still uses this model backend" },
  mcp_host_taken: { status: 409, title: "Another MCP connection reads that host" },
  nothing_to_adopt: { status: 409, title: "The doc names its type and size already" },
  misdirected_request: { status: 421, title: "This server does not answer to that host name" },
  file_too_large: { status: 413, title: "File too large" },
  body_too_large: { status: 413, title: "The request body is over the server's limit" },
  bundle_too_large: { status: 413, title: "Bundle too large" },
  zip_bomb: { status: 413, title: "The .zip file inflates out of proportion" },
  unsupported_media_type: { status: 415, title: "Unsupported media type" },
  unsupported_file_type: { status: 415, title: "The file is not a .md or .zip file" },
  model_not_configured: { status: 409, title: "A review role has no model" },
  budget_exceeded: { status: 409, title: "The monthly token budget is used up" },
  patch_conflict: { status: 409, title: "The patch no longer applies" },
  fix_not_suggested: { status: 409, title: "No fix was suggested for this finding" },
  model_failed: { status: 502, title: "The model did not give a usable answer" },
  // traceability (docs/trace.md)
  unknown_trace_id: { status: 400, title: "No such trace ID to cover or insert" },
  section_not_found: { status: 400, title: "The doc has no section with that heading path" },
  trace_id_taken: { status: 409, title: "The trace ID is already used in the doc" },
  link_cycle: { status: 409, title: "The links would form a cycle" },
  link_not_found: { status: 404, title: "The doc has no such link" },
  link_not_removable: { status: 409, title: "The link follows from a profile rule and cannot be removed" },
  frontmatter_unreadable: { status: 409, title: "The doc's frontmatter is not valid YAML" },
  mcp_unavailable: { status: 502, title: "The MCP server could not be reached" },
  internal_error: { status: 500, title: "Internal server error" },
  not_implemented: { status: 501, title: "Not implemented yet" },
  // accounts and sign-in (docs/accounts.md)
  weak_password: { status: 400, title: "The password does not meet the password rule" },
  invalid_credentials: { status: 401, title: "Wrong email address or password" },
  invalid_token: { status: 401, title: "The API token is unknown, revoked or expired" },
  origin_required: {
    status: 403,
    title: "A change made with a cookie needs an Origin or Sec-Fetch-Site header",
  },
  invite_not_found: { status: 404, title: "No such invite" },
  reset_link_not_found: { status: 404, title: "No such reset link" },
  email_taken: { status: 409, title: "An account with that email address exists" },
  invite_not_revocable: { status: 409, title: "Only an unused invite can be revoked" },
  last_admin: { status: 409, title: "The workspace would have no admin left" },
  // GitHub logins of accounts (docs/accounts.md, "GitHub login")
  github_link_unavailable: { status: 503, title: "Linking a GitHub login is not set up on this service" },
  oauth_state_invalid: { status: 400, title: "The GitHub authorization's state is not valid" },
  github_oauth_failed: { status: 502, title: "GitHub did not complete the authorization" },
  github_login_taken: { status: 409, title: "The GitHub login is linked to another account" },
  hosted_only: { status: 409, title: "Accounts exist in hosted mode only" },
  invite_used: { status: 410, title: "The invite was used" },
  invite_expired: { status: 410, title: "The invite has expired" },
  invite_revoked: { status: 410, title: "The invite was revoked" },
  reset_link_used: { status: 410, title: "The reset link was used" },
  reset_link_expired: { status: 410, title: "The reset link has expired" },
  reset_link_revoked: { status: 410, title: "A newer reset link replaced this one" },
  rate_limited: { status: 429, title: "Too many attempts; wait and try again" },
  // ---- verify: handoff and verification (docs/handoff.md, docs/verification.md) ----
  handoff_not_ready: {
    status: 409,
    title: "The verdict is not a current Build Ready; send acknowledged: true to take the packet anyway",
  },
  handoff_not_found: { status: 404, title: "No such handoff" },
  verification_target_missing: {
    status: 400,
    title: "Name a target: the bundle has no implemented-by link and no earlier run",
  },
  target_unrecognised: { status: 400, title: "The target names no repo, commit or folder" },
  bad_sha: { status: 400, title: "The sha is not a commit id" },
  commit_not_found: { status: 404, title: "The repository has no such commit" },
  folder_not_found: { status: 404, title: "No such folder" },
  folder_local_only: { status: 400, title: "A folder can be verified in local mode only" },
  folder_not_allowed: { status: 403, title: "The folder is outside what local mode may read" },
  not_a_git_repo: { status: 400, title: "A sha needs a git repository; the folder is not one" },
  repo_not_found: {
    status: 404,
    title: "The repo host has no such repo, branch or folder, or it is private and no token reads it",
  },
  repohost_token_missing: {
    status: 409,
    title: "No App installation or repohost token can read this repository",
  },
  repohost_reader_missing: { status: 409, title: "This service reads no repositories from a repo host" },
  claim_file_not_found: { status: 400, title: "A claim names a file the commit does not have" },
  claim_quote_not_found: { status: 400, title: "A claim's quote is not in its file" },
  claim_quote_ambiguous: { status: 400, title: "A claim's quote appears in its file more than once" },
  verification_waiver_exists: {
    status: 409,
    title: "This trace ID already has an open or approved waiver in this repo",
  },
  // threads (docs/threads.md)
  anchor_file_not_found: { status: 400, title: "The anchor names a file the doc's bundle does not have" },
  anchor_out_of_range: { status: 400, title: "The anchor's offsets lie outside the file" },
  anchor_quote_not_found: { status: 400, title: "The anchor's quote is not in the file" },
  anchor_finding_not_found: { status: 400, title: "The doc has no such finding" },
  unknown_check: { status: 400, title: "The profile has no such check" },
  guest_humans_only: { status: 403, title: "A guest opens threads for humans only" },
  message_not_in_thread: { status: 400, title: "The message belongs to another thread" },
  already_decided: { status: 409, title: "The message is the thread's decision already" },
  thread_resolved: { status: 409, title: "The thread is resolved; reopen it first" },
  // waivers, acknowledgements, review status and approval (docs/waivers.md, docs/review-status.md)
  reason_too_short: { status: 400, title: "A waiver needs a reason of at least 20 characters" },
  waiver_target: { status: 400, title: "Name exactly one of finding_id, trace_id or standalone" },
  finding_not_found: { status: 404, title: "The doc's latest review has no such finding" },
  unknown_reviewer: { status: 400, title: "A reviewer is not a member of the workspace who can approve" },
  own_waiver: { status: 403, title: "The requester cannot approve their own waiver" },
  not_an_approver: { status: 403, title: "The profile's waiver policy does not let this caller approve" },
  author_cannot_approve: { status: 403, title: "The author of a doc cannot approve it" },
  must_not_waivable: {
    status: 409,
    title: "The profile's waiver policy does not let MUST findings be waived",
  },
  waiver_exists: { status: 409, title: "A waiver for this is already requested or approved" },
  waiver_not_open: { status: 409, title: "The waiver is not waiting for a decision" },
  waiver_ambiguous: { status: 409, title: "The waiver's text fits more than one finding" },
  already_approved: { status: 409, title: "This caller has approved it already" },
  not_an_acknowledgement: { status: 409, title: "Only an approved acknowledgement can be withdrawn" },
  not_build_ready: { status: 409, title: "Approval needs a current Build Ready verdict" },
  second_person_needed: { status: 409, title: "Approval needs a second person; local mode has one" },
  // ---- app: repohost (GitHub) connection, sources, drafts (docs/app.md) ----
  repohost_not_configured: { status: 409, title: "No repohost token or App installation reads this repo" },
  repohost_token_rejected: { status: 400, title: "The repo host refused the token" },
  repohost_unreachable: { status: 502, title: "The repo host could not be reached or answered an error" },
  repohost_rate_limited: {
    status: 503,
    title: "The repo host's rate limit asks to wait; the read resumes by itself",
  },
  bad_source_url: { status: 400, title: "The source URL does not name a repo, branch or folder" },
  source_exists: { status: 409, title: "A source already reads that repo, branch and folder" },
  no_draft: { status: 409, title: "The bundle has no draft" },
  no_accepted_types: { status: 409, title: "No types are accepted for the source's skipped docs" },
  repo_config_invalid: {
    status: 409,
    title: "The repository's .spec-review/config.yaml is not a YAML mapping",
  },
  draft_conflict: { status: 409, title: "The branch changed the draft's files since the draft started" },
  bundle_archived: { status: 409, title: "The bundle is archived: it can be read, not changed" },
  content_unavailable: {
    status: 410,
    title:
      "The file's content can no longer be read: its bundle is archived and its repo host does not answer",
  },
  repohost_bundle_in_repo: {
    status: 409,
    title:
      "A repohost bundle lives in its repo: stop reading its source, or delete its folder in a pull request",
  },
  repohost_bundle_create: { status: 409, title: "New bundles of a repohost source are made in its repo" },
  // ---- model backends (docs/models.md) ----
  secret_key_missing: {
    status: 409,
    title: "The server has no secret key, so it keeps no model backends or roles",
  },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface FieldIssue {
  /** Where: `body.name`, `query.path`, … */
  field: string;
  message: string;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly detail: string | undefined;
  /** Extra members of the problem object (e.g. `errors`, `current_version`). */
  readonly extra: Record<string, unknown>;

  constructor(code: ErrorCode, detail?: string, extra: Record<string, unknown> = {}, options?: ErrorOptions) {
    super(detail ?? ERROR_CODES[code].title, options);
    this.name = "ApiError";
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.detail = detail;
    this.extra = extra;
  }
}

export class NotFoundError extends ApiError {
  constructor(what: string, id: string) {
    super("not_found", `${what} ${id} does not exist`);
    this.name = "NotFoundError";
  }
}

export class ValidationError extends ApiError {
  constructor(detail: string, errors: FieldIssue[] = []) {
    super("validation_failed", detail, { errors });
    this.name = "ValidationError";
  }
}

export class VersionConflictError extends ApiError {
  constructor(base: string, current: { id: string; number: number }) {
    super(
      "version_conflict",
      `base_version ${base} is not the current version (current is ${current.number}); reload and apply your change again`,
      { current_version: current },
    );
    this.name = "VersionConflictError";
  }
}

export class BadPathError extends ApiError {
  constructor(path: string, why: string) {
    super("bad_path", `path ${JSON.stringify(path)} ${why}`);
    this.name = "BadPathError";
  }
}

export class TooLargeError extends ApiError {
  constructor(kind: "file" | "bundle", size: number, limitMb: number) {
    super(
      kind === "file" ? "file_too_large" : "bundle_too_large",
      `${kind} would be ${size} bytes; the limit is max_${kind}_mb = ${limitMb} MB`,
    );
    this.name = "TooLargeError";
  }
}

export class NotImplementedError extends ApiError {
  constructor(method: string, path: string) {
    super("not_implemented", `${method} ${path} is in the contract but not built yet`);
    this.name = "NotImplementedError";
  }
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  code: string;
  detail?: string;
  instance?: string;
  [extra: string]: unknown;
}

/** Problem types are URNs naming the code; docs/errors.md describes each. */
export const PROBLEM_TYPE_BASE = "urn:spec-review:problem:";

export function problemOf(err: ApiError, instance?: string): Problem {
  return {
    ...err.extra,
    type: PROBLEM_TYPE_BASE + err.code,
    title: ERROR_CODES[err.code].title,
    status: err.status,
    code: err.code,
    ...(err.detail !== undefined ? { detail: err.detail } : {}),
    ...(instance !== undefined ? { instance } : {}),
  };
}
