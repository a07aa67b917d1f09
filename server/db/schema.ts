/**
 * The database schema. One schema and one set of generated migrations
 * (`npm run db:generate`) serve both embedded PGlite and a Postgres server.
 */
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  customType,
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
    sourceKind: text("source_kind").notNull(),
    slug: text("slug").notNull(),
    title: text("title").notNull(),
    visibility: text("visibility"),
    /** Id and number of the newest version; 0 and null before the first. */
    headVersionId: uuid("head_version_id"),
    headNumber: bigint("head_number", { mode: "number" }).notNull().default(0),
    /** Set when the folder is gone from disk; the bundle is hidden until it comes back. */
    goneAt: ts("gone_at"),
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
    status: text("status").notNull().default("draft"),
    /** What is wrong with the doc's own text (e.g. malformed frontmatter), as JSON. */
    problems: jsonb("problems").$type<{ message: string; line?: number; column?: number }[]>(),
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
    verdict: jsonb("verdict"),
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
    anchor: jsonb("anchor"),
    stage: text("stage").notNull(),
    relaxed: boolean("relaxed").notNull().default(false),
  },
  (t) => [primaryKey({ columns: [t.runId, t.id] })],
);
