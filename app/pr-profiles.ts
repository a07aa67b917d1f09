/**
 * A pull request is checked with the repository's configuration and profiles as they are
 * on its BASE branch, never its own: a pull request cannot relax its own gate. The head's
 * `.spec-review/` is left out of the partial checkout and the base's put in its place;
 * the profiles are then, by key, the base branch's repository profiles over the
 * workspace's (the service's) over the built-ins. A pull request that changes
 * `.spec-review/` is told so in its check's summary.
 */
import type { Profile } from "../core/profile/schema.js";
import { loadLayers, profileLayers } from "../node/pr/lint.js";
import type { TreeFile } from "./pr-checkout.js";

export const CONFIG_DIR = ".spec-review/";

/** The head's tree with the base's `.spec-review/` in place of its own. */
export function withBaseConfig(head: readonly TreeFile[], base: readonly TreeFile[] | undefined): TreeFile[] {
  if (!base) return [...head];
  return [
    ...head.filter((f) => !f.path.startsWith(CONFIG_DIR)),
    ...base.filter((f) => f.path.startsWith(CONFIG_DIR)),
  ];
}

export interface PullProfiles {
  profiles: Profile[];
  /** Which layers gave profiles, for the report ("the built-in", …). */
  label: string;
}

/**
 * The profiles of the checkout at `root` (the built-ins and the base branch's
 * `.spec-review/profiles/`) with the workspace's between them: repository over workspace
 * over built-in, by key.
 */
export function pullProfiles(
  root: string,
  builtinDir: string,
  workspace: readonly Profile[] | undefined,
): PullProfiles {
  const layers = profileLayers(root, undefined, builtinDir);
  const loaded = loadLayers(layers, root);
  const byKey = new Map<string, Profile>();
  for (const p of loaded.profiles)
    if (loaded.origins.get(p.key)?.origin !== "repository") byKey.set(p.key, p);
  for (const p of workspace ?? []) byKey.set(p.key, p);
  let repo = 0;
  for (const p of loaded.profiles)
    if (loaded.origins.get(p.key)?.origin === "repository") {
      byKey.set(p.key, p);
      repo++;
    }
  const parts = ["the built-in"];
  if (workspace && workspace.length > 0) parts.push("the workspace's");
  if (repo > 0) parts.push("the base branch's `.spec-review/profiles`");
  return {
    profiles: [...byKey.values()].sort((a, b) => (a.key < b.key ? -1 : 1)),
    label: parts.join(", "),
  };
}

/** The line a check's summary carries when the pull request changes `.spec-review/`. */
export function configNote(changed: readonly string[], baseRef: string | undefined): string | undefined {
  const touched = changed.filter((p) => p.startsWith(CONFIG_DIR));
  if (touched.length === 0) return undefined;
  const base = baseRef ? `the base branch (\`${baseRef}\`)` : "the base branch";
  return (
    `This pull request changes \`.spec-review/\` (${touched.map((p) => `\`${p}\``).join(", ")}): ` +
    `this check uses the configuration and profiles of ${base}; the changes apply once merged.`
  );
}
