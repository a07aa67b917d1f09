/**
 * What other features use of threads, and nothing more:
 *
 * - `openSystemThread`: the service itself (a blocked handoff report, a verification
 *   outcome, a pull-request review comment from the GitHub App) opens a thread on a doc,
 *   optionally blocking; its anchor is checked like anyone's (default: the doc's first
 *   section, or its first line when it has no heading).
 * - `threadsToDecide`: the open threads a person opened that someone answered and nobody
 *   has decided yet, for next_action's `decide` (oldest activity first).
 *
 * Both take the service graph (`Deps`) so callers need no more than what they already hold.
 */
import { anchorAt } from "../../core/anchor/index.js";
import { decodeText } from "../../core/lint/engine.js";
import { parseMarkdown } from "../../core/markdown/document.js";
import type { Deps } from "../deps.js";
import type { ThreadApi } from "./views.js";
import type { Author, NewThread } from "./service.js";

export interface SystemThread {
  docId: string;
  title?: string;
  /** The first message. */
  body: string;
  blocking: boolean;
  /** The handoff a builder opened this thread from, and the bundle version it took. */
  handoffId?: string;
  handoffVersion?: number;
  /** Default: a `section` anchor on the doc's first heading, else a `text` anchor on its first line. */
  anchor?: { kind: NewThread["anchor_kind"]; value: unknown };
  /** Who the thread is by (default: the service, as the AI author kind). */
  author?: Author;
}

export const SYSTEM_AUTHOR: Author = { id: "spec-review", name: "spec-review", kind: "ai" };

/** Open a thread on a doc for the service itself; answers the thread as `GET /threads/{id}` does. */
export async function openSystemThread(d: Deps, t: SystemThread): Promise<ThreadApi> {
  const anchor = t.anchor ?? (await defaultAnchor(d, t.docId));
  return d.threads.open(t.author ?? SYSTEM_AUTHOR, t.docId, {
    anchor_kind: anchor.kind,
    anchor: anchor.value,
    addressed_to: "humans",
    title: t.title ?? t.body.split("\n")[0]!.slice(0, 200),
    body: t.body,
    blocking: t.blocking,
    handoff_id: t.handoffId,
    handoff_version: t.handoffVersion,
  });
}

/** The doc's first heading as a section anchor; a doc without headings gets its first non-empty line as text. */
async function defaultAnchor(
  d: Deps,
  docId: string,
): Promise<{ kind: NewThread["anchor_kind"]; value: unknown }> {
  const rec = await d.store.doc(docId);
  const { bytes } = await d.store.fileBytes(rec.head.id, rec.doc.path);
  const doc = parseMarkdown(decodeText(bytes).text);
  const first = doc.sections.find((s) => s.heading_path.length > 0);
  if (first) return { kind: "section", value: { heading_path: first.heading_path } };
  const text = doc.text;
  const at = text.slice(doc.bodyCharStart).search(/\S/);
  const s = at < 0 ? 0 : doc.bodyCharStart + at;
  const lineEnd = text.indexOf("\n", s);
  const e = Math.max(s + 1, lineEnd < 0 ? text.length : lineEnd);
  return { kind: "text", value: anchorAt(doc, rec.doc.path, s, Math.min(e, text.length)) };
}

/** Open threads `actorId` opened that have a reply and no decision yet (for next_action `decide`). */
export function threadsToDecide(
  d: Deps,
  actorId: string,
  docId?: string,
): Promise<Array<{ id: string; doc_id: string; title: string }>> {
  return d.threads.toDecide(actorId, docId);
}
