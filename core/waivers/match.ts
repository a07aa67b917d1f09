/**
 * Which finding a waiver names: the one rule behind the verdict's `waiver_count`, the
 * sidecar's matches, `waiver_exists`, `lapsed` and the Action's count (docs/waivers.md).
 * A waiver names one finding or none: text that fits several findings names none, so a
 * waiver never excuses the lookalikes of the finding it was approved for.
 */
import { idBeforeContext } from "../lint/ids.js";

/** The fields of a finding a waiver is matched on. */
export interface WaivableFinding {
  id: string;
  check: string;
  anchor: { file: string; quote: string; heading_path?: readonly string[] };
}

/** What a waiver says of its finding: a sidecar entry, or a waiver row in its words. */
export interface WaiverTarget {
  finding?: string;
  check?: string;
  file?: string;
  section?: readonly string[];
  quote?: string;
}

export type Named =
  /** `by: "text"` on a bound waiver: an entry from before waivers carried their finding's id. */
  | { kind: "one"; id: string; by: "id" | "text" }
  | { kind: "none" }
  /** Check, quote and section fit these findings: the waiver names none of them. */
  | { kind: "many"; ids: string[] };

/** Ids of findings of earlier releases are tried up to this order among equal ones. */
const LEGACY_ORDERS = 64;

/**
 * A finding id written before ids took the quote's context: it names no finding any more,
 * so such an entry is matched by its text, as entries without an id are.
 */
function legacyId(t: WaiverTarget): boolean {
  if (!t.finding || t.check === undefined || t.file === undefined || t.quote === undefined) return false;
  for (let n = 0; n < LEGACY_ORDERS; n++)
    if (idBeforeContext(t.file, t.check, t.section ?? [], t.quote, n) === t.finding) return true;
  return false;
}

const sameSection = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((h, i) => h === b[i]);

/**
 * The finding `target` names among `findings` (one review's). `bound`: its finding id is
 * the service's word (a signed entry, a waiver requested or approved through the service,
 * an entry the Action is told to trust); it names that finding and no other. Otherwise (no
 * id, a legacy one, or a hand-written entry) check, quote, file and section together must
 * fit exactly one finding, or an id it gives must be one of those that fit; a missing
 * section is the doc's top, before any heading.
 */
export function namedFinding(
  target: WaiverTarget,
  findings: readonly WaivableFinding[],
  bound: boolean,
): Named {
  if (bound && target.finding && !legacyId(target))
    return findings.some((f) => f.id === target.finding)
      ? { kind: "one", id: target.finding, by: "id" }
      : { kind: "none" };
  if (target.check === undefined || !target.quote) return { kind: "none" };
  const ids = new Set<string>();
  for (const f of findings)
    if (
      f.check === target.check &&
      f.anchor.quote === target.quote &&
      (target.file === undefined || f.anchor.file === target.file) &&
      sameSection(f.anchor.heading_path ?? [], target.section ?? [])
    )
      ids.add(f.id);
  const [first] = ids;
  if (first === undefined) return { kind: "none" };
  if (ids.size === 1) return { kind: "one", id: first, by: "text" };
  // An id the entry gives picks among them (it must fit the text too: never a way around it).
  if (target.finding && ids.has(target.finding)) return { kind: "one", id: target.finding, by: "text" };
  return { kind: "many", ids: [...ids] };
}

/** Why a waiver names no finding although its text fits some (for a request, a view, the Action). */
export function ambiguityText(named: Named): string | undefined {
  if (named.kind !== "many") return undefined;
  return (
    `its check, quote and section fit ${named.ids.length} findings, so it names none of them ` +
    "(add the id of the one meant as finding:)"
  );
}
