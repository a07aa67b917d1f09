/**
 * How the permission check (server/auth/authorize.ts) finds the bundle a thread belongs
 * to. A profile's suggestion thread belongs to no bundle: it is seen by every member of
 * the workspace (as an `internal` bundle would be), and by no guest.
 */
import { eq } from "drizzle-orm";
import type { Db } from "../db/index.js";
import { bundles, threads } from "../db/schema.js";
import type { BundleAudience } from "../auth/visibility.js";

export const threadLookup = {
  noun: "thread",
  async find(db: Db, id: string): Promise<(BundleAudience & { archivedAt?: Date | null }) | undefined> {
    const [row] = await db
      .select({
        bundleId: threads.bundleId,
        profileKey: threads.profileKey,
        visibility: bundles.visibility,
        createdBy: bundles.createdBy,
        gone: bundles.goneAt,
        archivedAt: bundles.archivedAt,
      })
      .from(threads)
      .leftJoin(bundles, eq(bundles.id, threads.bundleId))
      .where(eq(threads.id, id));
    if (!row) return undefined;
    if (row.bundleId === null) return { id: "", visibility: "internal", createdBy: null };
    if (row.gone !== null) return undefined;
    return {
      id: row.bundleId,
      visibility: row.visibility,
      createdBy: row.createdBy,
      archivedAt: row.archivedAt,
    };
  },
};
