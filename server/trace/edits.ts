/**
 * The trace view's writes to a main doc (contract 4.2): `Covers <ID>.` at the end of a
 * section, suggested IDs, and taking a link out. Each is one new version on
 * `base_version`, re-linted; a request that changes nothing makes no version; bad input
 * fails before anything is written.
 */
import { parseMarkdown } from "../../core/markdown/document.js";
import { appendCover, removeFrontmatterLink } from "../../core/trace/edit.js";
import { insertIds } from "../../core/trace/ids.js";
import { normalizeSlug, isUrl, type LinkKind } from "../../core/trace/links.js";
import { ApiError, ValidationError, VersionConflictError } from "../errors.js";
import type { Deps } from "../deps.js";
import { docVerdict } from "../runs.js";
import type { Verdict } from "../schemas/common.js";
import type { WriteResult } from "../store/types.js";
import { removeHeldLink } from "./held.js";
import { loadGraph, type LoadedGraph } from "./load.js";

type Result = WriteResult & { verdict?: Verdict };

interface Target {
  d: Pick<Deps, "store" | "profiles" | "runs" | "db">;
  docId: string;
  base: string;
  author: string;
}

/** The graph, the doc's index and its current text, once `base` is known to be the head. */
async function current(t: Target): Promise<{ loaded: LoadedGraph; i: number; text: string }> {
  const { store, profiles } = t.d;
  const bundleId = await store.bundleIdOfDoc(t.docId);
  await store.refreshBundle(bundleId);
  const head = await store.resolveVersion(bundleId);
  if (head.id !== t.base) {
    await store.resolveVersion(bundleId, t.base); // an unknown base is bad_version
    throw new VersionConflictError(t.base, head);
  }
  const loaded = await loadGraph(store, profiles, t.d.db);
  const i = loaded.indexOf(t.docId);
  return { loaded, i, text: await loaded.text(i) };
}

async function save(
  t: Target,
  loaded: LoadedGraph,
  i: number,
  text: string,
  message: string,
): Promise<Result> {
  const r = loaded.records[i]!;
  const result = await t.d.store.write(
    t.docId,
    t.base,
    [{ path: r.doc.path, bytes: new TextEncoder().encode(text) }],
    t.author,
    message,
  );
  if (!result.changed) return result;
  const run = await t.d.runs.lintVersion(r.bundle.id, t.docId, result.version.id, result.version.number);
  const verdict = docVerdict(run, result.version.number);
  return verdict ? { ...result, verdict } : result;
}

function unchanged(loaded: LoadedGraph, i: number): Result {
  return { version: loaded.records[i]!.head, changed: false };
}

/** POST /docs/{docId}/trace/cover */
export async function coverTraceId(t: Target, traceId: string, section: string[]): Promise<Result> {
  const { loaded, i, text } = await current(t);
  const ups = loaded.graph.upstreamOf(i);
  const details = await loaded.details(ups);
  if (!ups.some((u) => details.get(u)!.ids.some((x) => x.id === traceId)))
    throw new ApiError(
      "unknown_trace_id",
      ups.length === 0
        ? `the doc implements no bundle, so there is no ID to cover`
        : `${traceId} is not an ID of ${ups.map((u) => loaded.graph.docs[u]!.ref.slug).join(", ")}`,
    );
  const edit = appendCover(parseMarkdown(text), section, traceId);
  if (!edit.ok)
    throw new ApiError("section_not_found", `no section has the heading path ${JSON.stringify(section)}`);
  if (!edit.changed) return unchanged(loaded, i);
  return save(t, loaded, i, edit.text, `Covers ${traceId}.`);
}

/** POST /docs/{docId}/trace/ids */
export async function insertTraceIds(t: Target, ids: string[] | undefined): Promise<Result> {
  const { loaded, i, text } = await current(t);
  const [detail] = (await loaded.details([i])).values();
  const { suggestions, use } = detail!;
  if (ids) {
    const twice = ids.find((id, k) => ids.indexOf(id) !== k);
    if (twice !== undefined)
      throw new ValidationError(`${twice} is named twice`, [
        { field: "body.ids", message: "an ID named twice" },
      ]);
    for (const id of ids) {
      if (suggestions.some((s) => s.id === id)) continue;
      if (use.mentioned.has(id)) throw new ApiError("trace_id_taken", `${id} is already used in the doc`);
      throw new ApiError("unknown_trace_id", `${id} is not a suggested ID of the current version`);
    }
  }
  const chosen = ids ? suggestions.filter((s) => ids.includes(s.id)) : suggestions;
  if (chosen.length === 0) return unchanged(loaded, i);
  return save(t, loaded, i, insertIds(text, chosen), `Trace IDs ${chosen.map((s) => s.id).join(", ")}`);
}

/** DELETE /docs/{docId}/links */
export async function removeLink(t: Target, kind: LinkKind, targetRef: string): Promise<Result> {
  const { loaded, i, text } = await current(t);
  const want = isUrl(targetRef) ? targetRef.trim() : normalizeSlug(targetRef);
  const link = loaded.graph.outgoing(i).find((l) => l.kind === kind && l.target_ref === want);
  if (!link) throw new ApiError("link_not_found", `the doc has no link \`${kind}: ${targetRef}\``);
  if (link.origin === "rule")
    throw new ApiError(
      "link_not_removable",
      `\`${kind}: ${want}\` follows from the profile's upstream rule; write a link of your own to replace it`,
    );
  // A link the service holds goes from the database: the doc and its version stay.
  if (link.held) {
    await removeHeldLink(t.d.db, loaded.records[i]!.bundle.id, kind, want);
    return unchanged(loaded, i);
  }
  const edit = removeFrontmatterLink(text, kind, want, link.origin);
  if (!edit.ok)
    throw new ApiError("frontmatter_unreadable", `the frontmatter cannot be edited: ${edit.reason}`);
  const result = await save(t, loaded, i, edit.text, `Remove link ${kind}: ${want}`);
  // The same link confirmed at import too: it goes with the doc's own.
  await removeHeldLink(t.d.db, loaded.records[i]!.bundle.id, kind, want);
  return result;
}
