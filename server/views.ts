/**
 * Turning store records into the resources of the contract (2.1 spec doc, 2.6 bundle).
 */
import type { Bundle, SpecDoc } from "./schemas/common.js";
import { docVerdict, type RunRow } from "./runs.js";
import type { DocRecord } from "./store/types.js";

export function docView(row: DocRecord, run?: RunRow): SpecDoc {
  const { bundle: b, doc: d, head: v } = row;
  const doc: SpecDoc = {
    id: d.id,
    bundle_id: b.id,
    slug: b.slug,
    title: b.title,
    profile_key: d.profileKey,
    source_kind: b.sourceKind,
    path: d.path,
    current_version: { ...v },
    updated_at: d.updatedAt.toISOString(),
    status: d.status,
  };
  if (b.origin) doc.repohost = { ...b.origin };
  if (b.archived) doc.archived = true;
  if (d.problems && d.problems.length > 0) doc.problems = d.problems;
  const verdict = docVerdict(run, v.number);
  if (verdict) doc.verdict = verdict;
  if (run && run.versionNumber === v.number) {
    if (run.status === "failed" && run.error) doc.run_error = run.error;
    if (run.adopt && (run.adopt.type !== undefined || run.adopt.size !== undefined)) doc.adopt = run.adopt;
  }
  // An archived doc takes no change, so it has nothing to do next.
  const next = b.archived ? undefined : nextAction(doc);
  if (next) doc.next_action = next;
  return doc;
}

/** Worst state of the bundle's docs (contract 2.6). */
export function bundleState(list: SpecDoc[]): Bundle["state"] {
  const current = (doc: SpecDoc) =>
    doc.verdict && doc.verdict.version_number === doc.current_version.number ? doc.verdict : undefined;
  if (list.some((doc) => current(doc)?.result === "not_build_ready")) return "not_build_ready";
  if (list.some((doc) => current(doc)?.result !== "build_ready")) return "not_reviewed";
  return "build_ready";
}

export function bundleView(row: DocRecord, run?: RunRow): Bundle {
  const doc = docView(row, run);
  const { bundle } = row;
  const view: Bundle = {
    id: bundle.id,
    slug: bundle.slug,
    title: bundle.title,
    source_kind: doc.source_kind,
    state: bundleState([doc]),
    docs: [doc],
    updated_at: bundle.updatedAt.toISOString(),
  };
  if (bundle.visibility) view.visibility = bundle.visibility;
  if (bundle.archived) view.archived = true;
  return view;
}

/** The current verdict of a doc (not stale, on its current version). */
export function current(doc: SpecDoc): SpecDoc["verdict"] {
  const v = doc.verdict;
  return v && v.result !== "stale" && v.version_number === doc.current_version.number ? v : undefined;
}

/**
 * What to do next with a doc (contract 2.5), as far as the doc alone says: fix the open
 * MUST findings, run a full review, adopt the guessed frontmatter, take the handoff of an
 * approved doc. Reads for a caller put the caller's own first (a waiver or a thread to
 * decide, a review to request) and add target ids: server/waivers/next-action.ts, which
 * documents the one priority.
 */
export function nextAction(doc: SpecDoc): SpecDoc["next_action"] {
  const v = current(doc);
  if (v && v.must > 0)
    return {
      kind: "fix",
      sentence: `Fix ${v.must} MUST finding${v.must === 1 ? "" : "s"} to make the doc Build Ready.`,
    };
  if (v && v.kind === "lint" && v.result === "build_ready" && v.ai_run_id === undefined)
    return {
      kind: "review",
      sentence: "Lint passes: run a full review to find what readers would build differently.",
    };
  if (doc.adopt) {
    const keys = Object.keys(doc.adopt).join(" and ");
    return { kind: "adopt", sentence: `Write the ${keys} the review guessed into the frontmatter.` };
  }
  if (v?.result === "build_ready" && doc.status === "approved")
    return {
      kind: "handoff",
      sentence: "The doc is approved and Build Ready: take the build packet to a coding agent.",
    };
  return undefined;
}
