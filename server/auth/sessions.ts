/**
 * Sessions (the browser's cookie) and API tokens (`Authorization: Bearer`): both random
 * tokens the database keeps only as SHA-256, both looked up with the person they belong
 * to in one query, both gone at once when that person is removed or resets the password.
 */
import { randomUUID } from "node:crypto";
import { and, desc, eq, gt, isNull } from "drizzle-orm";
import type { Db } from "../db/index.js";
import { apiTokens, sessions, users } from "../db/schema.js";
import { ApiError, NotFoundError } from "../errors.js";
import type { Actor, Role } from "./actor.js";
import { newToken, safeEqual, tokenHash } from "./secrets.js";

/** A session lasts 30 days from sign-in. */
export const SESSION_DAYS = 30;
/** An API token lasts 90 days unless asked otherwise (1 to 365). */
export const TOKEN_DAYS = 90;
/** `last_used_at` of a token is written at most this often (ms), not on every request. */
const LAST_USED_EVERY = 60 * 60 * 1000;

const DAY = 24 * 60 * 60 * 1000;
/**
 * A session or token found in the database is trusted from memory this long (ms), so a
 * request costs no query. Ending one in this process (sign-out, reset, removal, revoking a
 * token) forgets it at once; another process (`spec-review admin remove` on Postgres) is
 * seen within this time.
 */
export const AUTH_CACHE_MS = 5000;
const CACHE_MAX = 10_000;

export interface TokenView {
  id: string;
  name: string;
  last4: string;
  created_at: string;
  expires_at: string;
  last_used_at?: string;
}

type UserRow = typeof users.$inferSelect;

export function actorOfUser(u: Pick<UserRow, "id" | "name" | "role" | "email">): Actor {
  return { id: u.id, name: u.name, kind: "user", role: u.role as Role, email: u.email };
}

function tokenView(t: typeof apiTokens.$inferSelect): TokenView {
  return {
    id: t.id,
    name: t.name,
    last4: t.last4,
    created_at: t.createdAt.toISOString(),
    expires_at: t.expiresAt.toISOString(),
    ...(t.lastUsedAt ? { last_used_at: t.lastUsedAt.toISOString() } : {}),
  };
}

export class Sessions {
  /** SHA-256 of a session or token -> the person, until when (see AUTH_CACHE_MS). */
  private readonly cache = new Map<string, { actor: Actor; until: number }>();
  /** Called when sessions or tokens end here, so other instances drop them too (server/cluster-wire.ts). */
  onEnded: ((ended: { userId?: string; hash?: string }) => void) | undefined;

  constructor(
    private readonly db: Db,
    private readonly now: () => Date,
  ) {}

  private cached(hash: string): Actor | undefined {
    const hit = this.cache.get(hash);
    if (!hit) return undefined;
    if (hit.until > this.now().getTime()) return hit.actor;
    this.cache.delete(hash);
    return undefined;
  }

  private remember(hash: string, actor: Actor, expiresAt: Date): void {
    if (this.cache.size >= CACHE_MAX) this.cache.clear();
    const until = Math.min(this.now().getTime() + AUTH_CACHE_MS, expiresAt.getTime());
    this.cache.set(hash, { actor, until });
  }

  private forgetUser(userId: string): void {
    for (const [hash, hit] of this.cache) if (hit.actor.id === userId) this.cache.delete(hash);
  }

  /** Sessions or tokens ended on another instance: never answer them from memory again. */
  forget(ended: { userId?: string; hash?: string }): void {
    if (ended.userId) this.forgetUser(ended.userId);
    if (ended.hash) this.cache.delete(ended.hash);
    if (!ended.userId && !ended.hash) this.cache.clear();
  }

  /** A new session for a person: the cookie value (shown to nobody else) and when it ends. */
  async open(userId: string, db: Db = this.db): Promise<{ token: string; expiresAt: Date }> {
    const token = newToken("session");
    const now = this.now();
    const expiresAt = new Date(now.getTime() + SESSION_DAYS * DAY);
    await db.insert(sessions).values({ tokenHash: tokenHash(token), userId, createdAt: now, expiresAt });
    return { token, expiresAt };
  }

  /** The person a session cookie belongs to; undefined when unknown, expired, or the person was removed. */
  async actorOfSession(token: string): Promise<Actor | undefined> {
    const hash = tokenHash(token);
    const known = this.cached(hash);
    if (known) return known;
    const [row] = await this.db
      .select({
        hash: sessions.tokenHash,
        expiresAt: sessions.expiresAt,
        id: users.id,
        name: users.name,
        role: users.role,
        email: users.email,
      })
      .from(sessions)
      .innerJoin(users, eq(users.id, sessions.userId))
      .where(and(eq(sessions.tokenHash, hash), gt(sessions.expiresAt, this.now()), isNull(users.removedAt)))
      .limit(1);
    if (!row || !safeEqual(row.hash, hash)) return undefined;
    const actor = actorOfUser(row);
    this.remember(hash, actor, row.expiresAt);
    return actor;
  }

  /** Sign-out: the session stops working at once. */
  async close(token: string): Promise<void> {
    const hash = tokenHash(token);
    this.cache.delete(hash);
    await this.db.delete(sessions).where(eq(sessions.tokenHash, hash));
    this.onEnded?.({ hash });
  }

  /** Every session and API token of a person ends (removal, password reset). */
  async endAll(userId: string, db: Db = this.db): Promise<void> {
    this.forgetUser(userId);
    await db.delete(sessions).where(eq(sessions.userId, userId));
    await db.delete(apiTokens).where(eq(apiTokens.userId, userId));
    // A request that read the database before the delete may have cached the person again.
    this.forgetUser(userId);
    this.onEnded?.({ userId });
  }

  // ---- API tokens ----

  async createToken(
    userId: string,
    input: { name: string; expires_in_days?: number },
  ): Promise<TokenView & { token: string }> {
    const token = newToken("api");
    const now = this.now();
    const [row] = await this.db
      .insert(apiTokens)
      .values({
        id: randomUUID(),
        tokenHash: tokenHash(token),
        userId,
        name: input.name,
        last4: token.slice(-4),
        createdAt: now,
        expiresAt: new Date(now.getTime() + (input.expires_in_days ?? TOKEN_DAYS) * DAY),
      })
      .returning();
    return { ...tokenView(row!), token };
  }

  async listTokens(userId: string): Promise<TokenView[]> {
    const rows = await this.db
      .select()
      .from(apiTokens)
      .where(eq(apiTokens.userId, userId))
      .orderBy(desc(apiTokens.createdAt), desc(apiTokens.id));
    return rows.map(tokenView);
  }

  /** Revoke one of the caller's own tokens; another person's token is not found. */
  async deleteToken(userId: string, tokenId: string): Promise<void> {
    const gone = await this.db
      .delete(apiTokens)
      .where(and(eq(apiTokens.id, tokenId), eq(apiTokens.userId, userId)))
      .returning({ id: apiTokens.id, hash: apiTokens.tokenHash });
    if (gone.length === 0) throw new NotFoundError("token", tokenId);
    this.cache.delete(gone[0]!.hash);
    this.onEnded?.({ hash: gone[0]!.hash });
  }

  /** The person a bearer token belongs to; 401 `invalid_token` when unknown, revoked, expired or the person was removed. */
  async actorOfToken(token: string): Promise<Actor> {
    const hash = tokenHash(token);
    const known = this.cached(hash);
    if (known) return known;
    const now = this.now();
    const [row] = await this.db
      .select({
        tokenId: apiTokens.id,
        expiresAt: apiTokens.expiresAt,
        hash: apiTokens.tokenHash,
        lastUsedAt: apiTokens.lastUsedAt,
        id: users.id,
        name: users.name,
        role: users.role,
        email: users.email,
      })
      .from(apiTokens)
      .innerJoin(users, eq(users.id, apiTokens.userId))
      .where(and(eq(apiTokens.tokenHash, hash), gt(apiTokens.expiresAt, now), isNull(users.removedAt)))
      .limit(1);
    if (!row || !safeEqual(row.hash, hash))
      throw new ApiError("invalid_token", "the API token is unknown, revoked or expired; make a new one");
    if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > LAST_USED_EVERY)
      await this.db.update(apiTokens).set({ lastUsedAt: now }).where(eq(apiTokens.id, row.tokenId));
    const actor = actorOfUser(row);
    this.remember(hash, actor, row.expiresAt);
    return actor;
  }
}
