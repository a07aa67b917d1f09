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
import { openSystemThread, threadsToDecide } from "./threads/ports.js";
import { githubRepoReader } from "./verify/github-reader.js";

/** A person by actor id, as a thread names its author. */
export async function personAuthor(d: Pick<Deps, "db">, id: string): Promise<Author> {
  if (id === LOCAL_ADMIN.id) return { id, name: LOCAL_ADMIN.name, kind: "user" };
  if (!/^[0-9a-f-]{36}$/i.test(id)) return { id, name: id, kind: "user" };
  const [u] = await d.db.select({ name: users.name }).from(users).where(eq(users.id, id));
  return { id, name: u?.name ?? id, kind: "user" };
}

/**
 * Handoff reports and verification outcomes open their blocking threads as real threads,
 * and GitHub targets are read through the repo host (unless the caller of createServices
 * handed in ports of its own).
 */
export function wireFeatures(d: Deps, own: { verifyThreads: boolean; verifyRepos: boolean }): void {
  // Verification of GitHub repositories reads them through the App's installation or the
  // workspace token (hosted mode, where repohost sources exist).
  if (d.repohost && !own.verifyRepos) d.verify.ports.repos = githubRepoReader(d.repohost);
  // next_action `decide`: the open threads the caller opened that someone answered.
  d.threads.onDocChange = (docId) => d.waivers.pending.touch(docId);
  d.waivers.threads = {
    async threadsToDecide(actor, docIds) {
      const wanted = new Set(docIds);
      const out = new Map<string, Array<{ id: string; title: string }>>();
      for (const t of await threadsToDecide(d, actor.id)) {
        if (!wanted.has(t.doc_id)) continue;
        out.set(t.doc_id, [...(out.get(t.doc_id) ?? []), { id: t.id, title: t.title }]);
      }
      return out;
    },
  };
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
