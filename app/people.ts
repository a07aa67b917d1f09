/**
 * Who a GitHub commenter (or pull request reviewer) is, from what a webhook carries: the
 * login (`user.login`), the `author_association`, and an email only when GitHub gives one.
 *
 * 1. the account that linked this GitHub login (docs/accounts.md, "GitHub login");
 * 2. else the account whose email address is the commenter's verified email, when given;
 * 3. else, when the workspace setting `github_association_role` names a role and the
 *    association is OWNER, MEMBER or COLLABORATOR, a person of that role known by login only;
 * 4. else a guest recorded by login, shown as such: never a member by accident.
 */
import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "../server/db/index.js";
import { users } from "../server/db/schema.js";
import { readSettings } from "../server/settings.js";
import type { CommentAuthor } from "./threads-port.js";

/** The associations `github_association_role` places: the repository's owner, its organisation's members, its collaborators. */
export const PLACED_ASSOCIATIONS: ReadonlySet<string> = new Set(["OWNER", "MEMBER", "COLLABORATOR"]);

type Role = NonNullable<CommentAuthor["role"]>;

async function account(db: Db, where: ReturnType<typeof eq>) {
  const [row] = await db
    .select({ id: users.id, role: users.role })
    .from(users)
    .where(and(where, isNull(users.removedAt)));
  return row ? { accountId: row.id, role: row.role as Role } : undefined;
}

export async function commentAuthor(
  db: Db,
  login: string,
  verifiedEmail?: string | null,
  association?: string | null,
): Promise<CommentAuthor> {
  const linked = await account(db, eq(users.githubLogin, login.toLowerCase()));
  if (linked) return { ...linked, login };
  if (verifiedEmail) {
    const byEmail = await account(db, eq(users.email, verifiedEmail.toLowerCase()));
    if (byEmail) return { ...byEmail, login };
  }
  if (association && PLACED_ASSOCIATIONS.has(association.toUpperCase())) {
    const { github_association_role: role } = await readSettings(db);
    if (role !== "off") return { login, role };
  }
  return { login };
}
