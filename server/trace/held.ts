/**
 * Links the service holds for a doc (origin `adopted`, contract 2.8): confirmed by a
 * person at import, kept in the database rather than written into the doc, so taking one
 * out makes no new version. The trace view, upstream staleness and link removal read them
 * beside the links the main doc's frontmatter writes.
 */
import { and, eq, inArray } from "drizzle-orm";
import { isUrl, normalizeSlug, type LinkKind, type WrittenLink } from "../../core/trace/links.js";
import type { Db } from "../db/index.js";
import { heldLinks } from "../db/schema.js";

export interface HeldLink {
  bundleId: string;
  kind: LinkKind;
  /** A bundle slug or a URL. */
  target: string;
}

function written(kind: LinkKind, target: string): WrittenLink {
  return { kind, target, origin: "adopted", external: isUrl(target), held: true };
}

/** The held links of these bundles (every bundle when `bundleIds` is absent), by bundle id. */
export async function readHeldLinks(
  db: Db,
  bundleIds?: readonly string[],
): Promise<Map<string, WrittenLink[]>> {
  if (bundleIds && bundleIds.length === 0) return new Map();
  const rows = await db
    .select()
    .from(heldLinks)
    .where(bundleIds ? inArray(heldLinks.bundleId, [...bundleIds]) : undefined)
    .orderBy(heldLinks.createdAt, heldLinks.kind, heldLinks.target);
  const out = new Map<string, WrittenLink[]>();
  for (const r of rows) {
    const list = out.get(r.bundleId) ?? [];
    list.push(written(r.kind as LinkKind, r.target));
    out.set(r.bundleId, list);
  }
  return out;
}

/** Held links read as JSON (`{kind, target}` objects, in the order readHeldLinks gives). */
export function heldOf(rows: ReadonlyArray<{ kind: string; target: string }>): WrittenLink[] {
  return rows.map((r) => written(r.kind as LinkKind, r.target));
}

/** Held links after the doc's own, leaving out any the doc writes already. */
export function withHeld(
  own: readonly WrittenLink[],
  held: readonly WrittenLink[] | undefined,
): WrittenLink[] {
  if (!held || held.length === 0) return [...own];
  const seen = new Set(own.map((l) => `${l.kind}\0${l.target}`));
  return [...own, ...held.filter((l) => !seen.has(`${l.kind}\0${l.target}`))];
}

/** Records confirmed links (one already held is left as it is). */
export async function addHeldLinks(
  db: Db,
  links: readonly HeldLink[],
  author: string,
  at: Date,
): Promise<void> {
  if (links.length === 0) return;
  await db
    .insert(heldLinks)
    .values(
      links.map((l) => ({
        bundleId: l.bundleId,
        kind: l.kind,
        target: isUrl(l.target) ? l.target.trim() : normalizeSlug(l.target),
        createdBy: author,
        createdAt: at,
      })),
    )
    .onConflictDoNothing();
}

/** Takes one held link out; false when the service held no such link. */
export async function removeHeldLink(
  db: Db,
  bundleId: string,
  kind: LinkKind,
  target: string,
): Promise<boolean> {
  const gone = await db
    .delete(heldLinks)
    .where(and(eq(heldLinks.bundleId, bundleId), eq(heldLinks.kind, kind), eq(heldLinks.target, target)))
    .returning({ kind: heldLinks.kind });
  return gone.length > 0;
}
