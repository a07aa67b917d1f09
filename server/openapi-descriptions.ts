/**
 * The `description` of each operation in the OpenAPI document, by operationId: what it
 * does and its notable errors (codes: docs/errors.md). Who may call it is not written
 * here but added from the permission table (`whoMayCall`, from server/auth/permissions.ts),
 * so the two never disagree. A route that sets its own `description` keeps it.
 *
 * Every error is problem+json with a stable `code`; the ones every operation can answer
 * (`validation_failed`, `unauthenticated`, `forbidden`, `body_too_large`, `cross_origin`,
 * `origin_required`, `internal_error`) are not repeated below. Operations that name a
 * record of a bundle answer 404 `not_found` for one that does not exist or whose bundle
 * the caller may not see.
 */
import {
  GUEST_WORKSPACE_OPERATIONS,
  permissionOf,
  profileParamOf,
  scopeOf,
  type Permission,
} from "./auth/permissions.js";

const WRITE_VERSION =
  "Send the `base_version` the change is based on: when the bundle has a newer version the answer is 409 `version_conflict` with `current_version`, and nothing changes.";

export const OPERATION_DESCRIPTIONS: Readonly<Record<string, string>> = {
  // ---- meta
  getMeta:
    "The server's version, the API version and the mode (`local` or `hosted`). Clients read it first to choose what to show; it never fails for lack of sign-in.",
  getMe:
    "Who the caller is, and the mode: a signed-in person (`user` with id, name, kind, role and email address), a guest who entered a share link (`guest: true` and the `bundle_id` it may read), or `signed_in: false` for a caller who is not signed in (never 401). In local mode the answer is the local admin.",

  // ---- auth
  signUp:
    "Accepts an invite: makes the account with the invite's role and signs the new person in (sets the session cookie). Errors: 404 `invite_not_found`; 410 `invite_used`, `invite_expired` or `invite_revoked`; 409 `email_taken` (the invite stays unused); 400 `weak_password`; 409 `hosted_only` in local mode.",
  signIn:
    "Signs in with an email address and password and sets the session cookie. Errors: 401 `invalid_credentials` (the same answer for a wrong password, an unknown address or a removed person); 429 `rate_limited` after too many failures for the account or the address, with `Retry-After`; 409 `hosted_only` in local mode.",
  signOut:
    "Ends this browser's session: the session is deleted and the cookie cleared. Answers 204 even when no session was open.",
  resetPassword:
    "Sets a new password with a one-time reset link made by an admin, ends every session and API token of the person, then signs them in. Errors: 404 `reset_link_not_found`; 410 `reset_link_used`, `reset_link_expired` or `reset_link_revoked`; 400 `weak_password`; 409 `hosted_only` in local mode.",
  createApiToken:
    "Makes an API token for scripts, the GitHub Action or a coding agent, acting as the caller with the caller's role. The token appears in this answer only; the service keeps a hash. A guest has no tokens (403 `forbidden`); local mode answers 409 `hosted_only`.",
  listApiTokens:
    "The caller's API tokens, newest first, with name, creation, last use and expiry; never the tokens themselves. Local mode answers 409 `hosted_only`.",
  deleteApiToken:
    "Revokes one of the caller's API tokens; requests with it answer 401 `invalid_token` at once, on every instance. A token of someone else is 404 `not_found`.",

  // ---- bundles
  getBundles:
    "Lists the bundles the caller may see, by slug, a page at a time (`limit`, `cursor`), each with its main doc, latest verdict and the caller's next action; `problems` lists folders that look like bundles but are not valid (not shown to a guest, whose list holds only the bundle it entered). Errors: 400 `bad_cursor`.",
  postBundles:
    "Creates a bundle: a new folder `name` whose main doc is the profile's template with `title` as its heading, as version 1 by the caller, linted at once. Errors: 400 `unknown_profile`; 409 `bundle_exists` when the folder name is taken; 400 `validation_failed` or `bad_path` for a name that is not a folder path inside the served folder.",
  getBundlesByBundleId:
    "One bundle with its spec docs, each with its current version, latest verdict and the caller's next action. The bundle is read afresh first (a local folder changed on disk, a repohost source's branch).",
  deleteBundlesByBundleId:
    "Deletes a bundle whose text the service holds (a local folder or a bundle kept in the database), with its versions, runs, threads, waivers and links; permanent. `GET /bundles/{bundleId}/delete-plan` says first what goes. A bundle read from a repo host is not deleted here: 409 `repohost_bundle_in_repo` (stop reading its source, or delete its folder in a pull request).",
  getBundlesByBundleIdDeletePlan:
    "What the Delete control offers for this bundle, by its kind of source, in one sentence and in figures (files, bytes, versions): deleting the files and records (local, database), or, for a repohost bundle, archiving by stopping its source or deleting its folder in a pull request (`permanent: false`, `source_id`). Changes nothing.",
  postBundlesImportPreview:
    "Reads an import as `POST /bundles/import` would (a `.md` file, a `.zip` file, dropped folder files or pasted markdown) and lists its markdown files, each with the profile it names or would get and the links offered between them. Writes nothing. Errors: 400 `import_source`, `bad_zip`, `zip_symlink`, `duplicate_path`, `bad_path`; 413 `zip_bomb` or `bundle_too_large`; 415 `unsupported_file_type`.",
  postBundlesImport:
    "Imports a bundle from a `.md` file, a `.zip` file, dropped folder files or pasted markdown: the picked docs become spec docs (with a profile given or guessed), the confirmed links are held by the service, and each new bundle is linted. Nothing is written when anything fails. Errors: 400 `import_source`, `no_spec_doc`, `bad_zip`, `zip_symlink`, `duplicate_path`, `unknown_profile`; 409 `bundle_exists`, `link_cycle`; 413 `zip_bomb`, `bundle_too_large`, `file_too_large`; 415 `unsupported_file_type`.",

  // ---- docs and files
  getDocsByDocId:
    "One spec doc: its bundle, path, profile, current version, latest verdict, repohost state (draft, ahead, pull request) and the caller's next action.",
  getDocsByDocIdFiles:
    "The files of a bundle version (default: the current one), each with path, size, SHA-256 and media type, and the version itself. Errors: 400 `bad_version`.",
  deleteDocsByDocIdFiles:
    "Deletes one file of the bundle as a new version (with an optional `message`) and lints it. " +
    WRITE_VERSION +
    " Errors besides: 404 `file_not_found`; 409 `main_doc_required` for the bundle's spec doc.",
  getDocsByDocIdFilesContent:
    "The bytes of one file in a bundle version (default: the current one), with its media type. Errors: 404 `file_not_found`; 400 `bad_version`, `bad_path`.",
  putDocsByDocIdFilesContent:
    "Creates or replaces one file with the request body; a new version when the bytes changed (otherwise nothing is written and `changed` is false), then the bundle is linted. On a repohost bundle the version is a draft until it is published. " +
    WRITE_VERSION +
    " Errors besides: 400 `empty_body`, `bad_path`; 409 `two_spec_docs`; 413 `file_too_large`, `bundle_too_large`.",
  postDocsByDocIdFilesRename:
    "Renames or moves one file inside the bundle (`from`, `to`) as a new version, and lints it. " +
    WRITE_VERSION +
    " Errors besides: 404 `file_not_found`; 409 `file_exists` at `to`, `main_doc_required` when the spec doc would leave the top of the bundle, `two_spec_docs`; 400 `bad_path`.",
  getDocsByDocIdVersions:
    "The versions of the doc's bundle, newest first, a page at a time (`limit`, `cursor`): number, author, message and time of each. Errors: 400 `bad_cursor`.",
  getDocsByDocIdDiff:
    "Compares two versions of the bundle (`from`, default the one before `to`; `to`, default the current one), file by file and, for the main doc, section by section with the text that changed. Errors: 400 `bad_version`.",
  getDocsByDocIdExport:
    "Downloads a bundle version as a `.zip` of its folder (`format=zip`, any `version`), or the current version as one self-contained HTML report with its verdict and findings (`format=html`), for reading offline. Errors: 400 `bad_version`.",

  // ---- adoption
  getSkipped:
    "Markdown files the local scan passed over because their frontmatter names no type, by path; files marked as not a spec are left out. `POST /profiles/guess` suggests a type for one. Always empty in hosted mode, which scans no folder.",
  postSkipped:
    "Writes a type into the frontmatter of each picked skipped file so it becomes a spec doc (a bundle, linted at once), all in one request so the order of picks does not matter; answers the new bundles. Errors: 409 `already_typed` for a file that names a type already, `two_spec_docs` when a folder would hold two; 400 `validation_failed` for a doc picked twice or frontmatter that is not valid YAML.",
  getDismissedDocs:
    "Markdown files someone marked as not a spec, with who did and when; the scan and imports no longer offer them for adoption.",
  postDismissedDocs:
    "Marks one markdown file as not a spec, so it is no longer offered for adoption. Marking it again changes nothing. Errors: 400 `bad_path`.",
  deleteDismissedDocs:
    "Takes the not-a-spec mark off one file, so the scan offers it again. Errors: 404 `not_found` for a file that is not marked.",
  postRender:
    "Renders markdown to HTML the way the service shows docs (GitHub-flavoured, raw HTML not rendered); each block element carries `data-source-start`/`-end` (UTF-8 byte offsets into the text) and `data-source-line`/`-end-line`, for anchoring threads. Stores nothing. Errors: 413 `file_too_large` over `max_file_mb`.",

  // ---- share links and access
  getShareLink:
    "Looks up a share link by its token: the bundle's id, slug and title, its main doc and when the link expires, so the page can ask the guest's name. A link that is unknown, revoked or expired is 404 `not_found`, and the answer never repeats the token.",
  enterShareLink:
    "Enters a share link as a guest with a display name: sets the guest cookie, which reads that one bundle and may open threads for humans on it until the link is revoked or expires. Errors: 404 `not_found` for an unknown, revoked or expired link.",
  getBundleAccess:
    "Who can see the bundle: its visibility (`internal`, `private` or `link`), its author, the audience in words and the people it reaches, and the state of its share link (active, made when and by whom, expiring when); never the link's token or URL.",
  setBundleVisibility:
    "Sets the bundle's visibility: `internal` (everyone in the workspace), `private` (the author and admins) or `link` (also guests with the share link). Leaving `link` revokes the share link, and guests lose the bundle at once.",
  createShareLink:
    "Makes a new share link for the bundle, replacing the old one (which stops working), and sets the visibility to `link`. The URL appears in this answer only; the service keeps a hash. `expires_in_days` bounds it.",
  revokeShareLink:
    "Revokes the bundle's share link: guests who entered through it lose the bundle at once (401 `unauthenticated` on their next request).",

  // ---- handoffs
  reportHandoff:
    "Reports what the build learned about the doc after a handoff: `result` is `built`, `partial` or `blocked`, with a markdown text and optionally the section it is about. A `blocked` report opens a blocking thread on the doc, which holds its verdict back until resolved. Errors: 404 `handoff_not_found`.",
  listHandoffs:
    "The handoffs of the doc's bundle, newest first: who took which version's build packet, with which verdict, whether it was acknowledged without Build Ready, and its reports.",
  takeHandoff:
    "Takes the build packet for a coding agent as JSON (the bundle's files, its trace IDs, open build questions, linked docs and external targets, a re-entry prompt for the agent, and the verdict), and records the handoff with an optional `label`. Needs a current Build Ready verdict: otherwise 409 `handoff_not_ready`, unless the body says `acknowledged: true`.",
  takeHandoffZip:
    "The same build packet as `POST /docs/{docId}/handoff`, as a `.zip` holding the files the `spec-review handoff` command writes, and records the handoff. Errors: 409 `handoff_not_ready` unless `acknowledged: true`.",

  // ---- verifications
  listVerifications:
    "The verification runs of the doc's bundle, newest first: the target (repo at a commit, or folder), the status (`queued`, `done`, `failed`), the verdict and the outcome of each trace ID.",
  startVerification:
    "Queues a check of one build against the bundle's trace IDs: a code repo at a commit (`target`, or `repo` and `sha`; a pull request URL names its head) or, in local mode, a folder (`path`), optionally with `claims` that point at code and a `handoff_id`. Answers 202 with the run; follow it with `/verifications/{runId}/events`. Errors: 400 `verification_target_missing`, `target_unrecognised`, `bad_sha`, `folder_local_only`, `not_a_git_repo`, `claim_*`; 403 `folder_not_allowed`; 404 `folder_not_found`, `repo_not_found`, `commit_not_found`, `handoff_not_found`; 409 `repohost_token_missing`, `repohost_reader_missing`; 502 `repohost_unreachable`.",
  resolveVerificationTarget:
    "Says which repo and commit (and branch or pull request), or which folder, a pasted target names, before a verification starts, so the page can confirm it. Starts nothing. Errors as for starting a verification: 400 `target_unrecognised`, `folder_local_only`; 404 `repo_not_found`, `commit_not_found`, `folder_not_found`; 409 `repohost_reader_missing`, `repohost_token_missing`.",
  getVerificationDefaults:
    "The targets that prefill the verify field: the repos of the doc's `implemented-by` links first, else the target of its last verification run. Empty when there is neither.",
  followVerification:
    "Follows a verification run as server-sent events, trace ID by trace ID as each outcome is decided, then the end of the run. `Last-Event-ID` resumes after the last event seen, on any instance.",
  getVerification:
    "One verification run: its target, status and verdict, the outcome of each trace ID with where in the code it was found, what the scan read, and whether it opened a blocking thread.",

  // ---- runs
  listRuns:
    "The review runs of the doc (lint runs of each save and full reviews), newest first, a page at a time, each with its version, status and verdict. Errors: 400 `bad_cursor`.",
  startRun:
    "Queues a full AI review of the current version (readers, build questions, claims, a judge); answers 202 with the run, which a worker takes. Follow it with `/runs/{runId}/events`. Errors: 409 `model_not_configured` (`roles` lists the review roles without a model), 409 `budget_exceeded` when this month's token budget is used up.",
  reviewFiles:
    "Reviews bundle files sent in the body (`files`, `main_path`) without saving them as a bundle: the lint, and with `full: true` the AI review too, answered when done. The server keeps the files and the result for 90 days for the HTML report (`/reviews/{reviewId}/report`); no bundle changes. Errors: 413 `bundle_too_large`; 409 `model_not_configured`, `budget_exceeded`; 502 `model_failed`.",
  getReviewReport:
    "The self-contained HTML report of a review made with `POST /reviews`, while it is kept (90 days): the verdict, findings and the files as reviewed. An unknown or expired review is 404 `not_found`.",
  estimateRun:
    "Estimates a full review of the current version before it starts: model calls, steps already cached, tokens in and out, and the cost in USD when the roles have prices. Starts nothing.",
  followRun:
    "Follows a run's progress as server-sent events: each stage as it starts and ends, findings as they come, requeues after a takeover, and the end with the verdict. `Last-Event-ID` resumes after the last event seen, on any instance.",
  listClaims:
    "The factual claims a full review found in the doc, each with its text, anchor, label (`supported`, `unsupported`, `contradicted`, `assumption`), an explanation and the sources it was checked against.",
  listQuestions:
    "The build questions of a full review: what a builder would have to ask, with its level and the sections it cites, each reader's answer from the doc, how the answers group, and the result.",
  getRun:
    "One review run: its kind (`lint`, `full`), version, status and current stage, its times, and its verdict (`result`: `build_ready`, `not_build_ready` or `stale`; score; counts by level; blocking threads).",
  getTour:
    "The ordered points of the doc's current review that need a human decision (a waiver to decide, a thread to decide, a finding to fix, a review to request, a type to adopt, a handoff to take), each in one sentence with its anchor, for a guided walk through them.",
  summarizeDiff:
    "Asks the AI to summarize what changed in meaning between two versions (`from`, `to`), with the findings that appeared and went away between their runs. Spends tokens; changes nothing. Errors: 400 `bad_version`; 409 `model_not_configured`, `budget_exceeded`; 502 `model_failed`.",
  getRunReport:
    "The report of a run: time per stage, token use, how diverse the readers' answers were, and findings by category and severity.",
  suggestFix:
    "Asks the AI for a patch that would resolve one finding, kept with the finding for `fix/accept`; the doc does not change. Errors: 409 `model_not_configured`, `budget_exceeded`; 502 `model_failed`.",
  acceptFix:
    "Applies the finding's suggested patch to the file as a new version, and lints it. " +
    WRITE_VERSION +
    " Errors besides: 409 `fix_not_suggested` before `POST …/fix`, 409 `patch_conflict` when the text it changes was edited since.",
  listFindings:
    "The findings of a run in document order: check, level (`MUST`, `SHOULD`, `INFO`), category, message, anchor and stage, the waiver that covers it, and whether a fix was suggested.",

  // ---- trace
  getTrace:
    "The doc's traceability: its links (kind, target, origin: frontmatter, held by the service or a profile rule), the trace matrices of the bundles it implements and of its own IDs (each cell `covered`, `referenced` or `missing`), link problems such as cycles or unresolved targets, and suggested IDs for requirements without one.",
  removeLink:
    "Removes one outgoing link of the doc (`kind`, `target_ref`): from the frontmatter as a new version, or one the service holds. " +
    WRITE_VERSION +
    " Errors besides: 404 `link_not_found`; 409 `link_not_removable` for a link that follows from a profile rule; 409 `frontmatter_unreadable`.",
  insertTraceIds:
    "Writes suggested trace IDs (`ids`, default every suggestion) at the start of their statements in the main doc as one new version, and lints it. " +
    WRITE_VERSION +
    " Errors besides: 409 `trace_id_taken`; 400 `unknown_trace_id` for an ID that is not a current suggestion.",
  coverTraceId:
    "Answers a coverage gap with `This doc covers it`: appends `Covers <ID>.` to the end of the section's own text as a new version, and lints it; a section that already covers it changes nothing. " +
    WRITE_VERSION +
    " Errors besides: 400 `unknown_trace_id` (not defined by a bundle this doc implements), 400 `section_not_found`.",
  suggestLinks:
    "The links the service would offer between docs of one folder (an import's docs, a repohost source's skipped docs, or local files), from their names, headings and the profiles' upstream rules. Stores nothing. Errors: 404 `not_found` for an unknown source; 413 `file_too_large`.",

  // ---- threads
  listThreads:
    "The threads of the doc's bundle, open ones first: anchor, whom they address (humans or the AI), whether they block, their status and last message.",
  openThread:
    "Opens a thread on the doc anchored to text (file, offsets and quote), a section, a finding or a check, addressed to humans or to the AI, optionally blocking. A thread for the AI gets an answer with sources. Errors: 400 `anchor_file_not_found`, `anchor_out_of_range`, `anchor_quote_not_found`, `anchor_finding_not_found`, `unknown_check`; 403 `guest_humans_only` when a guest addresses the AI.",
  getThread:
    "One thread with its messages in order, its anchor as it follows the current text, its decision and its status.",
  postMessage:
    "Posts a message in a thread; in a thread addressed to the AI, the AI answers with its sources. Errors: 409 `thread_resolved` (reopen it first).",
  markDecision:
    "Marks one message as the thread's decision, which handoffs carry to the build. Errors: 400 `message_not_in_thread`; 409 `already_decided`.",
  setThreadBlocking:
    "Marks the thread blocking or not: an open blocking thread holds the doc's verdict back from Build Ready.",
  setThreadStatus:
    "Resolves or reopens the thread (`open`). A resolved thread takes no messages until reopened.",

  // ---- waivers
  requestVerificationWaiver:
    "Asks to excuse one trace ID in one code repo (or folder) from verification, with a reason of at least 20 characters; once approved, verification runs on that repo count it as waived. Kept by the service only, never in the sidecar file. Errors: 409 `verification_waiver_exists` (`waiver_id` names it).",
  listWaivers:
    "The waivers and acknowledgements of the doc's bundle: what each excuses (a finding, a trace ID, a standalone doc), its reason, status (requested, approved, rejected, withdrawn) and who decided.",
  requestWaiver:
    "Requests a waiver for one finding, or an acknowledgement of a trace ID gap or of a standalone doc, with a reason of at least 20 characters; the profile's policy says who approves it. Errors: 400 `reason_too_short`, `waiver_target`; 404 `finding_not_found`; 409 `waiver_exists`, `must_not_waivable`.",
  withdrawAcknowledgement:
    "Withdraws one approved acknowledgement (of a trace entry or a standalone doc); the gap counts again at once. Errors: 409 `not_an_acknowledgement`.",
  approveWaiver:
    "Approves a waiver under the profile's waiver policy; with enough approvals the finding no longer counts against the verdict. Errors: 403 `own_waiver`, `not_an_approver`; 409 `waiver_not_open`, `already_approved`; 409 `second_person_needed` in local mode for the local admin's own request.",
  rejectWaiver:
    "Rejects a waiver with a decision reason; the finding counts again. Errors: 403 `not_an_approver`; 409 `waiver_not_open`.",

  // ---- status, people, inbox
  getReviewStatus:
    "The review status of the doc (`draft`, `in_review`, `approved`, `superseded`), its author, assigned reviewers and their approvals, the verdict on the current version, and whether the caller can approve.",
  requestReview:
    "Asks for a review and assigns reviewers, who get it in their inbox; a draft moves to in review. Errors: 400 `unknown_reviewer` (not a member or admin, or the author); 409 `second_person_needed` in local mode.",
  approveDoc:
    "Approves the doc's current version (`base_version`). Needs a current Build Ready verdict. Errors: 409 `not_build_ready`, `already_approved`, `version_conflict`; 403 `author_cannot_approve`; 409 `second_person_needed` in local mode.",
  listPeople:
    "The members of the workspace with id, name and role, for choosing reviewers and mentions. Empty in local mode, which has one person.",
  getInbox:
    "The caller's inbox, newest first, a page at a time: each item (a review request, a waiver to decide, a reply, …) in one sentence with where it opens and whether it is read, and the count of items not yet seen. Errors: 400 `bad_cursor`.",
  markInboxSeen:
    "Marks the caller's inbox as seen up to now: the count of new items drops to zero; items stay unread until opened.",
  markInboxItemRead:
    "Marks one item of the caller's inbox read. An item of someone else's inbox is 404 `not_found`.",
  getInsights:
    "Metrics per profile over the workspace's bundles: how many there are, how many are Build Ready, the median score and the checks that fail most, for maintainers tuning their profiles.",

  // ---- profiles
  adoptProfile:
    "Writes the type and size the review used (guessed, not named) into the main doc's frontmatter as a new version (`keys` picks which). " +
    WRITE_VERSION +
    " Errors besides: 409 `nothing_to_adopt` when the doc names both already.",
  changeDocProfile:
    "Changes the profile of the bundle's main doc by writing its `type` into the frontmatter as a new version, and lints it with the new profile. " +
    WRITE_VERSION +
    " Errors besides: 400 `unknown_profile`.",
  listAssumptions:
    "The sentences of the current main doc that start with `Assumption:`, with where each is, so reviewers can check them.",
  guessProfile:
    "The profile that best fits a markdown doc, from its headings against each profile's template, with the score of each candidate. Stores nothing. Errors: 413 `file_too_large`.",
  listProfiles:
    "The profiles (document types) with their title, current version, whether each is built in, and how many bundles use it.",
  createProfile:
    "Creates a profile for a new doc type from its YAML (checks, limits, waiver policy) and template, as version 1. Errors: 400 `profile_invalid` (with line and column of each error); 409 `profile_exists`.",
  inferProfile:
    "Learns a profile from a team's existing docs, as `spec-review profile infer` does (docs/profiles.md, \"Adopting on your existing specs\"): in local mode the markdown under `folder` of the served tree, in hosted mode the docs of the repohost source `source_id` (its bundles' docs and the markdown its last read passed over). Answers the profile YAML and template, each learned element (a section, the design section, metadata, ID and link patterns) with the share of docs that have it, the docs that did not fit, and the `types` globs that map the docs to `key`. Nothing is stored unless `save` is true: local mode then writes `.spec-review/profiles/<key>/` and the types into `.spec-review/config.yaml`, records it as a repository profile and scans the folder again; hosted mode creates the profile as `POST /profiles` does, which takes an admin (403 `forbidden` for a maintainer who is not one). Errors: 400 `infer_source` (a folder in hosted mode, a source in local mode, or neither), `bad_path` (a folder outside the served tree), `no_docs_to_learn`, `unknown_profile` (for `extends`); 404 `folder_not_found`, `not_found` (the source); 409 `profile_exists` (with `save`), `repo_config_invalid`.",
  getProfile: "One profile: its YAML, template, versions and maintainers. An unknown key is 404 `not_found`.",
  saveProfile:
    "Saves a profile's YAML and template as a new version; docs of that type are linted with it from their next run. Errors: 400 `profile_invalid`; 409 `version_conflict` when `base_version` is not the current version.",
  deleteProfile:
    "Deletes a profile with its versions. Errors: 409 `profile_builtin` for a built-in profile, 409 `profile_in_use` while a bundle's doc names its key.",
  setProfileMaintainers:
    "Sets the maintainers of a profile (members who may save and roll it back, and decide its waivers when its policy says `maintainers`).",
  diffProfile:
    "The YAML diff and the template diff between two versions of a profile (`from`, `to`). Errors: 400 `bad_version`.",
  rollbackProfile:
    "Writes a new version of the profile whose text equals an earlier `version`; history is kept. Errors: 400 `bad_version`.",
  listProfileThreads:
    "Suggestions for a profile, as threads on its checks, template or limits, open ones first.",
  suggestProfileChange:
    "Suggests a change to one of the profile's checks, its template or a limit, as a thread its maintainers see. Errors: 400 `unknown_check`.",

  // ---- admin: workspace
  getSettings:
    "The workspace settings: file and bundle size limits, invite lifetime, parallel model calls, whether sources a review cites are read.",
  putSettings:
    "Changes the workspace settings; every instance reads the new values at once. Limits apply to the next write, never to what is stored.",
  listInvites:
    "The invite links, newest first, with role, who made them, and whether each is open, used, revoked or expired; never the link itself.",
  createInvite:
    "Makes a single-use invite link with the role the invited person gets; it expires after `invite_ttl_days`. The URL appears in this answer only. Errors: 409 `hosted_only` in local mode.",
  revokeInvite:
    "Revokes an unused invite link so it can no longer make an account. Errors: 409 `invite_not_revocable` for a used, revoked or expired invite; 404 `not_found`.",
  createResetLink:
    "Makes a one-time password reset link for a person, valid 24 hours; it replaces any earlier link. The URL appears in this answer only. Errors: 404 `not_found` for an unknown person; 409 `hosted_only` in local mode.",
  getBudget:
    "This month's token budget: the limit (none means no budget), tokens used so far by reviews, fixes and summaries, and what is left.",
  putBudget:
    "Sets the monthly token limit (`limit_tokens`; null removes the budget). Operations that spend tokens answer 409 `budget_exceeded` once it is used up.",

  // ---- admin: model backends and roles
  listBackends:
    "The model backends (OpenAI-compatible providers and agent CLIs) with their settings; a secret shows its last 4 characters only. Errors: 409 `secret_key_missing` on a server without a secret key.",
  createBackend:
    "Adds a model backend: a provider with base URL and secret, or an agent CLI from a preset or a command. The secret is sealed with the server's key and never returned. Errors: 409 `secret_key_missing`.",
  updateBackend:
    "Changes a model backend; leave `secret` out to keep the stored one. Errors: 404 `not_found`; 409 `secret_key_missing`.",
  deleteBackend:
    "Deletes a model backend. Errors: 409 `backend_in_use` while a role uses it (`roles` lists them); 404 `not_found`; 409 `secret_key_missing`.",
  testBackend:
    "Sends one short call to the backend with `model` and says whether it answered, its answer, the tokens and time it took, and the error when not. Spends a few tokens. Errors: 404 `not_found`; 409 `secret_key_missing`.",
  listPresets:
    "The agent CLI presets, each with the command it runs, how the prompt is passed, the secret's environment variable, and whether that CLI is installed on this server (and its version).",
  listRoles:
    "The review roles (`reviewer`, `reader`, `judge`) with the backend, model and prices per million tokens assigned to each, or none. Errors: 409 `secret_key_missing`.",
  assignRole:
    "Assigns a backend and model (and optional prices per million tokens) to a role; reviews use it from their next call. Errors: 400 `unknown_backend`, `validation_failed` for an unknown role; 409 `secret_key_missing`.",
  unassignRole:
    "Removes a role's assignment; reviews that need the role answer 409 `model_not_configured` until it has one again. Errors: 409 `secret_key_missing`.",

  // ---- admin: MCP connections
  listMcpConnections:
    "The MCP connections reviews read external sources and search through: transport, command or URL, tool allowlist, hosts, and whether a secret is set (its last 4 characters only).",
  createMcpConnection:
    "Adds an MCP connection (stdio command or HTTP URL) with a tool allowlist, the hosts it reads, and optionally the search or fetch tool; the secret is sealed and never returned. Errors: 409 `mcp_host_taken` when another connection reads a listed host.",
  updateMcpConnection:
    "Changes an MCP connection; leave `secret` out to keep the stored one. Errors: 404 `not_found`; 409 `mcp_host_taken`.",
  deleteMcpConnection: "Deletes an MCP connection; reviews stop reading through it. Errors: 404 `not_found`.",
  listMcpTools:
    "Connects to the MCP server and lists its tools, to choose the allowlist. Errors: 404 `not_found`; 502 `mcp_unavailable` when it cannot be started or reached, or does not list its tools in time.",

  // ---- admin: repo host
  getRepohostConnection:
    "Whether the workspace has a repohost token, its last 4 characters, the API URL and the login it reads as; never the token. Local mode answers 409 `hosted_only`.",
  setRepohostToken:
    "Sets the fine-grained personal access token the service reads repos and opens pull requests with, after checking it with the repo host; it is sealed and never returned. Errors: 400 `repohost_token_rejected` (nothing saved); 502 `repohost_unreachable`; 409 `hosted_only` in local mode.",
  removeRepohostToken:
    "Removes the repohost token; sources that need it stop syncing until a token is set again. Local mode answers 409 `hosted_only`.",
  listSources:
    "The repos, branches and folders the service reads bundles from, each with its bundle count, last commit read and last sync error.",
  createSource:
    "Makes a source from a source URL (a repo, a branch, a folder) and reads it before answering: each folder with a spec doc becomes a bundle whose versions are the commits touching it (past 20 new bundles, one version each, the commit read); it is kept in step with the branch. Nothing is kept when the first read fails; a read the repo host's rate limit stops midway keeps the source, `sync_state: waiting_rate_limit`, and resumes by itself. Errors: 400 `bad_source_url`; 404 `repo_not_found`; 409 `source_exists`, `repohost_not_configured`; 502 `repohost_unreachable`; 503 `repohost_rate_limited` (nothing kept; `retry_after`).",
  resolveSource:
    "Reads a source URL and says what it names (repo, branch, folder, the bundles a source would read, and how many markdown files name no type) before the source is made. Errors: 400 `bad_source_url`; 404 `repo_not_found`; 409 `repohost_not_configured`; 502 `repohost_unreachable`; 503 `repohost_rate_limited` (`retry_after`).",
  deleteSource:
    "Stops reading a source; its bundles are archived (read-only, kept with their history), never deleted from the repo. Errors: 404 `not_found`.",
  listSourceSkipped:
    "Markdown files under the source that the last read passed over because they name no type, each with a guessed doc type and any type already accepted.",
  acceptSourceTypes:
    "Accepts a doc type for skipped docs of the source; the service holds the types and reads those files as spec docs from the next sync; the repo takes no commit. Errors: 400 `unknown_profile`.",
  openMappingPullRequest:
    "Opens a pull request that writes the accepted types into the repo's `.spec-review/config.yaml`, so the repo itself names them. Errors: 409 `no_accepted_types`, `repo_config_invalid`, `repohost_not_configured`; 502 `repohost_unreachable`.",
  syncSource:
    "Reads the source's branch now rather than at the next push: new commits become versions, new folders bundles; a draft whose files the branch changed is marked `ahead`. While the repo host's rate limit asks to wait (`resume_at`), it sends nothing and answers 202 with `sync_state: waiting_rate_limit`; the read resumes by itself when the wait is over. Errors: 404 `not_found`; 409 `repohost_not_configured`; 502 `repohost_unreachable`.",
  publishDraft:
    "Publishes the draft of a repohost bundle: a branch, a commit with `message` and a pull request against the source's branch; the answer holds its URL. Errors: 409 `no_draft`, `draft_conflict` (the branch changed the same files; `files` lists them), `repohost_not_configured`; 502 `repohost_unreachable`.",
  discardDraft:
    "Drops the draft of a repohost bundle: the repo's files come back as a new version, then the branch is read again if it moved on. Errors: 409 `no_draft`.",

  // ---- GitHub login (docs/accounts.md)
  linkGitHub:
    "Starts linking a GitHub login to the caller's account: redirects (302) to GitHub's authorize page of the App with a one-time state. Errors: 503 `github_link_unavailable` when the App's client id and secret are not set; 409 `hosted_only` in local mode.",
  gitHubCallback:
    "Where GitHub sends the person back after authorizing: checks the state, reads the GitHub user and links its login to the account. Errors: 400 `oauth_state_invalid`; 409 `github_login_taken`; 502 `github_oauth_failed`; 503 `github_link_unavailable`.",
  setGitHubLogin:
    "Sets or clears (null) the GitHub login linked to a person's account. Errors: 404 `not_found`; 409 `github_login_taken`.",
};

const LOCAL = " In local mode, the one local person (the local admin).";

/**
 * Who may call an operation, in words, from its permission (server/auth/permissions.ts):
 * roles in hosted mode, and whether a guest reaches it. Undefined for an operation the
 * table does not name.
 */
export function whoMayCall(operation: string): string | undefined {
  const needed: Permission | undefined = permissionOf(operation);
  if (!needed) return undefined;
  const bundle = scopeOf(operation) !== undefined;
  const guestToo = bundle || GUEST_WORKSPACE_OPERATIONS.has(operation);
  const seeing = bundle ? " who can see the bundle (one they may not see is 404 `not_found`)" : "";
  switch (needed) {
    case "public":
      return "Anyone, signed in or not.";
    case "self":
      return "Any signed-in person (viewer, member or admin), for their own; not a guest." + LOCAL;
    case "read":
      return (
        `A viewer, member or admin${seeing}` +
        (guestToo ? "; a guest, on the bundle its share link opened." : "; not a guest.") +
        LOCAL
      );
    case "comment":
      return `A member or admin${seeing}; a guest on the bundle its share link opened, for threads addressed to humans.${LOCAL}`;
    case "write":
      return `A member or admin${seeing}; not a viewer or guest.${LOCAL}`;
    case "review":
      return `A member or admin${seeing}; it spends the workspace's token budget.${LOCAL}`;
    case "approve":
      return `A member or admin${seeing}, within the profile's waiver and approval rules.${LOCAL}`;
    case "own":
      return `The bundle's author (the member who created it) or an admin${seeing}.${LOCAL}`;
    case "maintain":
      return profileParamOf(operation)
        ? `A maintainer of the profile (a member) or an admin.${LOCAL}`
        : `A maintainer of any profile (a member) or an admin.${LOCAL}`;
    case "admin":
      return `Admins only.${LOCAL}`;
  }
}

/** The description of an operation: what it does and its errors, then who may call it. */
export function operationDescription(operationId: string, method: string, path: string): string | undefined {
  const what = OPERATION_DESCRIPTIONS[operationId];
  if (what === undefined) return undefined;
  const who = whoMayCall(`${method.toUpperCase()} ${path}`);
  return who ? `${what}\n\n**Who may call it:** ${who}` : what;
}
