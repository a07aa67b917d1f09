/**
 * Who may see a bundle (contract 2.6 `visibility`): `private` its author and admins,
 * `internal` every member of the workspace, `link` also the guests who entered its share
 * link. A bundle with no visibility recorded (found on disk) is `internal`. Local mode has
 * one person, who sees everything. docs/permissions.md says the same in words.
 */
import type { Visibility } from "../db/schema.js";
import type { Actor } from "./actor.js";

/** What deciding who sees a bundle needs to know of it. */
export interface BundleAudience {
  id: string;
  visibility: Visibility | null;
  /** Its author (who created it); null for a bundle found on disk. */
  createdBy: string | null;
}

/** The visibility in force: a bundle with none recorded is `internal`. */
export function effectiveVisibility(visibility: Visibility | null): Visibility {
  return visibility ?? "internal";
}

export function canSee(mode: "local" | "hosted", actor: Actor | undefined, bundle: BundleAudience): boolean {
  if (mode === "local") return true;
  if (!actor) return false;
  if (actor.role === "admin") return true;
  const visibility = effectiveVisibility(bundle.visibility);
  if (actor.role === "guest") return actor.guestBundleId === bundle.id && visibility === "link";
  return visibility !== "private" || (bundle.createdBy !== null && bundle.createdBy === actor.id);
}

/**
 * A filter for lists of bundles, or undefined when the caller sees every bundle (local mode,
 * an admin), so lists skip the filter altogether.
 */
export function visibleTo(
  mode: "local" | "hosted",
  actor: Actor | undefined,
): ((bundle: BundleAudience) => boolean) | undefined {
  if (mode === "local" || actor?.role === "admin") return undefined;
  return (bundle) => canSee(mode, actor, bundle);
}
