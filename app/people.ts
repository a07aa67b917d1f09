/**
 * Who a GitHub commenter is: the account whose email address is the commenter's verified
 * email (when GitHub gives one), else an author recorded by GitHub login only, shown as
 * such, so a stranger's comment never counts as a member's. Accounts have no GitHub login
 * field yet (docs/app.md).
 */
import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "../server/db/index.js";
import { users } from "../server/db/schema.js";
import type { CommentAuthor } from "./threads-port.js";

export async function commentAuthor(
  db: Db,
  login: string,
  verifiedEmail?: string | null,
): Promise<CommentAuthor> {
  if (verifiedEmail) {
    const [row] = await db
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.email, verifiedEmail.toLowerCase()), isNull(users.removedAt)));
    if (row) return { accountId: row.id, login };
  }
  return { login };
}
