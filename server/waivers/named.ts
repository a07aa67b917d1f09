/**
 * A waiver row under the one rule of core/waivers/match.ts: which finding of a run it
 * names. `waiver_exists`, `lapsed`, approval and the sidecar all ask this, never the text.
 */
import {
  namedFinding,
  type Named,
  type WaivableFinding,
  type WaiverTarget,
} from "../../core/waivers/match.js";
import type { FindingRow } from "../runs.js";
import type { WaiverRow } from "./views.js";

export function rowTarget(row: WaiverRow): WaiverTarget {
  return {
    ...(row.findingId ? { finding: row.findingId } : {}),
    ...(row.checkSlug !== null ? { check: row.checkSlug } : {}),
    ...(row.anchor
      ? { file: row.anchor.file, section: row.anchor.heading_path, quote: row.anchor.quote }
      : {}),
  };
}

/**
 * Its finding id is the service's: asked for through the API (the id of a finding it
 * found), or approved (bound then). A request typed into the sidecar is not, until approved.
 */
export const rowBound = (row: WaiverRow) => row.source === "service" || row.status === "approved";

export const rowNamed = (row: WaiverRow, findings: readonly WaivableFinding[]): Named =>
  namedFinding(rowTarget(row), findings, rowBound(row));

/** Stored findings as the rule reads them. */
export function waivable(rows: readonly FindingRow[]): WaivableFinding[] {
  return rows.map((f) => ({
    id: f.id,
    check: f.checkSlug,
    anchor: f.anchor ?? { file: "", quote: "", heading_path: [] },
  }));
}
