/** The handlers of the repohost operations (admin token, sources), on the graph's RepohostSources. */
import type { Context } from "hono";
import { deps, type Env } from "../http.js";
import { ApiError } from "../errors.js";
import type { DocRecord } from "../store/types.js";
import type { RepohostSources } from "./sources.js";

/** The repohost service; local mode has none (a folder on disk is its only source). */
export function repohostOf(c: Context<Env>): RepohostSources {
  const r = deps(c).repohost;
  if (r) return r;
  throw new ApiError(
    "hosted_only",
    "repohost sources are read in hosted mode (`spec-review serve --hosted` or `spec-review app`); local mode serves one folder",
  );
}

/**
 * What Delete offers for a repohost bundle: the repo holds its files, so the service can
 * only stop reading its source (archiving every bundle of it), or open a pull request
 * that deletes the folder; nothing is lost in the service either way.
 */
export async function repohostDeletePlan(
  c: Context<Env>,
  row: DocRecord,
  stats: { files: number; bytes: number; versions: number },
) {
  const origin = row.bundle.origin;
  const source = await repohostOf(c).sourceOfBundle(row.bundle.id);
  const where = origin ? `${origin.path || "the root"} of ${origin.repo}@${origin.branch}` : row.bundle.slug;
  return {
    bundle_id: row.bundle.id,
    slug: row.bundle.slug,
    source_kind: "repohost" as const,
    action: "archive" as const,
    sentence: row.bundle.archived
      ? `The bundle is archived: its source, ${where}, was deleted. Its reviews and threads are kept ` +
        `and can be read; it takes no change.`
      : `The files live in ${where}. Stop reading the source (DELETE /repohost/sources/${source}): ` +
        `this bundle and the others it reads are archived, their reviews and threads kept. ` +
        `Or open a pull request that deletes the folder's ${stats.files} files in the repo.`,
    files: stats.files,
    bytes: stats.bytes,
    versions: stats.versions,
    permanent: false,
    source_id: source,
  };
}
