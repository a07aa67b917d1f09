/**
 * The first start of a hosted workspace: with nobody signed up yet, one single-use invite
 * with the admin role, printed as `admin invite: <url>`. `spec-review admin invite --role
 * admin` makes another when this one is lost.
 *
 * Instances starting together on one database make it one at a time, under the start lock
 * (server/db/index.ts), and only one: while the invite an earlier start (or another
 * instance) made is still open, a start says when it was made rather than make another
 * admin invite beside it.
 */
import { and, desc, eq, gt, isNull } from "drizzle-orm";
import { withStartLock, type Database } from "../db/index.js";
import { invites } from "../db/schema.js";
import type { Deps } from "../deps.js";
import { registerSecret } from "../redact.js";

/** Who the first admin invite is made by (`created_by`). */
export const FIRST_START = "first start";

/** A new invite (`url`, whose `token` is registered with the redactor), or when the open one was made. */
export type FirstAdminInvite = { url: string; token: string } | { openSince: Date };

type FirstAdminDeps = Pick<Deps, "accounts" | "mode" | "db" | "clock"> & { database?: Database };

/** With nobody signed up yet: the first admin invite, made unless one is still open; else undefined. */
export async function firstAdminInvite(services: FirstAdminDeps): Promise<FirstAdminInvite | undefined> {
  if (services.mode !== "hosted") return undefined;
  const make = async (): Promise<FirstAdminInvite | undefined> => {
    if (await services.accounts.hasUsers()) return undefined;
    const [open] = await services.db
      .select({ createdAt: invites.createdAt })
      .from(invites)
      .where(
        and(
          eq(invites.createdBy, FIRST_START),
          eq(invites.role, "admin"),
          isNull(invites.usedAt),
          isNull(invites.revokedAt),
          gt(invites.expiresAt, services.clock.now()),
        ),
      )
      .orderBy(desc(invites.createdAt))
      .limit(1);
    if (open) return { openSince: open.createdAt };
    const invite = await services.accounts.createInvite("admin", FIRST_START);
    const token = invite.url.slice(invite.url.lastIndexOf("/") + 1);
    // Masked in every log record but the start-up one (server/log.ts).
    registerSecret(token);
    return { url: invite.url, token };
  };
  return services.database ? withStartLock(services.database, make) : make();
}

/** The start line for a person (LOG_FORMAT=pretty). */
export function firstAdminLine(invite: FirstAdminInvite): string {
  if ("url" in invite) return `admin invite: ${invite.url}`;
  return (
    `admin invite: the one made at ${invite.openSince.toISOString()} is still open (its link is in the log of that start); ` +
    "spec-review admin invite --role admin makes another"
  );
}

/** Makes the first admin invite when the workspace has no user; returns the line to print, or undefined. */
export async function ensureFirstAdminInvite(services: FirstAdminDeps): Promise<string | undefined> {
  const invite = await firstAdminInvite(services);
  return invite && firstAdminLine(invite);
}
