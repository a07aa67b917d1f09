/**
 * Workspace settings (contract section 8), stored one key per row, with defaults.
 * SETTING_FIELDS is the one source of the bounds, defaults and meanings: the admin
 * schema (server/schemas/admin.ts) is built from it.
 */
import { inArray, sql } from "drizzle-orm";
import type { Db } from "./db/index.js";
import { settings } from "./db/schema.js";
import type { Limits } from "./store/local.js";

export const SETTING_FIELDS = {
  max_file_mb: { type: "integer", min: 1, max: 50, default: 10, required: true, meaning: "largest file" },
  max_bundle_mb: {
    type: "integer",
    min: 1,
    max: 500,
    default: 50,
    required: true,
    meaning: "largest bundle",
  },
  invite_ttl_days: {
    type: "integer",
    min: 1,
    max: 90,
    default: 7,
    required: true,
    meaning: "lifetime of an invite",
  },
  resolve_sources: {
    type: "boolean",
    default: true,
    required: false,
    meaning:
      "read the metadata of each grounding source; when off, a source carries no redirect chain and no retrieval date",
  },
  parallel_calls: {
    type: "integer",
    min: 1,
    max: 16,
    default: 4,
    required: true,
    meaning: "model calls at a time per run",
  },
  github_association_role: {
    type: "enum",
    values: ["off", "viewer", "member"],
    default: "off",
    required: false,
    meaning:
      "the role the GitHub App gives a commenter or reviewer with no linked account whose author_association is OWNER, MEMBER or COLLABORATOR; off: such a person is a guest",
  },
} as const;

type Fields = typeof SETTING_FIELDS;
export type Settings = {
  -readonly [K in keyof Fields]: Fields[K] extends { values: readonly (infer V)[] }
    ? V
    : Fields[K]["default"] extends boolean
      ? boolean
      : number;
};

export const SETTING_DEFAULTS: Settings = Object.fromEntries(
  Object.entries(SETTING_FIELDS).map(([k, f]) => [k, f.default]),
) as Settings;

export async function readSettings(db: Db): Promise<Settings> {
  const rows = await db
    .select()
    .from(settings)
    .where(inArray(settings.key, Object.keys(SETTING_DEFAULTS)));
  const out: Settings = { ...SETTING_DEFAULTS };
  for (const r of rows) (out as Record<string, unknown>)[r.key] = r.value;
  return out;
}

/**
 * Store the whole settings object (validated by the caller against the section-8 bounds).
 * An optional field left out takes its default.
 */
export async function writeSettings(db: Db, values: Partial<Settings>, now: Date): Promise<Settings> {
  const next: Settings = { ...SETTING_DEFAULTS, ...values };
  await db.transaction(async (tx) => {
    for (const [key, value] of Object.entries(next))
      await tx
        .insert(settings)
        .values({ key, value, updatedAt: now })
        .onConflictDoUpdate({ target: settings.key, set: { value: sql`excluded.value`, updatedAt: now } });
  });
  return next;
}

/**
 * The workspace settings, read once and kept until they are written (here, or on another
 * instance: the cluster's `settings` notice calls `forget`). A save reads the limits twice
 * (the body limit, then the write), so this saves it two statements.
 */
export class SettingsCache {
  private value: Promise<Settings> | undefined;
  /** Told after a write here (the cluster tells the other instances). */
  onChange: (() => void) | undefined;

  constructor(private readonly db: Db) {}

  read(): Promise<Settings> {
    if (this.value) return this.value;
    // Frozen: every reader shares the one object.
    const p = readSettings(this.db).then((s) => Object.freeze(s) as Settings);
    this.value = p;
    // A failed read is not kept; a read that a write overtook is not kept either (`forget`).
    p.catch(() => {
      if (this.value === p) this.value = undefined;
    });
    return p;
  }

  async write(values: Partial<Settings>, now: Date): Promise<Settings> {
    try {
      return await writeSettings(this.db, values, now);
    } finally {
      this.forget();
      this.onChange?.();
    }
  }

  /** Read them afresh next time. */
  forget(): void {
    this.value = undefined;
  }
}

export function limitsFrom(settings: SettingsCache): () => Promise<Limits> {
  return async () => {
    const s = await settings.read();
    return { maxFileMb: s.max_file_mb, maxBundleMb: s.max_bundle_mb };
  };
}
