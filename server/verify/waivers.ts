/**
 * Verification waivers: a request to excuse one trace ID in one code repo or folder
 * (POST /docs/{docId}/verification-waivers). They live in their own table and are never
 * written to the sidecar. The waiver endpoints (`POST /waivers/{waiverId}/approve` and
 * `/reject`, built with the other waivers) decide them through `decideVerificationWaiver`;
 * a run counts only approved ones (`tableWaivers.approvedTraceIds`).
 */
import { randomUUID } from "node:crypto";
import { and, desc, eq, inArray } from "drizzle-orm";
import type { Db } from "../db/index.js";
import { verificationWaivers } from "../db/schema.js";
import { ApiError } from "../errors.js";
import type { VerificationWaivers } from "./ports.js";

export type VerificationWaiverRow = typeof verificationWaivers.$inferSelect;

/** The policy of a verification waiver: one approval by someone other than the requester. */
export const VERIFICATION_WAIVER_POLICY = "one_approval";

export const tableWaivers = (db: Db): VerificationWaivers => ({
  async approvedTraceIds(docId, repo) {
    const rows = await db
      .select({ traceId: verificationWaivers.traceId })
      .from(verificationWaivers)
      .where(
        and(
          eq(verificationWaivers.docId, docId),
          eq(verificationWaivers.repo, repo),
          eq(verificationWaivers.status, "approved"),
        ),
      );
    return new Set(rows.map((r) => r.traceId));
  },
});

export async function requestVerificationWaiver(
  db: Db,
  input: {
    docId: string;
    bundleId: string;
    traceId: string;
    repo: string;
    reason: string;
    runId?: string;
    by: string;
    now: Date;
  },
): Promise<VerificationWaiverRow> {
  const [open] = await db
    .select({ id: verificationWaivers.id })
    .from(verificationWaivers)
    .where(
      and(
        eq(verificationWaivers.docId, input.docId),
        eq(verificationWaivers.traceId, input.traceId),
        eq(verificationWaivers.repo, input.repo),
        inArray(verificationWaivers.status, ["requested", "approved"]),
      ),
    )
    .limit(1);
  if (open)
    throw new ApiError(
      "verification_waiver_exists",
      `${input.traceId} in ${input.repo} already has a waiver`,
      { waiver_id: open.id },
    );
  const row: VerificationWaiverRow = {
    id: randomUUID(),
    docId: input.docId,
    bundleId: input.bundleId,
    traceId: input.traceId,
    repo: input.repo,
    reason: input.reason,
    runId: input.runId ?? null,
    status: "requested",
    decidedBy: null,
    decidedAt: null,
    rejectionReason: null,
    createdBy: input.by,
    createdAt: input.now,
  };
  await db.insert(verificationWaivers).values(row);
  return row;
}

export async function verificationWaiver(db: Db, id: string): Promise<VerificationWaiverRow | undefined> {
  const [row] = await db.select().from(verificationWaivers).where(eq(verificationWaivers.id, id));
  return row;
}

export async function verificationWaiversOf(db: Db, docId: string): Promise<VerificationWaiverRow[]> {
  return db
    .select()
    .from(verificationWaivers)
    .where(eq(verificationWaivers.docId, docId))
    .orderBy(desc(verificationWaivers.createdAt));
}

/**
 * Approve or reject a requested verification waiver (for the waiver endpoints). The
 * requester cannot decide their own request unless they are the only person (local mode).
 */
export async function decideVerificationWaiver(
  db: Db,
  id: string,
  decision: { approve: boolean; by: string; reason?: string; now: Date; selfAllowed?: boolean },
): Promise<VerificationWaiverRow> {
  const row = await verificationWaiver(db, id);
  if (!row) throw new ApiError("not_found", `waiver ${id} does not exist`);
  if (row.status !== "requested") throw new ApiError("forbidden", `the waiver is ${row.status} already`);
  if (row.createdBy === decision.by && !decision.selfAllowed)
    throw new ApiError("forbidden", "the requester cannot decide their own waiver");
  const next = {
    status: decision.approve ? "approved" : "rejected",
    decidedBy: decision.by,
    decidedAt: decision.now,
    rejectionReason: decision.approve ? null : (decision.reason ?? null),
  };
  await db.update(verificationWaivers).set(next).where(eq(verificationWaivers.id, id));
  return { ...row, ...next };
}

/** A verification waiver as the Waiver schema shows it (server/schemas/waivers.ts). */
export function verificationWaiverView(
  row: VerificationWaiverRow,
  caller: { id: string; mayApprove: boolean; alone: boolean },
) {
  return {
    id: row.id,
    doc_id: row.docId,
    status: row.status as "requested" | "approved" | "rejected",
    reason: row.reason,
    policy: VERIFICATION_WAIVER_POLICY,
    approvals_needed: 1,
    approvals:
      row.status === "approved" && row.decidedBy && row.decidedAt
        ? [{ by: row.decidedBy, at: row.decidedAt.toISOString() }]
        : [],
    can_decide:
      row.status === "requested" && caller.mayApprove && (caller.alone || caller.id !== row.createdBy),
    ...(row.rejectionReason ? { rejection_reason: row.rejectionReason } : {}),
    verification: { trace_id: row.traceId, repo: row.repo, run_id: row.runId ?? "" },
    created_by: row.createdBy,
    created_at: row.createdAt.toISOString(),
  };
}
