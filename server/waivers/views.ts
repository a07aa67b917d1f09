/**
 * A waiver row as the API shows it (contract 4.2, docs/api-decisions.md "waivers"): the
 * policy in words, approvals so far and needed, whether the caller can decide it now, and
 * where its text is in the current main doc (absent, and `lapsed`, once that text is gone).
 */
import type { Actor } from "../auth/actor.js";
import type { MarkdownDoc } from "../../core/markdown/document.js";
import { sectionByPath } from "../../core/trace/edit.js";
import type { waivers } from "../db/schema.js";
import { mayApprove, policyText } from "./policy.js";

export type WaiverRow = typeof waivers.$inferSelect;
export type WaiverStatus = "requested" | "approved" | "rejected" | "withdrawn";

export interface ViewContext {
  actor: Actor | undefined;
  /** The current main doc, parsed (where a waived section is now). */
  main: MarkdownDoc | undefined;
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

/** Byte range of the waived text's section in the current main doc; undefined when it is gone. */
function sectionOf(
  row: WaiverRow,
  main: MarkdownDoc | undefined,
): { start: number; end: number } | undefined {
  if (!main || !row.anchor) return undefined;
  const quote = row.anchor.quote;
  if (quote && !main.text.includes(quote)) return undefined;
  const section = row.anchor.heading_path.length
    ? sectionByPath(main, row.anchor.heading_path)
    : main.sections[0];
  if (!section) return undefined;
  return { start: section.start, end: section.end };
}

export function waiverView(row: WaiverRow, ctx: ViewContext) {
  const section = row.kind === "finding" ? sectionOf(row, ctx.main) : undefined;
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
    ...(row.kind === "finding" ? { lapsed: ctx.main !== undefined && section === undefined } : {}),
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
