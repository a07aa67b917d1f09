/**
 * Skipped and dismissed docs: markdown outside every bundle that names no type is
 * offered for adoption; a person may dismiss it (not a spec), or adopt it by writing a
 * `type` into its frontmatter.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { asc, eq } from "drizzle-orm";
import { folderOf } from "../../core/bundle/discover.js";
import type { Db } from "../db/index.js";
import { dismissedDocs } from "../db/schema.js";
import type { Clock } from "../deps.js";
import { ApiError } from "../errors.js";
import { atomicWrite } from "./fsutil.js";
import { safeRelativePath } from "./paths.js";
import type { DismissedDoc } from "./types.js";

function dismissedRecord(r: typeof dismissedDocs.$inferSelect): DismissedDoc {
  return { path: r.path, created_by: r.createdBy, created_at: r.createdAt.toISOString() };
}

/** Paths people marked as not a spec (kept in the database, by path under the served folder). */
export class DismissedDocs {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  async paths(): Promise<Set<string>> {
    return new Set(
      (await this.db.select({ path: dismissedDocs.path }).from(dismissedDocs)).map((r) => r.path),
    );
  }

  async list(): Promise<DismissedDoc[]> {
    const rows = await this.db.select().from(dismissedDocs).orderBy(asc(dismissedDocs.path));
    return rows.map(dismissedRecord);
  }

  async add(path: string, by: string): Promise<DismissedDoc> {
    await this.db
      .insert(dismissedDocs)
      .values({ path, createdBy: by, createdAt: this.clock.now() })
      .onConflictDoNothing();
    const [row] = await this.db.select().from(dismissedDocs).where(eq(dismissedDocs.path, path));
    return dismissedRecord(row!);
  }

  async remove(path: string): Promise<boolean> {
    const rows = await this.db.delete(dismissedDocs).where(eq(dismissedDocs.path, path)).returning();
    return rows.length > 0;
  }
}

/**
 * Check adoption picks against the skipped list and the folders that already hold a
 * spec doc, then write a `type` into each file (every new text is computed before any
 * is written, so a bad file changes nothing). Answers the folders that became bundles.
 */
export async function adoptFiles(
  root: string,
  picks: Array<{ path: string; profile: string }>,
  skipped: readonly string[],
  claimed: ReadonlySet<string>,
  write: (text: string, type: string) => string,
): Promise<string[]> {
  const folders = new Map<string, string>();
  const paths = picks.map((p) => safeRelativePath(p.path));
  for (const path of paths) {
    if (!skipped.includes(path))
      throw new ApiError("validation_failed", `${path} is not a skipped markdown file`, {
        errors: [{ field: "body.docs.path", message: "not in GET /skipped" }],
      });
    const folder = folderOf(path);
    const other = folders.get(folder);
    if (other !== undefined)
      throw new ApiError(
        "two_spec_docs",
        `${other} and ${path} are in the same folder; a bundle holds one spec doc, so pick one or move the other to its own folder`,
      );
    if (claimed.has(folder)) throw new ApiError("two_spec_docs", `${folder} already holds a spec doc`);
    folders.set(folder, path);
  }
  const texts = await Promise.all(paths.map((p) => readFile(join(root, p), "utf8")));
  const next = picks.map((p, i) => write(texts[i]!, p.profile));
  for (let i = 0; i < paths.length; i++)
    await atomicWrite(join(root, paths[i]!), new TextEncoder().encode(next[i]));
  return paths.map((p) => folderOf(p));
}
