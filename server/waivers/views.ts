/**
 * A waiver row as the API shows it (contract 4.2, docs/api-decisions.md "waivers"): the
 * policy in words, approvals so far and needed, whether the caller can decide it now, and
 * where its finding is in the current main doc (absent, and `lapsed`, once it names none).
 */
import type { Actor } from "../auth/actor.js";
import type { MarkdownDoc } from "../../core/markdown/document.js";
import { sectionByPath } from "../../core/trace/edit.js";
import type { waivers } from "../db/schema.js";
import { ambiguityText, type WaivableFinding } from "../../core/waivers/match.js";
import { rowNamed } from "./named.js";
import { mayApprove, policyText } from "./policy.js";

export type WaiverRow = typeof waivers.$inferSelect;
export type WaiverStatus = "requested" | "approved" | "rejected" | "withdrawn";

export interface ViewContext {
  actor: Actor | undefined;
  /** The current main doc, parsed (where a waived section is now). */
  main: MarkdownDoc | undefined;
  /** The findings of the doc's latest finished review (undefined: none yet). */
  findings: readonly WaivableFinding[] | undefined;
  /** Maintainers of the waiver's profile. */
  maintainers: readonly string[];
  mode: "local" | "hosted";
}

/** Whether `actor` may approve or reject `row` now (policy, role, and never the requester). */
export function canDecide(row: WaiverRow, actor: Actor | undefined, maintainers: readonly string[]): boolean {
  if (!actor || row.status !== "requested") return false;
  if (actor.id === row.createdBy) return false;
  if (row.approvals.some((a) => a.by === actor.id)) return false;
  return mayApprove(row.approvers, actor, maintainers);
}

/**
 * The finding a finding waiver names among the latest review's (one rule: named.ts), and
 * the byte range of that finding's section in the current main doc.
 */
function placeOf(row: WaiverRow, ctx: ViewContext) {
  if (row.kind !== "finding" || !ctx.findings) return undefined;
  const named = rowNamed(row, ctx.findings);
  const finding = named.kind === "one" ? ctx.findings.find((f) => f.id === named.id) : undefined;
  const path = finding?.anchor.heading_path ?? [];
  const section =
    !finding || !ctx.main ? undefined : path.length ? sectionByPath(ctx.main, path) : ctx.main.sections[0];
  return { named, section: section && { start: section.start, end: section.end } };
}

export function waiverView(row: WaiverRow, ctx: ViewContext) {
  const place = placeOf(row, ctx);
  const section = place?.section;
  const problem = place && ambiguityText(place.named);
  return {
    id: row.id,
    doc_id: row.docId,
    kind: row.kind,
    ...(row.findingId ? { finding_id: row.findingId } : {}),
    ...(row.checkSlug ? { check_slug: row.checkSlug } : {}),
    ...(row.level ? { level: row.level } : {}),
    ...(row.anchor ? { anchor: row.anchor } : {}),
    status: row.status as WaiverStatus,
    reason: row.reason,
    policy: policyText({ approvals: row.approvalsNeeded, approvers: row.approvers }),
    approvers: row.approvers,
    approvals_needed: row.approvalsNeeded,
    approvals: row.approvals.map((a) => ({ by: a.by, name: a.name, at: a.at })),
    can_decide: canDecide(row, ctx.actor, ctx.maintainers),
    ...(row.rejectionReason !== null ? { rejection_reason: row.rejectionReason } : {}),
    ...(section ? { section } : {}),
    // Lapsed: it names no finding of the latest review any more (its text is gone or moved).
    ...(row.kind === "finding" ? { lapsed: place?.named.kind === "none" } : {}),
    ...(problem ? { problem: `This waiver names no finding: ${problem}.` } : {}),
    ...(row.kind === "trace"
      ? {
          trace: {
            trace_id: row.traceId ?? "",
            ...(row.upstream ? { upstream: row.upstream } : {}),
            status: "out_of_scope",
          },
        }
      : {}),
    standalone: row.kind === "standalone",
    ...(row.withdrawnBy ? { withdrawn_by: row.withdrawnBy } : {}),
    source: row.source,
    created_by: row.createdBy,
    created_by_name: row.createdByName,
    created_at: row.createdAt.toISOString(),
  };
}
