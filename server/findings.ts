/**
 * Findings between the database and the API: `findingOfRow` reads a stored row (the
 * inverse of `insertFindings` in runs.ts) and `findingApi` is the one API shape of a
 * finding (contract: the finding record of docs/findings.md), for stored runs and ad-hoc
 * reviews alike.
 */
import type { Anchor } from "../core/anchor/anchor.js";
import type { Level } from "../core/lint/types.js";
import type { FindingRow } from "./runs.js";

/** A finding of a run: the lint finding fields plus the stage that found it. */
export interface RunFinding {
  id: string;
  check: string;
  level: Level;
  category: string;
  message: string;
  anchor: Anchor;
  relaxed: boolean;
  stage: string;
}

export function findingOfRow(row: FindingRow): RunFinding {
  return {
    id: row.id,
    check: row.checkSlug,
    level: row.level as Level,
    category: row.category,
    message: row.message,
    // Every finding is stored with its anchor (insertFindings); the column allows none for old rows.
    anchor: (row.anchor ?? undefined) as Anchor,
    relaxed: row.relaxed,
    stage: row.stage,
  };
}

/** A finding as the API shows it. */
export function findingApi(runId: string, f: RunFinding) {
  return {
    id: f.id,
    run_id: runId,
    check_slug: f.check,
    level: f.level,
    category: f.category,
    message: f.message,
    ...(f.anchor ? { anchor: f.anchor } : {}),
    stage: f.stage,
    relaxed: f.relaxed,
  };
}
