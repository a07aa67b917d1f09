/** Workspace settings (contract section 8), stored one key per row, with defaults. */
import { inArray } from "drizzle-orm";
import type { Db } from "./db/index.js";
import { settings } from "./db/schema.js";
import type { Limits } from "./store/local.js";

export const SETTING_DEFAULTS = {
  max_file_mb: 10,
  max_bundle_mb: 50,
  invite_ttl_days: 7,
  resolve_sources: true,
  parallel_calls: 4,
};

export type Settings = typeof SETTING_DEFAULTS;

export async function readSettings(db: Db): Promise<Settings> {
  const rows = await db
    .select()
    .from(settings)
    .where(inArray(settings.key, Object.keys(SETTING_DEFAULTS)));
  const out: Settings = { ...SETTING_DEFAULTS };
  for (const r of rows) (out as Record<string, unknown>)[r.key] = r.value;
  return out;
}

export function limitsFrom(db: Db): () => Promise<Limits> {
  return async () => {
    const s = await readSettings(db);
    return { maxFileMb: s.max_file_mb, maxBundleMb: s.max_bundle_mb };
  };
}
