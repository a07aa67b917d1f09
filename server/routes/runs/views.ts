/** Run and finding records (contract 2.17 leaves them to us: docs/api-decisions.md, "runs"). */
import { ApiError } from "../../errors.js";
import { findingApi, findingOfRow } from "../../findings.js";
import type { FindingRow, RunRow } from "../../runs.js";

export function runView(row: RunRow, findingCount: number) {
  return {
    id: row.id,
    doc_id: row.docId,
    bundle_id: row.bundleId,
    kind: row.kind as "lint" | "full",
    status: row.status as "queued" | "running" | "done" | "failed",
    version_id: row.versionId,
    version_number: row.versionNumber,
    profile_key: row.profileKey,
    ...(row.profileVersion !== null ? { profile_version: row.profileVersion } : {}),
    ...(row.verdict ? { verdict: row.verdict } : {}),
    ...(row.error ? { error: row.error } : {}),
    ...(row.stage ? { stage: row.stage } : {}),
    ...(row.adopt ? { adopt: row.adopt } : {}),
    findings: findingCount,
    stages: row.stages,
    created_by: row.createdBy,
    created_at: row.createdAt.toISOString(),
    ...(row.startedAt ? { started_at: row.startedAt.toISOString() } : {}),
    ...(row.finishedAt ? { finished_at: row.finishedAt.toISOString() } : {}),
  };
}

export function findingView(row: FindingRow) {
  return findingApi(row.runId, findingOfRow(row));
}

export function encodeRunCursor(row: RunRow): string {
  return Buffer.from(JSON.stringify([row.createdAt.getTime(), row.id])).toString("base64url");
}

export function decodeRunCursor(cursor: string): { at: Date; id: string } {
  try {
    const v = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown;
    if (Array.isArray(v) && typeof v[0] === "number" && typeof v[1] === "string")
      return { at: new Date(v[0]), id: v[1] };
  } catch {
    /* fall through */
  }
  throw new ApiError("bad_cursor", "cursor is not a next_cursor this server gave out");
}
