/**
 * Profiles held by the service: versioned in the database, parsed once per version.
 * Built-ins are seeded from the package's profiles/ folder at start, then the served
 * folder's own (`.spec-review/profiles/`, which add to and replace built-ins by key); a
 * later release or commit that changes one adds a version, unless someone saved their own since.
 */
import { createTwoFilesPatch } from "diff";
import { and, desc, eq, sql } from "drizzle-orm";
import { stringify } from "yaml";
import type { ParentResolver, Profile, ProfileError } from "../core/profile/index.js";
import type { Db } from "./db/index.js";
import { docs, profileVersions, profiles } from "./db/schema.js";
import type { Clock, Logger } from "./deps.js";
import { ApiError, NotFoundError } from "./errors.js";
import { layersParentResolver, parseProfileFast, readProfileFiles } from "../node/profiles.js";

export const BUILTIN_AUTHOR = "builtin";
/** Author of the versions seeded from the served folder's `.spec-review/profiles/`. */
export const REPOSITORY_AUTHOR = "repository";

export interface ProfileVersionView {
  number: number;
  created_by: string;
  created_at: string;
  message: string;
}

export interface ProfileSummaryView {
  key: string;
  title: string;
  description: string;
  builtin: boolean;
  current_version: ProfileVersionView;
  bundles: number;
}

export interface ProfileDetailView extends ProfileSummaryView {
  /** The text as written and saved (with its `extends:`, when it extends another). */
  yaml: string;
  /** The profile it extends, when it extends one (docs/profiles.md). */
  extends?: string;
  /** With `extends`: the profile the lint uses, the parent's fields merged in, as YAML. */
  resolved_yaml?: string;
  template: string;
  versions: ProfileVersionView[];
  maintainers: string[];
}

/** A profile's YAML that does not parse or validate: 400 with every error's line and column. */
export class ProfileInvalidError extends ApiError {
  constructor(errors: ProfileError[]) {
    const first = errors[0];
    super(
      "profile_invalid",
      first
        ? `profile.yaml line ${first.line}, column ${first.column}: ${first.message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ""}`
        : "the profile is not valid",
      {
        errors: errors.map((e) => ({
          field: e.path ? `yaml.${e.path}` : "yaml",
          message: e.message,
          line: e.line,
          column: e.column,
        })),
      },
    );
    this.name = "ProfileInvalidError";
  }
}

function versionView(v: typeof profileVersions.$inferSelect): ProfileVersionView {
  return {
    number: v.number,
    created_by: v.createdBy,
    created_at: v.createdAt.toISOString(),
    message: v.message,
  };
}

export class ProfileRegistry {
  private readonly cache = new Map<string, { number: number; profile: Profile }>();
  /** The current text of every profile, by key: a profile that extends another is resolved against them. */
  private readonly heads = new Map<string, { number: number; yaml: string; template: string }>();
  /** Called after this registry changed a profile (other instances reload: server/cluster-wire.ts). */
  onChange: (() => void) | undefined;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly builtinDir: string,
    /** Folders of the served repository's own profiles (`.spec-review/profiles/`), applied after the built-ins. */
    private readonly repositoryDirs: readonly string[] = [],
  ) {}

  /**
   * Write the built-ins and the repository's profiles: a profile not there yet gets its
   * first version, one whose head is still a seeded version that differs gets the next.
   * Instances starting together run it one at a time (server/services.ts takes the start
   * lock, server/db/index.ts), and it is idempotent besides: a profile or version another
   * instance wrote first is read back (ON CONFLICT DO NOTHING, then the row, locked), never
   * written twice, so a second start with the same files adds no version. `reload` after.
   */
  async seed(): Promise<void> {
    const now = this.clock.now();
    const layers = [
      { dir: this.builtinDir, origin: "built-in" as const },
      ...this.repositoryDirs.map((dir) => ({ dir, origin: "repository" as const })),
    ];
    const files = readProfileFiles(layers);
    const seeded = new Map(files.map((f) => [f.key, f]));
    const parent = this.parentResolver((k) => seeded.get(k));
    for (const b of files) {
      const author = b.origin === "built-in" ? BUILTIN_AUTHOR : REPOSITORY_AUTHOR;
      const what = b.origin === "built-in" ? "Built-in profile" : "Repository profile";
      const parsed = parseProfileFast(b.yaml, {
        key: b.key,
        templateText: b.template,
        parent,
        file: `${b.key}`,
      });
      if (!parsed.ok) {
        this.logger.error(`${what.toLowerCase()} is invalid`, { key: b.key, errors: parsed.errors });
        continue;
      }
      await this.db.transaction(async (tx) => {
        const made = await tx
          .insert(profiles)
          .values({ key: b.key, builtin: b.builtin, headNumber: 1, createdAt: now, updatedAt: now })
          .onConflictDoNothing({ target: profiles.key })
          .returning({ key: profiles.key });
        if (made.length > 0) {
          await tx
            .insert(profileVersions)
            .values({
              key: b.key,
              number: 1,
              yaml: b.yaml,
              template: b.template,
              createdBy: author,
              message: what,
              createdAt: now,
            })
            .onConflictDoNothing({ target: [profileVersions.key, profileVersions.number] });
          return;
        }
        // There already: read it, locked until this transaction ends.
        const [row] = await tx.select().from(profiles).where(eq(profiles.key, b.key)).for("update");
        if (!row) return;
        const [head] = await tx
          .select()
          .from(profileVersions)
          .where(and(eq(profileVersions.key, b.key), eq(profileVersions.number, row.headNumber)));
        if (
          head &&
          (head.createdBy === BUILTIN_AUTHOR || head.createdBy === REPOSITORY_AUTHOR) &&
          (head.yaml !== b.yaml || head.template !== b.template)
        ) {
          const added = await tx
            .insert(profileVersions)
            .values({
              key: b.key,
              number: row.headNumber + 1,
              yaml: b.yaml,
              template: b.template,
              createdBy: author,
              message: `${what} updated`,
              createdAt: now,
            })
            .onConflictDoNothing({ target: [profileVersions.key, profileVersions.number] })
            .returning({ number: profileVersions.number });
          if (added.length === 0) return;
          await tx
            .update(profiles)
            .set({
              headNumber: row.headNumber + 1,
              updatedAt: now,
              builtin: row.builtin || b.builtin,
            })
            .where(eq(profiles.key, b.key));
        }
      });
    }
  }

  /** Load the current version of every profile (another instance changed one: server/cluster-wire.ts). */
  async reload(): Promise<void> {
    const heads = await this.db
      .select({
        key: profiles.key,
        number: profiles.headNumber,
        yaml: profileVersions.yaml,
        template: profileVersions.template,
      })
      .from(profiles)
      .innerJoin(
        profileVersions,
        and(eq(profileVersions.key, profiles.key), eq(profileVersions.number, profiles.headNumber)),
      );
    this.heads.clear();
    for (const h of heads) this.heads.set(h.key, { number: h.number, yaml: h.yaml, template: h.template });
    this.reparse();
  }

  /**
   * What `extends: <key>` names here: the current version of another profile, and for a
   * profile's own key (a repository's `prd` extending `prd`) the built-in one.
   */
  private parentResolver(
    stored: (key: string) => { yaml: string; template: string } | undefined,
  ): ParentResolver {
    const builtins = layersParentResolver([{ dir: this.builtinDir, origin: "built-in" }]);
    return (key, from) => {
      const head = key === from.key ? undefined : stored(key);
      if (head)
        return { yaml: head.yaml, file: key, ...(head.template !== "" ? { template: head.template } : {}) };
      const builtin = builtins(key, { key: "" });
      return builtin && { ...builtin, file: `built-in ${key}` };
    };
  }

  private parse(key: string, yaml: string, template: string) {
    const parent = this.parentResolver((k) => this.heads.get(k));
    return parseProfileFast(yaml, { key, templateText: template, parent, file: key });
  }

  /** Parse every current version again (a profile others extend may have changed). */
  private reparse(): void {
    this.cache.clear();
    for (const [key, h] of this.heads) {
      const parsed = this.parse(key, h.yaml, h.template);
      if (parsed.ok) this.cache.set(key, { number: h.number, profile: parsed.profile });
      else this.logger.error("stored profile is invalid", { key, errors: parsed.errors });
    }
  }

  /** Current versions of every usable profile, by key. */
  list(): Profile[] {
    return [...this.cache.values()].map((c) => c.profile).sort((a, b) => (a.key < b.key ? -1 : 1));
  }

  get(key: string): Profile | undefined {
    return this.cache.get(key)?.profile;
  }

  /** The version number of the current text of a profile. */
  versionOf(key: string): number | undefined {
    return this.cache.get(key)?.number;
  }

  private async bundleCounts(): Promise<Map<string, number>> {
    const rows = await this.db
      .select({ key: docs.profileKey, n: sql<number>`count(*)::int` })
      .from(docs)
      .groupBy(docs.profileKey);
    return new Map(rows.map((r) => [r.key, r.n]));
  }

  async summaries(): Promise<ProfileSummaryView[]> {
    const rows = await this.db
      .select({ p: profiles, v: profileVersions })
      .from(profiles)
      .innerJoin(
        profileVersions,
        and(eq(profileVersions.key, profiles.key), eq(profileVersions.number, profiles.headNumber)),
      )
      .orderBy(profiles.key);
    const counts = await this.bundleCounts();
    return rows.map(({ p, v }) => {
      const profile = this.cache.get(p.key)?.profile;
      return {
        key: p.key,
        title: profile?.title ?? p.key,
        description: profile?.description ?? "",
        builtin: p.builtin,
        current_version: versionView(v),
        bundles: counts.get(p.key) ?? 0,
      };
    });
  }

  async detail(key: string): Promise<ProfileDetailView> {
    const [p] = await this.db.select().from(profiles).where(eq(profiles.key, key));
    if (!p) throw new NotFoundError("profile", key);
    const versions = await this.db
      .select()
      .from(profileVersions)
      .where(eq(profileVersions.key, key))
      .orderBy(desc(profileVersions.number));
    const head = versions[0]!;
    const profile = this.cache.get(key)?.profile;
    const resolved =
      profile?.extends === undefined
        ? {}
        : { extends: profile.extends, resolved_yaml: stringify(resolvedFields(profile), { lineWidth: 0 }) };
    return {
      key,
      title: profile?.title ?? key,
      description: profile?.description ?? "",
      builtin: p.builtin,
      current_version: versionView(head),
      bundles: (await this.bundleCounts()).get(key) ?? 0,
      yaml: head.yaml,
      ...resolved,
      template: head.template,
      versions: versions.map(versionView),
      maintainers: p.maintainers,
    };
  }

  private validate(key: string, yaml: string, template: string): Profile {
    const parsed = this.parse(key, yaml, template);
    if (!parsed.ok) throw new ProfileInvalidError(parsed.errors);
    return parsed.profile;
  }

  async create(
    key: string,
    yaml: string,
    template: string,
    by: string,
    message?: string,
  ): Promise<ProfileDetailView> {
    const profile = this.validate(key, yaml, template);
    const now = this.clock.now();
    await this.db.transaction(async (tx) => {
      const [exists] = await tx.select({ key: profiles.key }).from(profiles).where(eq(profiles.key, key));
      if (exists) throw new ApiError("profile_exists", `a profile with key ${key} already exists`);
      await tx
        .insert(profiles)
        .values({ key, builtin: false, headNumber: 1, createdAt: now, updatedAt: now });
      await tx.insert(profileVersions).values({
        key,
        number: 1,
        yaml,
        template,
        createdBy: by,
        message: message ?? "Created",
        createdAt: now,
      });
    });
    this.heads.set(key, { number: 1, yaml, template });
    this.cache.set(key, { number: 1, profile });
    this.reparse();
    this.onChange?.();
    return this.detail(key);
  }

  /** Save a new version (no version when the text is unchanged). */
  async save(
    key: string,
    yaml: string,
    template: string,
    by: string,
    opts: { message?: string; base?: number } = {},
  ): Promise<ProfileDetailView> {
    const profile = this.validate(key, yaml, template);
    const now = this.clock.now();
    const number = await this.db.transaction(async (tx) => {
      const [p] = await tx.select().from(profiles).where(eq(profiles.key, key)).for("update");
      if (!p) throw new NotFoundError("profile", key);
      if (opts.base !== undefined && opts.base !== p.headNumber)
        throw new ApiError(
          "version_conflict",
          `base_version ${opts.base} is not the current version of profile ${key} (current is ${p.headNumber})`,
          { current_version: p.headNumber },
        );
      const [head] = await tx
        .select()
        .from(profileVersions)
        .where(and(eq(profileVersions.key, key), eq(profileVersions.number, p.headNumber)));
      if (head && head.yaml === yaml && head.template === template) return p.headNumber;
      await tx.insert(profileVersions).values({
        key,
        number: p.headNumber + 1,
        yaml,
        template,
        createdBy: by,
        message: opts.message ?? "Saved",
        createdAt: now,
      });
      await tx
        .update(profiles)
        .set({ headNumber: p.headNumber + 1, updatedAt: now })
        .where(eq(profiles.key, key));
      return p.headNumber + 1;
    });
    this.heads.set(key, { number, yaml, template });
    this.cache.set(key, { number, profile });
    this.reparse();
    this.onChange?.();
    return this.detail(key);
  }

  async rollback(key: string, to: number, by: string): Promise<ProfileDetailView> {
    const [v] = await this.db
      .select()
      .from(profileVersions)
      .where(and(eq(profileVersions.key, key), eq(profileVersions.number, to)));
    if (!v) {
      await this.detail(key); // 404 for an unknown profile
      throw new ApiError("bad_version", `profile ${key} has no version ${to}`);
    }
    const detail = await this.detail(key);
    if (detail.yaml === v.yaml && detail.template === v.template) return detail;
    return this.save(key, v.yaml, v.template, by, { message: `Rollback to version ${to}` });
  }

  async diff(
    key: string,
    from: number,
    to?: number,
  ): Promise<{ from: number; to: number; yaml: string; template: string }> {
    const detail = await this.detail(key);
    const target = to ?? detail.current_version.number;
    const rows = await this.db.select().from(profileVersions).where(eq(profileVersions.key, key));
    const a = rows.find((r) => r.number === from);
    const b = rows.find((r) => r.number === target);
    if (!a) throw new ApiError("bad_version", `profile ${key} has no version ${from}`);
    if (!b) throw new ApiError("bad_version", `profile ${key} has no version ${target}`);
    return {
      from,
      to: target,
      yaml: createTwoFilesPatch(`v${from}/profile.yaml`, `v${target}/profile.yaml`, a.yaml, b.yaml),
      template: createTwoFilesPatch(`v${from}/template.md`, `v${target}/template.md`, a.template, b.template),
    };
  }

  async setMaintainers(key: string, maintainers: string[]): Promise<ProfileDetailView> {
    const unique = [...new Set(maintainers)].sort();
    const rows = await this.db
      .update(profiles)
      .set({ maintainers: unique, updatedAt: this.clock.now() })
      .where(eq(profiles.key, key))
      .returning();
    if (rows.length === 0) throw new NotFoundError("profile", key);
    return this.detail(key);
  }

  /** Rule 3: refused for a built-in and while a bundle names the key. */
  async delete(key: string): Promise<void> {
    const [p] = await this.db.select().from(profiles).where(eq(profiles.key, key));
    if (!p) throw new NotFoundError("profile", key);
    if (p.builtin)
      throw new ApiError("profile_builtin", `${key} is a built-in profile and cannot be deleted`);
    const n = (await this.bundleCounts()).get(key) ?? 0;
    if (n > 0)
      throw new ApiError(
        "profile_in_use",
        `${n} bundle${n === 1 ? "" : "s"} name ${key}; change their type first`,
      );
    await this.db.delete(profiles).where(eq(profiles.key, key));
    this.heads.delete(key);
    this.cache.delete(key);
    this.reparse();
    this.onChange?.();
  }
}

/** A resolved profile's own fields, as a profile.yaml would give them (no template text). */
function resolvedFields(profile: Profile): Record<string, unknown> {
  const { templateText: _template, ...fields } = profile;
  return fields;
}
