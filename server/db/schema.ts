/**
 * The database schema. One schema and one set of generated migrations
 * (`npm run db:generate`) serve both embedded PGlite and a Postgres server.
 */
import { sql } from "drizzle-orm";
import {
  bigint,
  customType,
  index,
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
