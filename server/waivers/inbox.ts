/**
 * The caller's inbox (`GET /inbox`, `POST /inbox/seen`, `POST /inbox/read`): items other
 * features wrote with `addInboxItems` (server/inbox/items.ts), newest first. `seen` marks
 * everything up to now read and remembers when, so `unseen` counts only what came after.
 */
import { and, count, desc, eq, gt, isNull, lt, lte, or, sql } from "drizzle-orm";
import type { Db } from "../db/index.js";
import { bundles, docs, inboxItems, inboxSeen } from "../db/schema.js";
import { ApiError, NotFoundError } from "../errors.js";
import { API_PREFIX } from "../version.js";

type ItemRow = typeof inboxItems.$inferSelect;

/** The item is about no archived bundle (by its bundle, or its doc's). */
const notArchived = sql`not exists (select 1 from ${bundles} b where b.archived_at is not null and (b.id = ${inboxItems.bundleId} or b.id = (select d.bundle_id from ${docs} d where d.id = ${inboxItems.docId})))`;

/** Where an item opens: its thread, the run of a verification waiver, the doc's waivers, the doc. */
export function itemUrl(row: ItemRow): string {
  if (row.threadId) return `${API_PREFIX}/threads/${row.threadId}`;
  if (row.waiverId && row.runId) return `${API_PREFIX}/verifications/${row.runId}`;
  if (row.waiverId && row.docId) return `${API_PREFIX}/docs/${row.docId}/waivers`;
  if (row.runId) return `${API_PREFIX}/runs/${row.runId}`;
  if (row.docId) return `${API_PREFIX}/docs/${row.docId}`;
  return `${API_PREFIX}/inbox`;
}

function encodeCursor(row: ItemRow): string {
  return Buffer.from(`${row.createdAt.toISOString()}|${row.id}`).toString("base64url");
}

function decodeCursor(cursor: string): { at: Date; id: string } {
  const [at, id] = Buffer.from(cursor, "base64url").toString("utf8").split("|");
  const date = new Date(at ?? "");
  if (!id || Number.isNaN(date.getTime()) || !/^[0-9a-f-]{36}$/i.test(id))
    throw new ApiError("bad_cursor", "cursor is not a next_cursor this server gave out");
  return { at: date, id };
}

export class InboxService {
  constructor(
    private readonly db: Db,
    private readonly now: () => Date,
  ) {}

  /** `archived`: items about archived bundles too (left out by default, as lists leave those bundles out). */
  async list(userId: string, opts: { limit?: number; cursor?: string; archived?: boolean }) {
    const limit = opts.limit ?? 50;
    const before = opts.cursor === undefined ? undefined : decodeCursor(opts.cursor);
    const mine = opts.archived
      ? eq(inboxItems.userId, userId)
      : and(eq(inboxItems.userId, userId), notArchived);
    const rows = await this.db
      .select()
      .from(inboxItems)
      .where(
        before
          ? and(
              mine,
              or(
                lt(inboxItems.createdAt, before.at),
                and(eq(inboxItems.createdAt, before.at), lt(inboxItems.id, before.id)),
              ),
            )
          : mine,
      )
      .orderBy(desc(inboxItems.createdAt), desc(inboxItems.id))
      .limit(limit + 1);
    const [seen] = await this.db.select().from(inboxSeen).where(eq(inboxSeen.userId, userId));
    const [unseen] = await this.db
      .select({ n: count() })
      .from(inboxItems)
      .where(and(mine, isNull(inboxItems.readAt), seen ? gt(inboxItems.createdAt, seen.seenAt) : undefined));
    const page = rows.slice(0, limit);
    return {
      items: page.map((r) => ({
        id: r.id,
        kind: r.kind,
        sentence: r.summary,
        url: itemUrl(r),
        ...(r.docId ? { doc_id: r.docId } : {}),
        ...(r.bundleId ? { bundle_id: r.bundleId } : {}),
        ...(r.threadId ? { thread_id: r.threadId } : {}),
        ...(r.waiverId ? { waiver_id: r.waiverId } : {}),
        ...(r.runId ? { run_id: r.runId } : {}),
        read: r.readAt !== null,
        created_at: r.createdAt.toISOString(),
      })),
      unseen: unseen?.n ?? 0,
      ...(rows.length > limit ? { next_cursor: encodeCursor(page.at(-1)!) } : {}),
    };
  }

  /** Everything up to now is read; `unseen` counts from now on. */
  async seen(userId: string): Promise<void> {
    const now = this.now();
    await this.db
      .update(inboxItems)
      .set({ readAt: now })
      .where(and(eq(inboxItems.userId, userId), isNull(inboxItems.readAt), lte(inboxItems.createdAt, now)));
    await this.db
      .insert(inboxSeen)
      .values({ userId, seenAt: now })
      .onConflictDoUpdate({ target: inboxSeen.userId, set: { seenAt: now } });
  }

  /** One item read; another person's item is not found (its existence is not leaked). */
  async read(userId: string, id: string): Promise<void> {
    const [row] = await this.db
      .select({ readAt: inboxItems.readAt })
      .from(inboxItems)
      .where(and(eq(inboxItems.id, id), eq(inboxItems.userId, userId)));
    if (!row) throw new NotFoundError("inbox item", id);
    if (row.readAt === null)
      await this.db.update(inboxItems).set({ readAt: this.now() }).where(eq(inboxItems.id, id));
  }
}
