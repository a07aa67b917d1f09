/**
 * Webhook redeliveries are idempotent: each delivery id is remembered once its handler
 * starts; the same id again is skipped. A handler that fails forgets the id, so a
 * redelivery (GitHub's "Redeliver", or its retry) runs it again.
 */
import { eq } from "drizzle-orm";
import type { Db } from "../server/db/index.js";
import { repohostDeliveries } from "../server/db/schema.js";

export async function onceper(
  db: Db,
  delivery: { id: string; name: string; now: Date },
  run: () => Promise<void>,
): Promise<"ran" | "duplicate"> {
  const inserted = await db
    .insert(repohostDeliveries)
    .values({ id: delivery.id, event: delivery.name, receivedAt: delivery.now })
    .onConflictDoNothing()
    .returning({ id: repohostDeliveries.id });
  if (inserted.length === 0) return "duplicate";
  try {
    await run();
  } catch (err) {
    await db.delete(repohostDeliveries).where(eq(repohostDeliveries.id, delivery.id));
    throw err;
  }
  return "ran";
}
