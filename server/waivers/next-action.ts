/**
 * `next_action` (contract 2.5): the one thing to do next with a doc, for the caller, in a
 * fixed priority (docs/review-status.md):
 *
 *   1. `waiver`          a waiver of the doc waits for the caller's decision
 *   2. `decide`          a thread of the doc waits for a decision (ThreadsPort)
 *   3. `fix`             a MUST finding is open on the current version
 *   4. `review`          lint passes but no full review has read the doc
 *   5. `adopt`           the review guessed the type or size the frontmatter does not name
 *   6. `request_review`  a Build Ready draft nobody was asked to review (hosted mode)
 *   7. `handoff`         the doc is approved and Build Ready: take the build packet
 *
 * A list carries kind and sentence; a single read (`single`) also the target ids.
 */
import { and, eq, inArray } from "drizzle-orm";
import type { Actor } from "../auth/actor.js";
import type { Db } from "../db/index.js";
import { waivers } from "../db/schema.js";
import type { RunService } from "../runs.js";
import type { SpecDoc } from "../schemas/common.js";
import type { ThreadsPort } from "./ports.js";
import type { SidecarSync } from "./sidecar-sync.js";
import { current, nextAction } from "../views.js";
import { canDecide } from "./views.js";

type NextAction = NonNullable<SpecDoc["next_action"]>;

export interface NextActionDeps {
  db: Db;
  runs: RunService;
  sidecar: SidecarSync;
  threads: ThreadsPort;
  mode: "local" | "hosted";
  maintainersOf(profileKey: string): Promise<string[]>;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/**
 * `request_review`: a Build Ready draft, in hosted mode, for a member or admin (the one
 * doc-only action that depends on the caller).
 */
export function requestsReview(mode: "local" | "hosted", actor: Actor | undefined, doc?: SpecDoc): boolean {
  const writer = actor?.kind === "user" && (actor.role === "member" || actor.role === "admin");
  if (mode !== "hosted" || !writer) return false;
  return doc === undefined || (current(doc)?.result === "build_ready" && doc.status === "draft");
}

export async function nextActions(
  d: NextActionDeps,
  actor: Actor | undefined,
  list: readonly SpecDoc[],
  single = false,
  /** False when none of the docs has a waiver or thread waiting (server/waivers/pending.ts). */
  decisions = true,
): Promise<Map<string, NextAction>> {
  const out = new Map<string, NextAction>();
  if (list.length === 0) return out;
  const ids = list.map((doc) => doc.id);
  const [open, threads] = await Promise.all([
    decisions
      ? d.db
          .select()
          .from(waivers)
          .where(and(inArray(waivers.docId, ids), eq(waivers.status, "requested")))
          .orderBy(waivers.createdAt, waivers.id)
      : Promise.resolve([]),
    actor && decisions
      ? d.threads.threadsToDecide(actor, ids)
      : Promise.resolve(new Map<string, Array<{ id: string; title: string }>>()),
  ]);
  const maintainers = new Map<string, string[]>();
  for (const w of open)
    if (!maintainers.has(w.profileKey)) maintainers.set(w.profileKey, await d.maintainersOf(w.profileKey));
  for (const doc of list) {
    // An archived doc takes no change (409 `bundle_archived`): nothing to do next.
    if (doc.archived) continue;
    const toDecide = open.filter(
      (w) => w.docId === doc.id && canDecide(w, actor, maintainers.get(w.profileKey) ?? []),
    );
    if (toDecide.length > 0) {
      const first = toDecide[0]!;
      out.set(doc.id, {
        kind: "waiver",
        sentence:
          toDecide.length === 1
            ? `Decide the waiver ${first.createdByName} asked for: approve or reject it.`
            : `Decide ${toDecide.length} waivers waiting for you: approve or reject each.`,
        ...(single ? { waiver_id: first.id } : {}),
      });
      continue;
    }
    const docThreads = threads.get(doc.id) ?? [];
    if (docThreads.length > 0) {
      out.set(doc.id, {
        kind: "decide",
        sentence: `Decide ${docThreads.length === 1 ? `the thread "${docThreads[0]!.title}"` : plural(docThreads.length, "thread")}.`,
      });
      continue;
    }
    const own = nextAction(doc);
    if (own?.kind === "fix") {
      const v = current(doc);
      if (single && v) {
        const finding = await firstOpenMust(d, doc, v.run_id);
        if (finding) own.finding_id = finding;
      }
      out.set(doc.id, own);
      continue;
    }
    if (own && own.kind !== "handoff") {
      out.set(doc.id, own);
      continue;
    }
    if (requestsReview(d.mode, actor, doc)) {
      out.set(doc.id, {
        kind: "request_review",
        sentence: "The doc is Build Ready: ask members to review it.",
      });
      continue;
    }
    if (own) out.set(doc.id, own);
  }
  return out;
}

/** The first MUST finding of the run, in document order, that the version's sidecar does not waive. */
async function firstOpenMust(d: NextActionDeps, doc: SpecDoc, runId: string): Promise<string | undefined> {
  const rows = await d.runs.findings(runId).catch(() => []);
  const musts = rows.filter((f) => f.level === "MUST");
  if (musts.length === 0) return undefined;
  const run = await d.runs.get(runId);
  // Every finding, not the MUST ones only: whether an entry names one finding depends on all.
  const { waived } = await d.sidecar.waivedFor(
    doc.id,
    run.versionId,
    doc.path,
    rows.map((f) => ({
      id: f.id,
      check: f.checkSlug,
      message: f.message,
      anchor: f.anchor ?? { file: "", quote: "", heading_path: [] },
    })),
  );
  return musts.find((f) => !waived.has(f.id))?.id;
}

/** Put the caller's next action on each doc (replacing the caller-blind one of the cached views). */
export async function withNextActions<T extends SpecDoc>(
  d: NextActionDeps,
  actor: Actor | undefined,
  list: readonly T[],
  single = false,
): Promise<T[]> {
  const actions = await nextActions(d, actor, list, single);
  return list.map((doc) => {
    const { next_action: _old, ...rest } = doc;
    void _old;
    const next = actions.get(doc.id);
    return (next ? { ...rest, next_action: next } : rest) as T;
  });
}
