/**
 * Where features built apart meet: each reaches another through a small port of its own
 * (server/verify/ports.ts, server/threads/ports.ts), and this is the one place that
 * connects them, once the service graph is built.
 */
import { eq } from "drizzle-orm";
import { LOCAL_ADMIN } from "./auth/actor.js";
import { users } from "./db/schema.js";
import type { Deps } from "./deps.js";
import type { Author } from "./threads/service.js";
import { openSystemThread } from "./threads/ports.js";

/** A person by actor id, as a thread names its author. */
export async function personAuthor(d: Pick<Deps, "db">, id: string): Promise<Author> {
  if (id === LOCAL_ADMIN.id) return { id, name: LOCAL_ADMIN.name, kind: "user" };
  if (!/^[0-9a-f-]{36}$/i.test(id)) return { id, name: id, kind: "user" };
  const [u] = await d.db.select({ name: users.name }).from(users).where(eq(users.id, id));
  return { id, name: u?.name ?? id, kind: "user" };
}

/**
 * Handoff reports and verification outcomes open their blocking threads as real threads
 * (unless the caller of createServices handed in ports of its own).
 */
export function wireFeatures(d: Deps, own: { verifyThreads: boolean }): void {
  if (own.verifyThreads) return;
  d.verify.ports.threads = {
    async openBlocking(input) {
      const thread = await openSystemThread(d, {
        docId: input.docId,
        title: input.title,
        body: input.body,
        blocking: true,
        ...(input.handoffId !== undefined ? { handoffId: input.handoffId } : {}),
        ...(input.handoffVersion !== undefined ? { handoffVersion: input.handoffVersion } : {}),
        ...(input.anchor ? { anchor: { kind: "section" as const, value: input.anchor } } : {}),
        author: await personAuthor(d, input.createdBy),
      });
      return { threadId: thread.id };
    },
  };
}
