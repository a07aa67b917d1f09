/**
 * Mentions: `@name` in a message reaches that person's inbox. A name is matched against
 * the workspace's people (hosted mode) by their name written without spaces
 * (`@AdaLovelace` or `@ada.lovelace` for "Ada Lovelace"), or the part of their email
 * address before the `@`, all case-insensitive. Local mode has no people: nobody to reach.
 */
import { isNull } from "drizzle-orm";
import type { Db } from "../db/index.js";
import { users } from "../db/schema.js";

/** The `@handles` a message names, lower-cased, in order, each once; emails are not mentions. */
export function mentionHandles(body: string): string[] {
  const out = new Set<string>();
  // Not after a word character: `ada@example.com` mentions nobody.
  for (const m of body.matchAll(/(?<![\p{L}\p{N}_.+-])@([\p{L}\p{N}][\p{L}\p{N}._-]*)/gu)) {
    out.add(m[1]!.replace(/[._-]+$/, "").toLowerCase());
  }
  return [...out];
}

const squash = (s: string) => s.toLowerCase().replace(/[\s._-]+/g, "");

/** Ids of the people the handles name (removed people are not reached). */
export async function resolveMentions(db: Db, handles: readonly string[]): Promise<string[]> {
  if (handles.length === 0) return [];
  const people = await db
    .select({ id: users.id, name: users.name, email: users.email })
    .from(users)
    .where(isNull(users.removedAt));
  const wanted = new Set(handles.map(squash));
  return people
    .filter((p) => wanted.has(squash(p.name)) || wanted.has(squash(p.email.split("@")[0] ?? "")))
    .map((p) => p.id);
}
