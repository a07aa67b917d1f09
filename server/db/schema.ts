/**
 * The database schema. One schema and one set of generated migrations
 * (`npm run db:generate`) serve both embedded PGlite and a Postgres server.
 */
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  customType,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import type { Anchor } from "../../core/anchor/anchor.js";
import type { Verdict } from "../schemas/common.js";

/** Where a bundle's files live (contract: `source_kind`). */
export type SourceKind = "local" | "db" | "repohost";
export type DocStatus = "draft" | "in_review" | "approved" | "superseded";
export type Visibility = "private" | "internal" | "link";
/** What is wrong with a doc's own text (e.g. malformed frontmatter). */
export interface DocProblem {
  message: string;
  line?: number;
  column?: number;
}

const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({
  dataType: () => "bytea",
  toDriver: (value) =>
    Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength),
  fromDriver: (value) => (value instanceof Uint8Array ? value : new Uint8Array(value)),
});

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

/** A bundle: a folder holding one spec doc and its assets. */
export const bundles = pgTable(
  "bundles",
  {
    id: uuid("id").primaryKey(),
    sourceKind: text("source_kind").$type<SourceKind>().notNull(),
    slug: text("slug").notNull(),
    title: text("title").notNull(),
    visibility: text("visibility").$type<Visibility>(),
    /** Who created the bundle (its author: `POST /bundles`, import); null when found on disk. */
    createdBy: text("created_by"),
    /** Id and number of the newest version; 0 and null before the first. */
    headVersionId: uuid("head_version_id"),
    headNumber: bigint("head_number", { mode: "number" }).notNull().default(0),
    /** Set when the folder is gone from disk; the bundle is hidden until it comes back. */
    goneAt: ts("gone_at"),
    /**
     * Set when the bundle was archived (its repohost source was deleted): kept and readable
     * with `archived: true`, left out of lists unless asked, every write refused. Apart from
     * `gone_at`, which hides a bundle whose folder left the disk or the branch.
     */
    archivedAt: ts("archived_at"),
    createdAt: ts("created_at").notNull(),
    updatedAt: ts("updated_at").notNull(),
  },
  (t) => [uniqueIndex("bundles_source_slug").on(t.sourceKind, t.slug)],
);

/** The spec doc of a bundle (a bundle holds exactly one). */
export const docs = pgTable(
  "docs",
  {
    id: uuid("id").primaryKey(),
    bundleId: uuid("bundle_id")
      .notNull()
      .references(() => bundles.id, { onDelete: "cascade" }),
    path: text("path").notNull(),
    profileKey: text("profile_key").notNull(),
    status: text("status").$type<DocStatus>().notNull().default("draft"),
    /** What is wrong with the doc's own text (e.g. malformed frontmatter), as JSON. */
    problems: jsonb("problems").$type<DocProblem[]>(),
    createdAt: ts("created_at").notNull(),
    updatedAt: ts("updated_at").notNull(),
  },
  (t) => [uniqueIndex("docs_bundle").on(t.bundleId)],
);

/** Immutable versions of a bundle's file set. */
export const versions = pgTable(
  "versions",
  {
    id: uuid("id").primaryKey(),
    bundleId: uuid("bundle_id")
      .notNull()
      .references(() => bundles.id, { onDelete: "cascade" }),
    number: bigint("number", { mode: "number" }).notNull(),
    createdBy: text("created_by").notNull(),
    message: text("message").notNull(),
    createdAt: ts("created_at").notNull(),
  },
  (t) => [uniqueIndex("versions_bundle_number").on(t.bundleId, t.number)],
);

/** The full file list of each version: path -> blob. */
export const versionFiles = pgTable(
  "version_files",
  {
    versionId: uuid("version_id")
      .notNull()
      .references(() => versions.id, { onDelete: "cascade" }),
    path: text("path").notNull(),
    sha256: text("sha256").notNull(),
    size: bigint("size", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.versionId, t.path] }), index("version_files_sha").on(t.sha256)],
);

/** Content-addressed file contents, stored once. */
export const blobs = pgTable("blobs", {
  sha256: text("sha256").primaryKey(),
  size: bigint("size", { mode: "number" }).notNull(),
  content: bytea("content").notNull(),
  /** The content is UTF-8 text; null for blobs stored before this was recorded (worked out on first list). */
  utf8: boolean("utf8"),
});

/** What the local store last saw on disk, so a rescan hashes only files that changed. */
export const diskFiles = pgTable(
  "disk_files",
  {
    bundleId: uuid("bundle_id")
      .notNull()
      .references(() => bundles.id, { onDelete: "cascade" }),
    path: text("path").notNull(),
    size: bigint("size", { mode: "number" }).notNull(),
    mtimeMs: bigint("mtime_ms", { mode: "number" }).notNull(),
    sha256: text("sha256").notNull(),
  },
  (t) => [primaryKey({ columns: [t.bundleId, t.path] })],
);

/** Markdown files a person marked as not a spec. */
export const dismissedDocs = pgTable("dismissed_docs", {
  path: text("path").primaryKey(),
  createdBy: text("created_by").notNull(),
  createdAt: ts("created_at").notNull(),
});

/** Workspace settings, one row per key. */
export const settings = pgTable("settings", {
  key: text("key").primaryKey(),
  value: jsonb("value").notNull(),
  updatedAt: ts("updated_at")
    .notNull()
    .default(sql`now()`),
});

/** Doc types. Built-ins are seeded from profiles/ at start and cannot be deleted. */
export const profiles = pgTable("profiles", {
  key: text("key").primaryKey(),
  builtin: boolean("builtin").notNull(),
  maintainers: jsonb("maintainers").$type<string[]>().notNull().default([]),
  headNumber: integer("head_number").notNull(),
  createdAt: ts("created_at").notNull(),
  updatedAt: ts("updated_at").notNull(),
});

/** Every saved text of a profile: its YAML and its template. */
export const profileVersions = pgTable(
  "profile_versions",
  {
    key: text("key")
      .notNull()
      .references(() => profiles.key, { onDelete: "cascade" }),
    number: integer("number").notNull(),
    yaml: text("yaml").notNull(),
    template: text("template").notNull(),
    createdBy: text("created_by").notNull(),
    message: text("message").notNull(),
    createdAt: ts("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.key, t.number] })],
);

/** Review runs: lint runs on every save, full reviews on request. */
export const runs = pgTable(
  "runs",
  {
    id: uuid("id").primaryKey(),
    docId: uuid("doc_id")
      .notNull()
      .references(() => docs.id, { onDelete: "cascade" }),
    bundleId: uuid("bundle_id")
      .notNull()
      .references(() => bundles.id, { onDelete: "cascade" }),
    versionId: uuid("version_id").notNull(),
    versionNumber: bigint("version_number", { mode: "number" }).notNull(),
    kind: text("kind").notNull(),
    status: text("status").notNull(),
    stage: text("stage"),
    profileKey: text("profile_key").notNull(),
    profileVersion: integer("profile_version"),
    error: text("error"),
    verdict: jsonb("verdict").$type<Verdict>(),
    adopt: jsonb("adopt").$type<{ type?: string; size?: string }>(),
    stages: jsonb("stages").$type<Array<{ name: string; duration_ms: number }>>().notNull().default([]),
    createdBy: text("created_by").notNull(),
    createdAt: ts("created_at").notNull(),
    startedAt: ts("started_at"),
    finishedAt: ts("finished_at"),
  },
  (t) => [index("runs_doc_created").on(t.docId, t.createdAt)],
);

/** Findings of a run, in document order (`ord`). */
export const findings = pgTable(
  "findings",
  {
    runId: uuid("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    id: uuid("id").notNull(),
    ord: integer("ord").notNull(),
    checkSlug: text("check_slug").notNull(),
    level: text("level").notNull(),
    category: text("category").notNull(),
    message: text("message").notNull(),
    anchor: jsonb("anchor").$type<Anchor>(),
    stage: text("stage").notNull(),
    relaxed: boolean("relaxed").notNull().default(false),
  },
  // (run, ord): a run's findings are read in document order, a page at a time.
  (t) => [primaryKey({ columns: [t.runId, t.id] }), index("findings_run_ord").on(t.runId, t.ord)],
);

// ---------------------------------------------------------------------------------------
// The full AI review (issue 5): what a full run used and who works on it, its build
// questions with reader answers, its claims, suggested fixes, the persisted event stream,
// the step cache, and ad-hoc reviews of unsaved files. docs/review.md describes them.

/** One row per full run: usage, readers, and the worker lease (restart safety). */
export const reviewRuns = pgTable(
  "review_runs",
  {
    runId: uuid("run_id")
      .primaryKey()
      .references(() => runs.id, { onDelete: "cascade" }),
    readers: integer("readers").notNull(),
    calls: integer("calls").notNull().default(0),
    cachedCalls: integer("cached_calls").notNull().default(0),
    tokensIn: bigint("tokens_in", { mode: "number" }).notNull().default(0),
    tokensOut: bigint("tokens_out", { mode: "number" }).notNull().default(0),
    /** Times a worker claimed the run (a run requeued after a crash is claimed again). */
    attempts: integer("attempts").notNull().default(0),
    /** The worker holding the run, and when it last said it is alive. */
    worker: text("worker"),
    heartbeatAt: ts("heartbeat_at"),
  },
  (t) => [index("review_runs_heartbeat").on(t.heartbeatAt)],
);

/** Build questions of a full run (contract 2.16): reader answers and the judge's groups inline. */
export const buildQuestions = pgTable(
  "build_questions",
  {
    runId: uuid("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    id: uuid("id").notNull(),
    number: integer("number").notNull(),
    text: text("text").notNull(),
    level: text("level").notNull(),
    category: text("category").notNull(),
    cites: jsonb("cites")
      .$type<Array<{ kind: string; path?: string[]; id?: string; anchor: Anchor }>>()
      .notNull(),
    result: text("result").notNull(),
    answers: jsonb("answers")
      .$type<
        Array<{
          reader: number;
          answer: string;
          answered: boolean;
          quotes: Array<{ text: string; found: boolean }>;
        }>
      >()
      .notNull(),
    groups: jsonb("groups").$type<number[][]>().notNull(),
    agreedAnswer: text("agreed_answer"),
    findingId: uuid("finding_id"),
  },
  (t) => [primaryKey({ columns: [t.runId, t.id] })],
);

/** Factual claims of a full run, labelled, in document order. */
export const claims = pgTable(
  "claims",
  {
    runId: uuid("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    id: uuid("id").notNull(),
    ord: integer("ord").notNull(),
    text: text("text").notNull(),
    label: text("label").notNull(),
    explanation: text("explanation").notNull().default(""),
    anchor: jsonb("anchor").$type<Anchor>(),
    sources: jsonb("sources").$type<Array<{ text: string; found: boolean; file?: string }>>().notNull(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.id] })],
);

/** A patch the model suggested for one finding, against the version the run read. */
export const findingFixes = pgTable(
  "finding_fixes",
  {
    runId: uuid("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    findingId: uuid("finding_id").notNull(),
    file: text("file").notNull(),
    patch: text("patch").notNull(),
    explanation: text("explanation").notNull().default(""),
    createdAt: ts("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.findingId] })],
);

/** Server-sent events of a run, kept so a client can resume with Last-Event-ID. */
export const runEvents = pgTable(
  "run_events",
  {
    runId: uuid("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    seq: integer("seq").notNull(),
    name: text("name").notNull(),
    data: jsonb("data").notNull(),
    createdAt: ts("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.seq] })],
);

/** Model answers by sha256(stage, model, prompt): a re-review re-asks only what changed. */
export const stepCache = pgTable("step_cache", {
  key: text("key").primaryKey(),
  stage: text("stage").notNull(),
  model: text("model").notNull(),
  answer: text("answer").notNull(),
  tokensIn: integer("tokens_in").notNull(),
  tokensOut: integer("tokens_out").notNull(),
  createdAt: ts("created_at").notNull(),
});

/** Reviews of files that are not saved (POST /reviews): kept until `expires_at`, then purged. */
export const adhocReviews = pgTable(
  "adhoc_reviews",
  {
    id: uuid("id").primaryKey(),
    mainPath: text("main_path").notNull(),
    files: jsonb("files")
      .$type<Array<{ path: string; content: string; encoding: "text" | "base64" }>>()
      .notNull(),
    result: jsonb("result").notNull(),
    createdBy: text("created_by").notNull(),
    createdAt: ts("created_at").notNull(),
    expiresAt: ts("expires_at").notNull(),
  },
  (t) => [index("adhoc_reviews_expires").on(t.expiresAt)],
);

// ---- model backends, role assignments, token use (server/models) ----

/** A model backend (contract 2.11). The secret is AES-256-GCM ciphertext, never clear text. */
export const modelBackends = pgTable("model_backends", {
  id: uuid("id").primaryKey(),
  kind: text("kind").notNull(),
  name: text("name").notNull(),
  /** `v1:<iv>:<tag>:<ciphertext>` (base64 parts), or null when there is no secret. */
  secretCipher: text("secret_cipher"),
  secretLast4: text("secret_last4").notNull().default(""),
  baseUrl: text("base_url"),
  preset: text("preset"),
  command: jsonb("command").$type<string[]>(),
  promptVia: text("prompt_via"),
  createdAt: ts("created_at").notNull(),
  updatedAt: ts("updated_at").notNull(),
});

/** Which backend and model a review role uses (contract 2.12); a used backend cannot be deleted. */
export const roleAssignments = pgTable("role_assignments", {
  role: text("role").primaryKey(),
  backendId: uuid("backend_id")
    .notNull()
    .references(() => modelBackends.id, { onDelete: "restrict" }),
  model: text("model").notNull(),
  priceInPerMtok: doublePrecision("price_in_per_mtok"),
  priceOutPerMtok: doublePrecision("price_out_per_mtok"),
  updatedAt: ts("updated_at").notNull(),
});

/** Tokens used per calendar month (`YYYY-MM`, UTC), counted against the monthly budget. */
export const tokenUse = pgTable("token_use", {
  month: text("month").primaryKey(),
  tokensIn: bigint("tokens_in", { mode: "number" }).notNull().default(0),
  tokensOut: bigint("tokens_out", { mode: "number" }).notNull().default(0),
  updatedAt: ts("updated_at").notNull(),
});

// ---------------------------------------------------------------------------------------
// access (issue 14): share links of bundles and the guests who entered by one
// (server/auth/share-links.ts, server/auth/guests.ts; docs/permissions.md). Tokens are
// stored as SHA-256 hashes, never in plain text.

/** Share links; at most one of a bundle is active (not revoked, not expired). */
export const shareLinks = pgTable(
  "share_links",
  {
    id: uuid("id").primaryKey(),
    bundleId: uuid("bundle_id")
      .notNull()
      .references(() => bundles.id, { onDelete: "cascade" }),
    tokenHash: text("token_hash").notNull(),
    createdBy: text("created_by").notNull(),
    createdAt: ts("created_at").notNull(),
    /** Null: the link does not expire. */
    expiresAt: ts("expires_at"),
    revokedAt: ts("revoked_at"),
  },
  (t) => [uniqueIndex("share_links_token").on(t.tokenHash), index("share_links_bundle").on(t.bundleId)],
);

/** Guests: who entered a share link with a display name; the guest cookie names one. */
export const guests = pgTable(
  "guests",
  {
    id: uuid("id").primaryKey(),
    shareLinkId: uuid("share_link_id")
      .notNull()
      .references(() => shareLinks.id, { onDelete: "cascade" }),
    bundleId: uuid("bundle_id")
      .notNull()
      .references(() => bundles.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** SHA-256 of the guest cookie's value. */
    tokenHash: text("token_hash").notNull(),
    createdAt: ts("created_at").notNull(),
    expiresAt: ts("expires_at").notNull(),
  },
  (t) => [uniqueIndex("guests_token").on(t.tokenHash), index("guests_link").on(t.shareLinkId)],
);

// ---- branch `auth`: accounts, sessions, API tokens, invites, reset links (server/auth) ----

/** A person of a hosted workspace. `removed_at` set: offboarded (sessions and tokens gone, sign-in refused). */
export const users = pgTable(
  "users",
  {
    id: uuid("id").primaryKey(),
    /** Lower-cased; one account per address. */
    email: text("email").notNull(),
    name: text("name").notNull(),
    /** `admin`, `member` or `viewer`. */
    role: text("role").notNull(),
    /** `scrypt$N$r$p$<salt b64>$<hash b64>` (server/auth/passwords.ts). */
    passwordHash: text("password_hash").notNull(),
    /** The GitHub login linked to the account (lower-cased; at most one account per login). */
    githubLogin: text("github_login"),
    createdAt: ts("created_at").notNull(),
    removedAt: ts("removed_at"),
  },
  (t) => [uniqueIndex("users_email").on(t.email), uniqueIndex("users_github_login").on(t.githubLogin)],
);

/**
 * The `state` of a GitHub login link (server/auth/github-link.ts) once used: its SHA-256,
 * kept until it would have expired anyway, so each authorization is taken once.
 */
export const usedOauthStates = pgTable("used_oauth_states", {
  hash: text("hash").primaryKey(),
  expiresAt: ts("expires_at").notNull(),
});

/** A signed-in browser: the cookie holds the token, the table only its SHA-256. */
export const sessions = pgTable(
  "sessions",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: ts("created_at").notNull(),
    expiresAt: ts("expires_at").notNull(),
  },
  (t) => [index("sessions_user").on(t.userId)],
);

/** An API token for scripts, the Action and coding agents (`Authorization: Bearer`); only its SHA-256 is kept. */
export const apiTokens = pgTable(
  "api_tokens",
  {
    id: uuid("id").primaryKey(),
    tokenHash: text("token_hash").notNull(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** The token's last 4 characters, to tell tokens apart in a list. */
    last4: text("last4").notNull(),
    createdAt: ts("created_at").notNull(),
    expiresAt: ts("expires_at").notNull(),
    lastUsedAt: ts("last_used_at"),
  },
  (t) => [uniqueIndex("api_tokens_hash").on(t.tokenHash), index("api_tokens_user").on(t.userId)],
);

/** A single-use invite with a role; only the token's SHA-256 is kept. */
export const invites = pgTable(
  "invites",
  {
    id: uuid("id").primaryKey(),
    tokenHash: text("token_hash").notNull(),
    role: text("role").notNull(),
    createdBy: text("created_by").notNull(),
    createdAt: ts("created_at").notNull(),
    expiresAt: ts("expires_at").notNull(),
    usedBy: uuid("used_by"),
    usedAt: ts("used_at"),
    revokedAt: ts("revoked_at"),
  },
  (t) => [uniqueIndex("invites_hash").on(t.tokenHash), index("invites_created").on(t.createdAt)],
);

/** A one-time password reset link for one user; a newer link revokes the older ones. */
export const resetLinks = pgTable(
  "reset_links",
  {
    id: uuid("id").primaryKey(),
    tokenHash: text("token_hash").notNull(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdBy: text("created_by").notNull(),
    createdAt: ts("created_at").notNull(),
    expiresAt: ts("expires_at").notNull(),
    usedAt: ts("used_at"),
    revokedAt: ts("revoked_at"),
  },
  (t) => [uniqueIndex("reset_links_hash").on(t.tokenHash), index("reset_links_user").on(t.userId)],
);

// ------------------------------------------------------------------- branch: store

/**
 * The bytes of a large blob, in slices (`blobs.content` is then empty and `blobs.size`
 * says how long it is): a 10 MB file is written in bounded statements with a turn of the
 * event loop between them, so the embedded database never holds the request loop for
 * the whole file. Deleted with their blob.
 */
export const blobChunks = pgTable(
  "blob_chunks",
  {
    sha256: text("sha256")
      .notNull()
      .references(() => blobs.sha256, { onDelete: "cascade" }),
    seq: integer("seq").notNull(),
    content: bytea("content").notNull(),
  },
  (t) => [primaryKey({ columns: [t.sha256, t.seq] })],
);

// Branch `trace` (issue 13): the version of every linked bundle a run read, so a newer
// upstream version makes the run's verdict stale (docs/trace.md, "Upstream staleness").

/** One row per run and linked upstream bundle: the version number the run read. */
export const runUpstream = pgTable(
  "run_upstream",
  {
    runId: uuid("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    bundleId: uuid("bundle_id")
      .notNull()
      .references(() => bundles.id, { onDelete: "cascade" }),
    versionNumber: bigint("version_number", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.bundleId] }), index("run_upstream_bundle").on(t.bundleId)],
);

/**
 * Links a person confirmed that the service holds rather than the doc (contract 2.8,
 * origin `adopted`): import's `links` part. Taking one out changes no file.
 */
export const heldLinks = pgTable(
  "held_links",
  {
    bundleId: uuid("bundle_id")
      .notNull()
      .references(() => bundles.id, { onDelete: "cascade" }),
    kind: text("kind").notNull(),
    /** A bundle slug or a URL, as `core/trace/links.ts` normalises them. */
    target: text("target").notNull(),
    createdBy: text("created_by").notNull(),
    createdAt: ts("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.bundleId, t.kind, t.target] })],
);

// ---- branch mcp: MCP connections and external link checks (server/mcp) ----

/**
 * An MCP server the service may call (contract 2.13). The secret is AES-256-GCM ciphertext
 * (the connection id bound in), never clear text; lists are kept as JSON arrays.
 */
export const mcpConnections = pgTable("mcp_connections", {
  id: uuid("id").primaryKey(),
  name: text("name").notNull(),
  /** `stdio` (a command run as a subprocess) or `http` (streamable HTTP at `url`). */
  transport: text("transport").notNull(),
  command: jsonb("command").$type<string[]>(),
  url: text("url"),
  secretEnv: text("secret_env"),
  secretCipher: text("secret_cipher"),
  secretLast4: text("secret_last4").notNull().default(""),
  toolAllowlist: jsonb("tool_allowlist").$type<string[]>().notNull(),
  isSearch: boolean("is_search").notNull().default(false),
  searchTool: text("search_tool").notNull().default(""),
  hosts: jsonb("hosts").$type<string[]>().notNull(),
  fetchTool: text("fetch_tool").notNull().default(""),
  createdAt: ts("created_at").notNull(),
  updatedAt: ts("updated_at").notNull(),
});

/** What a full run found when it read one external target of its bundle (contract 2.8 `state`). */
export const linkChecks = pgTable(
  "link_checks",
  {
    runId: uuid("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    bundleId: uuid("bundle_id")
      .notNull()
      .references(() => bundles.id, { onDelete: "cascade" }),
    targetUrl: text("target_url").notNull(),
    /** `aligned`, `drifted`, `conflicting` or `unchecked`. */
    state: text("state").notNull(),
    stateReason: text("state_reason").notNull(),
    /** For a code target: the commit that was read, when known. */
    commit: text("commit"),
    checkedAt: ts("checked_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.runId, t.targetUrl] }),
    index("link_checks_bundle").on(t.bundleId, t.checkedAt),
  ],
);

// ---- collaboration seam: the inbox (server/inbox/items.ts) ----

/**
 * One thing waiting for one person: a review request, a mention, a waiver to decide, an
 * AI answer in their thread, a rejected waiver, a blocked handoff. Written by the feature
 * that causes it (`addInboxItems`), read by `GET /inbox`.
 */
export const inboxItems = pgTable(
  "inbox_items",
  {
    id: uuid("id").primaryKey(),
    /** The recipient's actor id (`admin` in local mode, a user id in hosted mode). */
    userId: text("user_id").notNull(),
    /** `review_request`, `mention`, `waiver_to_decide`, `ai_answer`, `waiver_rejected`, `handoff_blocked`, ... */
    kind: text("kind").notNull(),
    bundleId: uuid("bundle_id").references(() => bundles.id, { onDelete: "cascade" }),
    docId: uuid("doc_id"),
    threadId: uuid("thread_id"),
    messageId: uuid("message_id"),
    waiverId: uuid("waiver_id"),
    runId: uuid("run_id"),
    /** Who caused it (actor id), when a person or the AI did. */
    actorId: text("actor_id"),
    /** One sentence for the list, in words. */
    summary: text("summary").notNull(),
    createdAt: ts("created_at").notNull(),
    readAt: ts("read_at"),
  },
  (t) => [index("inbox_items_user").on(t.userId, t.createdAt)],
);

// ---- verify: handoffs, handoff reports, verification runs and their events, verification waivers (server/handoff, server/verify) ----

/** A build packet a builder took (docs/handoff.md): the version, and the verdict it was taken at. */
export const handoffs = pgTable(
  "handoffs",
  {
    id: uuid("id").primaryKey(),
    docId: uuid("doc_id")
      .notNull()
      .references(() => docs.id, { onDelete: "cascade" }),
    bundleId: uuid("bundle_id")
      .notNull()
      .references(() => bundles.id, { onDelete: "cascade" }),
    versionId: uuid("version_id").notNull(),
    versionNumber: bigint("version_number", { mode: "number" }).notNull(),
    label: text("label").notNull(),
    acknowledged: boolean("acknowledged").notNull(),
    verdict: jsonb("verdict").$type<Verdict>(),
    createdBy: text("created_by").notNull(),
    createdAt: ts("created_at").notNull(),
  },
  (t) => [index("handoffs_doc_created").on(t.docId, t.createdAt)],
);

/** What a build learned, sent back against a handoff (`built`, `partial`, `blocked`). */
export const handoffReports = pgTable(
  "handoff_reports",
  {
    id: uuid("id").primaryKey(),
    handoffId: uuid("handoff_id")
      .notNull()
      .references(() => handoffs.id, { onDelete: "cascade" }),
    result: text("result").notNull(),
    body: text("body").notNull(),
    anchor: jsonb("anchor").$type<{ heading_path: string[] }>(),
    threadId: uuid("thread_id"),
    createdBy: text("created_by").notNull(),
    createdAt: ts("created_at").notNull(),
  },
  (t) => [index("handoff_reports_handoff").on(t.handoffId, t.createdAt)],
);

/** One verification of a code repo at a commit, or a folder, against a bundle's trace IDs (docs/verification.md). */
export const verificationRuns = pgTable(
  "verification_runs",
  {
    id: uuid("id").primaryKey(),
    docId: uuid("doc_id")
      .notNull()
      .references(() => docs.id, { onDelete: "cascade" }),
    bundleId: uuid("bundle_id")
      .notNull()
      .references(() => bundles.id, { onDelete: "cascade" }),
    versionNumber: bigint("version_number", { mode: "number" }).notNull(),
    status: text("status").notNull(),
    verdict: text("verdict"),
    /** What the run reads: `{kind, repo?, sha?, path?, branch?, base_sha?, pull_request?}`. */
    target: jsonb("target").$type<Record<string, unknown>>().notNull(),
    handoffId: uuid("handoff_id"),
    claims: jsonb("claims").$type<unknown[]>().notNull().default([]),
    outcomes: jsonb("outcomes").$type<unknown[]>().notNull().default([]),
    /** The rest of the finished run: digest, unverified IDs, limits hit, check mode, counts. */
    result: jsonb("result").$type<Record<string, unknown>>().notNull().default({}),
    error: text("error"),
    openedBlockingThread: boolean("opened_blocking_thread").notNull().default(false),
    createdBy: text("created_by").notNull(),
    createdAt: ts("created_at").notNull(),
    finishedAt: ts("finished_at"),
  },
  (t) => [index("verification_runs_doc_created").on(t.docId, t.createdAt)],
);

/** Server-sent events of a verification run, kept so a client can resume with Last-Event-ID. */
export const verificationEvents = pgTable(
  "verification_events",
  {
    runId: uuid("run_id")
      .notNull()
      .references(() => verificationRuns.id, { onDelete: "cascade" }),
    seq: integer("seq").notNull(),
    name: text("name").notNull(),
    data: jsonb("data").notNull(),
    createdAt: ts("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.seq] })],
);

/** A request to excuse one trace ID in one code repo or folder; never written to the sidecar. */
export const verificationWaivers = pgTable(
  "verification_waivers",
  {
    id: uuid("id").primaryKey(),
    docId: uuid("doc_id")
      .notNull()
      .references(() => docs.id, { onDelete: "cascade" }),
    bundleId: uuid("bundle_id")
      .notNull()
      .references(() => bundles.id, { onDelete: "cascade" }),
    traceId: text("trace_id").notNull(),
    /** The repo (`owner/name`) or the folder, as the run names it. */
    repo: text("repo").notNull(),
    reason: text("reason").notNull(),
    runId: uuid("run_id"),
    /** `requested`, `approved`, `rejected`. */
    status: text("status").notNull(),
    decidedBy: text("decided_by"),
    decidedAt: ts("decided_at"),
    rejectionReason: text("rejection_reason"),
    createdBy: text("created_by").notNull(),
    createdAt: ts("created_at").notNull(),
  },
  (t) => [index("verification_waivers_doc").on(t.docId, t.traceId)],
);

// ---- threads: discussion on a doc or a profile, and its messages (server/threads) ----

/**
 * A thread (contract 2.10): on a doc (`doc_id`, `bundle_id`) or on a profile's check
 * (`profile_key`). A text anchor's offsets are those of `anchored_version_id`, the version
 * it was last found again in (server/threads/reanchor.ts moves it on every new version).
 */
export const threads = pgTable(
  "threads",
  {
    id: uuid("id").primaryKey(),
    docId: uuid("doc_id").references(() => docs.id, { onDelete: "cascade" }),
    bundleId: uuid("bundle_id").references(() => bundles.id, { onDelete: "cascade" }),
    profileKey: text("profile_key"),
    /** `text`, `section`, `finding`, `check`. */
    anchorKind: text("anchor_kind").notNull(),
    anchor: jsonb("anchor").$type<Record<string, unknown>>().notNull(),
    /** The version a text anchor's offsets belong to. */
    anchoredVersionId: uuid("anchored_version_id"),
    anchoredVersionNumber: bigint("anchored_version_number", { mode: "number" }),
    /** `humans` or `ai`. */
    addressedTo: text("addressed_to").notNull(),
    title: text("title").notNull(),
    handoffId: uuid("handoff_id"),
    handoffVersion: bigint("handoff_version", { mode: "number" }).notNull().default(0),
    blocking: boolean("blocking").notNull().default(false),
    /** `open` or `resolved`. */
    status: text("status").notNull(),
    createdBy: text("created_by").notNull(),
    createdAt: ts("created_at").notNull(),
    lastMessageAt: ts("last_message_at").notNull(),
    messageCount: integer("message_count").notNull().default(0),
    /** The AI is writing an answer. */
    answering: boolean("answering").notNull().default(false),
    /** Why the AI could not answer the last message (no model, budget, a failed call); null once it answers. */
    aiError: text("ai_error"),
    /** The message that is the thread's decision now (the latest one marked). */
    decisionMessageId: uuid("decision_message_id"),
  },
  (t) => [index("threads_doc").on(t.docId, t.status), index("threads_profile").on(t.profileKey, t.status)],
);

/** Messages of a thread, numbered from 1 (`seq`). */
export const threadMessages = pgTable(
  "thread_messages",
  {
    id: uuid("id").primaryKey(),
    threadId: uuid("thread_id")
      .notNull()
      .references(() => threads.id, { onDelete: "cascade" }),
    seq: integer("seq").notNull(),
    /** `user`, `guest`, `ai`. */
    authorKind: text("author_kind").notNull(),
    authorId: text("author_id"),
    authorName: text("author_name").notNull(),
    body: text("body").notNull(),
    sources: jsonb("sources").$type<string[]>().notNull().default([]),
    /** `""`, `decision` or `reversal`. */
    decision: text("decision").notNull().default(""),
    createdAt: ts("created_at").notNull(),
  },
  (t) => [uniqueIndex("thread_messages_seq").on(t.threadId, t.seq)],
);

// ---- waivers: waivers and acknowledgements, review requests and approvals, inbox seen marks (server/waivers) ----

/**
 * A waiver of one finding, or an acknowledgement of one upstream trace ID or of the whole
 * doc (standalone). `source` `sidecar`: a hand-written sidecar entry became this request.
 * Approvals are kept inline (`[{by, name, at}]`); the policy that applied is copied in.
 */
export const waivers = pgTable(
  "waivers",
  {
    id: uuid("id").primaryKey(),
    docId: uuid("doc_id")
      .notNull()
      .references(() => docs.id, { onDelete: "cascade" }),
    bundleId: uuid("bundle_id")
      .notNull()
      .references(() => bundles.id, { onDelete: "cascade" }),
    /** `finding`, `trace` or `standalone`. */
    kind: text("kind").notNull(),
    status: text("status").notNull(),
    reason: text("reason").notNull(),
    findingId: uuid("finding_id"),
    checkSlug: text("check_slug"),
    level: text("level"),
    /** The waived finding's anchor when requested: file, heading path and quote keep it matched. */
    anchor: jsonb("anchor").$type<Anchor>(),
    traceId: text("trace_id"),
    upstream: text("upstream"),
    profileKey: text("profile_key").notNull(),
    approvalsNeeded: integer("approvals_needed").notNull(),
    approvers: text("approvers").notNull(),
    approvals: jsonb("approvals").$type<Array<{ by: string; name: string; at: string }>>().notNull(),
    rejectionReason: text("rejection_reason"),
    decidedBy: text("decided_by"),
    withdrawnBy: text("withdrawn_by"),
    /** `service` (requested through the API) or `sidecar` (found unsigned in the sidecar file). */
    source: text("source").notNull(),
    createdBy: text("created_by").notNull(),
    createdByName: text("created_by_name").notNull(),
    createdAt: ts("created_at").notNull(),
    updatedAt: ts("updated_at").notNull(),
  },
  (t) => [index("waivers_doc").on(t.docId, t.createdAt), index("waivers_status").on(t.status)],
);

/** Who was asked to review a doc (one row per doc and reviewer). */
export const reviewRequests = pgTable(
  "review_requests",
  {
    docId: uuid("doc_id")
      .notNull()
      .references(() => docs.id, { onDelete: "cascade" }),
    reviewerId: text("reviewer_id").notNull(),
    reviewerName: text("reviewer_name").notNull(),
    requestedBy: text("requested_by").notNull(),
    requestedAt: ts("requested_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.docId, t.reviewerId] })],
);

/** One approval of one version of a doc; the history is kept across versions. */
export const docApprovals = pgTable(
  "doc_approvals",
  {
    docId: uuid("doc_id")
      .notNull()
      .references(() => docs.id, { onDelete: "cascade" }),
    versionId: uuid("version_id").notNull(),
    versionNumber: bigint("version_number", { mode: "number" }).notNull(),
    by: text("by").notNull(),
    byName: text("by_name").notNull(),
    comment: text("comment"),
    approvedAt: ts("approved_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.docId, t.versionId, t.by] })],
);

/** When each person last marked their inbox seen (`POST /inbox/seen`). */
export const inboxSeen = pgTable("inbox_seen", {
  userId: text("user_id").primaryKey(),
  seenAt: ts("seen_at").notNull(),
});

// ---- app: the repohost (GitHub) connection, sources, their bundles and commits, webhook deliveries (server/repohost) ----

/** The workspace's repohost token (one row, id `default`); the token sealed with the secret box. */
export const repohostConnection = pgTable("repohost_connection", {
  id: text("id").primaryKey(),
  tokenSealed: text("token_sealed").notNull(),
  tokenLast4: text("token_last4").notNull(),
  apiUrl: text("api_url").notNull(),
  login: text("login"),
  updatedAt: ts("updated_at").notNull(),
});

/** A repo, branch and folder the service reads bundles from. */
export const repohostSources = pgTable("repohost_sources", {
  id: uuid("id").primaryKey(),
  url: text("url").notNull(),
  owner: text("owner").notNull(),
  repo: text("repo").notNull(),
  branch: text("branch").notNull(),
  path: text("path").notNull(),
  /** The App installation that reads it; null: the workspace token does. */
  installationId: bigint("installation_id", { mode: "number" }),
  isPrivate: boolean("is_private").notNull().default(false),
  lastCommit: text("last_commit"),
  /** ETag of the last branch read, for a conditional request. */
  etag: text("etag"),
  lastSyncedAt: ts("last_synced_at"),
  syncError: text("sync_error"),
  /**
   * `idle`, `syncing`, `waiting_rate_limit` (the repo host said to wait: `resume_at`) or
   * `error` (`sync_error` says why). Shared by every instance (server/repohost/rate-limit.ts).
   */
  syncState: text("sync_state").notNull().default("idle"),
  /** No call to the repo host for this source before this time (a rate limit's wait). */
  resumeAt: ts("resume_at"),
  /** Secondary rate limits in a row without `retry-after`: the next wait doubles. */
  rateLimitStrikes: integer("rate_limit_strikes").notNull().default(0),
  /** The instance syncing it holds it until then (polling and resuming: one instance at a time). */
  leaseUntil: ts("lease_until"),
  /** The ETag of the branch ref's last answer: any instance sends it, so an unchanged branch is a 304. */
  refEtag: text("ref_etag"),
  /** Types accepted for skipped docs, held in the service: path -> profile key. */
  accepted: jsonb("accepted").$type<Record<string, string>>().notNull().default({}),
  createdAt: ts("created_at").notNull(),
  /** Set when the source was deleted: reading stopped, its bundles archived. */
  deletedAt: ts("deleted_at"),
});

/** A bundle read from a source: its folder in the repo, and its draft. */
export const repohostBundles = pgTable(
  "repohost_bundles",
  {
    bundleId: uuid("bundle_id")
      .primaryKey()
      .references(() => bundles.id, { onDelete: "cascade" }),
    sourceId: uuid("source_id")
      .notNull()
      .references(() => repohostSources.id, { onDelete: "cascade" }),
    /** Folder of the bundle from the repo root. */
    folder: text("folder").notNull(),
    /** The last version read from the repo (not a draft). */
    repoVersionId: uuid("repo_version_id"),
    /** The commit the draft started from; null without a draft. */
    draftBase: text("draft_base"),
    /** The branch changed the bundle's folder after the draft started. */
    ahead: boolean("ahead").notNull().default(false),
    prUrl: text("pr_url"),
    prNumber: integer("pr_number"),
  },
  (t) => [uniqueIndex("repohost_bundles_folder").on(t.sourceId, t.folder)],
);

/** The commit each version read from the repo stands for (a draft version has none). */
export const repohostVersions = pgTable("repohost_versions", {
  versionId: uuid("version_id")
    .primaryKey()
    .references(() => versions.id, { onDelete: "cascade" }),
  commit: text("commit").notNull(),
});

/** Webhook deliveries handled, so a redelivery does nothing twice. */
export const repohostDeliveries = pgTable("repohost_deliveries", {
  /** GitHub's `X-GitHub-Delivery` guid (a redelivery keeps it). */
  id: text("id").primaryKey(),
  event: text("event").notNull(),
  receivedAt: ts("received_at").notNull(),
  /** The latest run of its handler: when it started, on which instance, how many runs so far. */
  startedAt: ts("started_at"),
  worker: text("worker"),
  attempts: integer("attempts").notNull().default(1),
  /** Set when a handler run finished: only then is the delivery done (app/deliveries.ts). */
  finishedAt: ts("finished_at"),
  /** Set when the last run failed (its redelivery runs again). */
  failedAt: ts("failed_at"),
  /** When the reconciliation asked GitHub to deliver it again (once: app/reconcile.ts). */
  redeliveredAt: ts("redelivered_at"),
  /** `repository`: a redelivered push that stands for every missed push of its repository. */
  scope: text("scope"),
});

/**
 * The App's reconciliation (app/reconcile.ts): one row, its lease (one instance at a time)
 * and where the last pass got to: the newest delivery it settled (GitHub's clock) and when
 * it last looked at pull requests.
 */
export const appReconcile = pgTable("app_reconcile", {
  id: text("id").primaryKey(),
  holder: text("holder"),
  leaseUntil: ts("lease_until"),
  /** GitHub's `delivered_at` of the newest delivery every older one of which is settled. */
  since: ts("since"),
  lastPassAt: ts("last_pass_at"),
  /** A pass left a gap (a redelivery that did not finish): the next checks heads and pulls. */
  safetyNet: boolean("safety_net").notNull().default(false),
});

/** The Build Ready checks the App posted, by pull request head: a head is checked once. */
export const appPullChecks = pgTable(
  "app_pull_checks",
  {
    owner: text("owner").notNull(),
    repo: text("repo").notNull(),
    pullNumber: integer("pull_number").notNull(),
    headSha: text("head_sha").notNull(),
    checkRunId: bigint("check_run_id", { mode: "number" }).notNull(),
    createdAt: ts("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.owner, t.repo, t.pullNumber, t.headSha] })],
);

/** Comments addressed to the App (`@<app-slug> …`) it answered: each once (app/commands.ts). */
export const appCommentAnswers = pgTable(
  "app_comment_answers",
  {
    /** `issue` (the pull request's conversation) or `review` (a review comment). */
    kind: text("kind").notNull(),
    commentId: bigint("comment_id", { mode: "number" }).notNull(),
    command: text("command").notNull(),
    answeredAt: ts("answered_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.kind, t.commentId] })],
);

/**
 * Which thread a GitHub review comment opened or was carried into, and where it is on
 * GitHub (app/threads-sink.ts): each comment is carried once, either way.
 */
export const githubCommentThreads = pgTable(
  "github_comment_threads",
  {
    commentId: bigint("comment_id", { mode: "number" }).primaryKey(),
    threadId: uuid("thread_id")
      .notNull()
      .references(() => threads.id, { onDelete: "cascade" }),
    /** `owner/name`, the pull request, and the comment that opened the thread (replies go under it). */
    repo: text("repo").notNull(),
    pullNumber: integer("pull_number").notNull(),
    rootCommentId: bigint("root_comment_id", { mode: "number" }).notNull(),
    createdAt: ts("created_at").notNull(),
  },
  (t) => [index("github_comment_threads_thread").on(t.threadId)],
);

/**
 * The App's full reviews of pull requests in flight (app/pr-review.ts): one row while a
 * review runs, held by the instance that runs it (its heartbeat, the review worker's lease
 * pattern), deleted when it ends. A row whose holder stopped saying it is alive was left by
 * a process that died: another instance claims it and settles its check (docs/app.md).
 */
export const prReviews = pgTable(
  "pr_reviews",
  {
    id: uuid("id").primaryKey(),
    installationId: bigint("installation_id", { mode: "number" }).notNull(),
    owner: text("owner").notNull(),
    repo: text("repo").notNull(),
    pullNumber: integer("pull_number").notNull(),
    headSha: text("head_sha").notNull(),
    checkRunId: bigint("check_run_id", { mode: "number" }).notNull(),
    startedAt: ts("started_at").notNull(),
    /** `running` while held; `settling` once an instance claimed it after its holder died. */
    status: text("status").$type<"running" | "settling">().notNull(),
    /** The instance holding the row, and when it last said it is alive. */
    worker: text("worker").notNull(),
    heartbeatAt: ts("heartbeat_at").notNull(),
    /** Times the review was started (a review re-run after a crash counts again). */
    attempts: integer("attempts").notNull().default(1),
  },
  (t) => [index("pr_reviews_heartbeat").on(t.heartbeatAt)],
);
