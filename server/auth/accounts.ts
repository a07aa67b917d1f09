/**
 * People of a hosted workspace: invites (single use, with a role), signing up with one,
 * signing in (rate limited), password reset links, and the administration the CLI does
 * (`spec-review admin`). Invite and reset tokens are kept only as SHA-256; passwords as
 * scrypt hashes (secrets.ts). Links are built from the service's public URL.
 */
import { randomUUID } from "node:crypto";
import { and, asc, desc, eq, gt, isNull, sql } from "drizzle-orm";
import { isUniqueViolation, type Db } from "../db/index.js";
import { invites, resetLinks, users } from "../db/schema.js";
import { ApiError, NotFoundError, ValidationError } from "../errors.js";
import { readSettings } from "../settings.js";
import type { Actor } from "./actor.js";
import { SignInLimiter } from "./rate-limit.js";
import { actorOfUser, Sessions } from "./sessions.js";
import {
  decoyHash,
  hashPassword,
  newToken,
  SCRYPT_LOG2N,
  tokenHash,
  verifyPassword,
  weakPasswordReason,
} from "./secrets.js";

export const WORKSPACE_ROLES = ["admin", "member", "viewer"] as const;
export type WorkspaceRole = (typeof WORKSPACE_ROLES)[number];
/** A reset link works for 24 hours. */
export const RESET_HOURS = 24;

const HOUR = 60 * 60 * 1000;

export interface InviteView {
  id: string;
  role: string;
  state: "unused" | "used" | "revoked" | "expired";
  created_by: string;
  created_at: string;
  expires_at: string;
  used_by?: string;
  used_at?: string;
}

export interface PersonView {
  id: string;
  name: string;
  email: string;
  role: string;
  /** The linked GitHub login, lower-cased (docs/accounts.md, "GitHub login"); null when none. */
  github_login: string | null;
  created_at: string;
  removed_at?: string;
}

/** Who signed in, and the session cookie to give them. */
export interface SignedIn {
  actor: Actor;
  session: { token: string; expiresAt: Date };
}

export function isWorkspaceRole(role: string): role is WorkspaceRole {
  return (WORKSPACE_ROLES as readonly string[]).includes(role);
}

export function normalEmail(email: string): string {
  return email.trim().toLowerCase();
}

function checkEmail(email: string): string {
  const e = normalEmail(email);
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(e) || e.length > 254) {
    const message = `${JSON.stringify(email.slice(0, 100))} is not an email address`;
    throw new ValidationError(message, [{ field: "body.email", message }]);
  }
  return e;
}

function checkPassword(password: string, person: { email?: string; name?: string }): void {
  const why = weakPasswordReason(password, person);
  if (why) throw new ApiError("weak_password", why);
}

export class Accounts {
  readonly sessions: Sessions;
  private readonly limiter = new SignInLimiter();

  constructor(
    private readonly db: Db,
    private readonly now: () => Date,
    /** Where people reach the service (`https://specs.example.com`, or the address it listens on); links start with it. */
    private readonly linkBase: string | (() => string),
    /** scrypt's cost, log2 of N (default 15; tests use less). */
    private readonly log2N = SCRYPT_LOG2N,
  ) {
    this.sessions = new Sessions(db, now);
  }

  private link(kind: "invite" | "reset", token: string): string {
    const base = typeof this.linkBase === "function" ? this.linkBase() : this.linkBase;
    return `${base.replace(/\/+$/, "")}/${kind}/${token}`;
  }

  // ---- invites ----

  private inviteView(i: typeof invites.$inferSelect): InviteView {
    const state = i.usedAt
      ? "used"
      : i.revokedAt
        ? "revoked"
        : i.expiresAt <= this.now()
          ? "expired"
          : "unused";
    return {
      id: i.id,
      role: i.role,
      state,
      created_by: i.createdBy,
      created_at: i.createdAt.toISOString(),
      expires_at: i.expiresAt.toISOString(),
      ...(i.usedBy ? { used_by: i.usedBy } : {}),
      ...(i.usedAt ? { used_at: i.usedAt.toISOString() } : {}),
    };
  }

  /** A single-use invite; its URL is in this answer only. */
  async createInvite(role: string, createdBy: string): Promise<InviteView & { url: string }> {
    if (!isWorkspaceRole(role)) {
      const message = `no role ${JSON.stringify(role)}; an invite carries one of ${WORKSPACE_ROLES.join(", ")}`;
      throw new ValidationError(message, [{ field: "body.role", message }]);
    }
    const { invite_ttl_days } = await readSettings(this.db);
    const token = newToken("invite");
    const now = this.now();
    const [row] = await this.db
      .insert(invites)
      .values({
        id: randomUUID(),
        tokenHash: tokenHash(token),
        role,
        createdBy,
        createdAt: now,
        expiresAt: new Date(now.getTime() + invite_ttl_days * 24 * HOUR),
      })
      .returning();
    return { ...this.inviteView(row!), url: this.link("invite", token) };
  }

  async listInvites(): Promise<InviteView[]> {
    const rows = await this.db.select().from(invites).orderBy(desc(invites.createdAt), desc(invites.id));
    return rows.map((r) => this.inviteView(r));
  }

  async revokeInvite(id: string): Promise<InviteView> {
    const [row] = await this.db
      .update(invites)
      .set({ revokedAt: this.now() })
      .where(
        and(
          eq(invites.id, id),
          isNull(invites.usedAt),
          isNull(invites.revokedAt),
          gt(invites.expiresAt, this.now()),
        ),
      )
      .returning();
    if (row) return this.inviteView(row);
    const [found] = await this.db.select().from(invites).where(eq(invites.id, id));
    if (!found) throw new NotFoundError("invite", id);
    throw new ApiError(
      "invite_not_revocable",
      `the invite is ${this.inviteView(found).state}; only an unused one can be revoked`,
    );
  }

  /** Is there anybody yet (the first start prints an admin invite when not)? */
  async hasUsers(): Promise<boolean> {
    const [row] = await this.db.select({ id: users.id }).from(users).limit(1);
    return row !== undefined;
  }

  private async usableInvite(token: string): Promise<typeof invites.$inferSelect> {
    const [row] = await this.db
      .select()
      .from(invites)
      .where(eq(invites.tokenHash, tokenHash(token)));
    if (!row) throw new ApiError("invite_not_found", "no invite has this token; ask an admin for a new link");
    const state = this.inviteView(row).state;
    if (state === "used")
      throw new ApiError("invite_used", "this invite was used already; ask an admin for a new one");
    if (state === "revoked") throw new ApiError("invite_revoked", "an admin revoked this invite");
    if (state === "expired")
      throw new ApiError("invite_expired", `this invite expired at ${row.expiresAt.toISOString()}`);
    return row;
  }

  /** Accept an invite: the account is made with the invite's role, and signed in. */
  async signup(input: { token: string; name: string; email: string; password: string }): Promise<SignedIn> {
    const invite = await this.usableInvite(input.token);
    const email = checkEmail(input.email);
    const name = input.name.trim();
    checkPassword(input.password, { email, name });
    const [existing] = await this.db.select().from(users).where(eq(users.email, email));
    if (existing && !existing.removedAt)
      throw new ApiError(
        "email_taken",
        "an account with this email address exists; sign in, or ask an admin for a reset link",
      );
    const passwordHash = await hashPassword(input.password, this.log2N);
    const now = this.now();
    try {
      return await this.db.transaction(async (tx) => {
        const db = tx as unknown as Db;
        let user: typeof users.$inferSelect;
        if (existing) {
          // Someone removed earlier comes back: the same id, so what they wrote stays theirs.
          [user] = (await db
            .update(users)
            .set({ name, role: invite.role, passwordHash, removedAt: null })
            .where(and(eq(users.id, existing.id), sql`${users.removedAt} is not null`))
            .returning()) as [typeof users.$inferSelect];
          if (!user) throw new ApiError("email_taken", "an account with this email address exists");
        } else {
          [user] = (await db
            .insert(users)
            .values({ id: randomUUID(), email, name, role: invite.role, passwordHash, createdAt: now })
            .returning()) as [typeof users.$inferSelect];
        }
        // Claim the invite in the same transaction: two sign-ups racing for it, one wins.
        const claimed = await db
          .update(invites)
          .set({ usedAt: now, usedBy: user.id })
          .where(
            and(
              eq(invites.id, invite.id),
              isNull(invites.usedAt),
              isNull(invites.revokedAt),
              gt(invites.expiresAt, now),
            ),
          )
          .returning({ id: invites.id });
        if (claimed.length === 0) throw new ApiError("invite_used", "this invite was used already");
        const session = await this.sessions.open(user.id, db);
        return { actor: actorOfUser(user), session };
      });
    } catch (err) {
      if (isUniqueViolation(err))
        throw new ApiError("email_taken", "an account with this email address exists");
      throw err;
    }
  }

  // ---- signing in ----

  /**
   * Email and password. Refused with 429 `rate_limited` (and `retry_after` seconds) after
   * too many failures for the account or from the address, whatever the password.
   */
  async signIn(input: { email: string; password: string }, address: string): Promise<SignedIn> {
    const email = normalEmail(input.email);
    const wait = this.limiter.retryAfter(email, address, this.now().getTime());
    if (wait > 0)
      throw new ApiError("rate_limited", `too many failed sign-ins; try again in ${wait} s`, {
        retry_after: wait,
      });
    const [user] = await this.db
      .select()
      .from(users)
      .where(and(eq(users.email, email), isNull(users.removedAt)));
    // An unknown address costs as much as a wrong password: the answer's time tells nothing.
    const ok = await verifyPassword(input.password, user?.passwordHash ?? (await decoyHash(this.log2N)));
    if (!user || !ok) {
      this.limiter.failed(email, address, this.now().getTime());
      throw new ApiError("invalid_credentials", "wrong email address or password");
    }
    this.limiter.succeeded(email);
    return { actor: actorOfUser(user), session: await this.sessions.open(user.id) };
  }

  // ---- reset links ----

  /** A one-time reset link for a person; earlier unused links of that person stop working. */
  async createResetLink(
    userId: string,
    createdBy: string,
  ): Promise<{ user_id: string; url: string; expires_at: string }> {
    const [user] = await this.db
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.id, userId), isNull(users.removedAt)));
    if (!user) throw new NotFoundError("user", userId);
    const token = newToken("reset");
    const now = this.now();
    const expiresAt = new Date(now.getTime() + RESET_HOURS * HOUR);
    await this.db.transaction(async (tx) => {
      await tx
        .update(resetLinks)
        .set({ revokedAt: now })
        .where(and(eq(resetLinks.userId, userId), isNull(resetLinks.usedAt), isNull(resetLinks.revokedAt)));
      await tx.insert(resetLinks).values({
        id: randomUUID(),
        tokenHash: tokenHash(token),
        userId,
        createdBy,
        createdAt: now,
        expiresAt,
      });
    });
    return { user_id: userId, url: this.link("reset", token), expires_at: expiresAt.toISOString() };
  }

  /** Set a new password with a reset link: every session and token of the person ends, and a new session begins. */
  async reset(input: { token: string; password: string }): Promise<SignedIn> {
    const [link] = await this.db
      .select()
      .from(resetLinks)
      .where(eq(resetLinks.tokenHash, tokenHash(input.token)));
    if (!link)
      throw new ApiError("reset_link_not_found", "no reset link has this token; ask an admin for a new one");
    if (link.usedAt) throw new ApiError("reset_link_used", "this reset link was used already");
    if (link.revokedAt) throw new ApiError("reset_link_revoked", "a newer reset link replaced this one");
    const now = this.now();
    if (link.expiresAt <= now)
      throw new ApiError("reset_link_expired", `this reset link expired at ${link.expiresAt.toISOString()}`);
    const [user] = await this.db
      .select()
      .from(users)
      .where(and(eq(users.id, link.userId), isNull(users.removedAt)));
    if (!user) throw new ApiError("reset_link_not_found", "the person this link was made for was removed");
    checkPassword(input.password, user);
    const passwordHash = await hashPassword(input.password, this.log2N);
    return this.db.transaction(async (tx) => {
      const db = tx as unknown as Db;
      const claimed = await db
        .update(resetLinks)
        .set({ usedAt: now })
        .where(and(eq(resetLinks.id, link.id), isNull(resetLinks.usedAt), isNull(resetLinks.revokedAt)))
        .returning({ id: resetLinks.id });
      if (claimed.length === 0) throw new ApiError("reset_link_used", "this reset link was used already");
      await db.update(users).set({ passwordHash }).where(eq(users.id, user.id));
      await this.sessions.endAll(user.id, db);
      return { actor: actorOfUser(user), session: await this.sessions.open(user.id, db) };
    });
  }

  // ---- people (GET /people, spec-review admin) ----

  async people(opts: { includeRemoved?: boolean } = {}): Promise<PersonView[]> {
    const rows = await this.db
      .select()
      .from(users)
      .where(opts.includeRemoved ? undefined : isNull(users.removedAt))
      .orderBy(asc(users.name), asc(users.email));
    return rows.map((u) => ({
      id: u.id,
      name: u.name,
      email: u.email,
      role: u.role,
      github_login: u.githubLogin,
      created_at: u.createdAt.toISOString(),
      ...(u.removedAt ? { removed_at: u.removedAt.toISOString() } : {}),
    }));
  }

  /** One person by id (removed ones too), or 404. */
  async person(id: string): Promise<PersonView> {
    const found = (await this.people({ includeRemoved: true })).find((p) => p.id === id);
    if (!found) throw new NotFoundError("user", id);
    return found;
  }

  /** The id of the active person with this email address, or 404. */
  async idOf(email: string): Promise<string> {
    return (await this.activeUser(email)).id;
  }

  private async activeUser(email: string): Promise<typeof users.$inferSelect> {
    const [user] = await this.db
      .select()
      .from(users)
      .where(and(eq(users.email, normalEmail(email)), isNull(users.removedAt)));
    if (!user) throw new NotFoundError("person with email", email);
    return user;
  }

  private async refuseLastAdmin(user: typeof users.$inferSelect): Promise<void> {
    if (user.role !== "admin") return;
    const admins = await this.db
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.role, "admin"), isNull(users.removedAt)))
      .limit(2);
    if (admins.length < 2)
      throw new ApiError("last_admin", `${user.email} is the only admin; make another admin first`);
  }

  async setRole(email: string, role: string): Promise<PersonView> {
    if (!isWorkspaceRole(role))
      throw new ValidationError(`no role ${JSON.stringify(role)}; roles are ${WORKSPACE_ROLES.join(", ")}`);
    const user = await this.activeUser(email);
    if (role !== "admin") await this.refuseLastAdmin(user);
    await this.db.update(users).set({ role }).where(eq(users.id, user.id));
    return (await this.people()).find((p) => p.id === user.id)!;
  }

  /** Offboarding: the person can no longer sign in, and every session and token of theirs ends at once. */
  async remove(email: string): Promise<void> {
    const user = await this.activeUser(email);
    await this.refuseLastAdmin(user);
    await this.db.transaction(async (tx) => {
      const db = tx as unknown as Db;
      await db.update(users).set({ removedAt: this.now() }).where(eq(users.id, user.id));
      await this.sessions.endAll(user.id, db);
    });
  }
}
