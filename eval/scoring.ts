/**
 * Scoring of the review eval (docs/eval.md, "Review eval"): which planted defects the
 * review's findings caught, and how many MUST findings it raised on clean docs.
 *
 * A planted defect is caught when an AI finding (any stage but lint) lands in its section:
 * the finding's heading path starts with the defect's `path` (or one of its `also` paths,
 * for a contradiction between two sections). One finding catches at most one defect; when
 * several defects share a section, a finding whose quote overlaps a defect's quote goes to
 * that defect first. Lint findings never count: the eval measures the AI review.
 */

export const DEFECT_KINDS = [
  "ambiguity",
  "constraint-without-number",
  "contradiction",
  "undefined-term",
  "unsupported-claim",
  "no-acceptance-criterion",
] as const;
export type DefectKind = (typeof DEFECT_KINDS)[number];

export interface PlantedDefect {
  kind: DefectKind;
  /** Heading path (H1 title first) of the section where a finding must land. */
  path: string[];
  /** Other sections a finding may land in instead (the other side of a contradiction). */
  also?: string[][];
  /** Text of the defect, to tell apart defects of one section. */
  quote?: string;
  note?: string;
}

export interface BundleExpectation {
  profile: string;
  clean: boolean;
  defects: PlantedDefect[];
}

/** What the eval keeps of a finding. */
export interface EvalFinding {
  id: string;
  stage: string;
  check: string;
  level: string;
  message: string;
  heading_path: string[];
  quote: string;
}

export interface DefectResult {
  defect: PlantedDefect;
  caught: boolean;
  /** The finding that caught it. */
  finding_id?: string;
}

export interface BundleScore {
  bundle: string;
  clean: boolean;
  defects: DefectResult[];
  /** AI findings that caught no planted defect. */
  unmatched: EvalFinding[];
  /** AI MUST findings (on a clean doc, each is a false MUST). */
  must: number;
}

const norm = (s: string) => s.replace(/\s+/g, " ").trim().toLowerCase();

function within(path: string[], section: string[]): boolean {
  return section.length <= path.length && section.every((h, i) => norm(h) === norm(path[i] ?? ""));
}

function overlaps(a: string, b: string): boolean {
  const x = norm(a);
  const y = norm(b);
  return x !== "" && y !== "" && (x.includes(y) || y.includes(x));
}

export function scoreBundle(
  bundle: string,
  expected: BundleExpectation,
  findings: EvalFinding[],
): BundleScore {
  const ai = findings.filter((f) => f.stage !== "lint");
  const used = new Set<string>();
  const inSection = (d: PlantedDefect, f: EvalFinding) =>
    [d.path, ...(d.also ?? [])].some((p) => within(f.heading_path, p));
  const results: DefectResult[] = expected.defects.map((defect) => ({ defect, caught: false }));
  // Two passes: findings whose quote overlaps the defect's quote, then any in the section.
  for (const byQuote of [true, false])
    for (const r of results) {
      if (r.caught) continue;
      const f = ai.find(
        (x) =>
          !used.has(x.id) &&
          inSection(r.defect, x) &&
          (!byQuote || (r.defect.quote !== undefined && overlaps(x.quote, r.defect.quote))),
      );
      if (f) {
        used.add(f.id);
        r.caught = true;
        r.finding_id = f.id;
      }
    }
  return {
    bundle,
    clean: expected.clean,
    defects: results,
    unmatched: ai.filter((f) => !used.has(f.id)),
    must: ai.filter((f) => f.level === "MUST").length,
  };
}

export interface KindScore {
  planted: number;
  caught: number;
  recall: number;
}

export interface EvalSummary {
  bundles: number;
  clean_bundles: number;
  by_kind: Record<string, KindScore>;
  overall: KindScore;
  /** AI MUST findings on clean docs, divided by the number of clean docs. */
  false_must_per_clean_doc: number;
  /** AI findings that caught no planted defect, per doc (clean docs included). */
  unmatched_per_doc: number;
}

const ratio = (a: number, b: number) => (b === 0 ? 0 : Math.round((a / b) * 1000) / 1000);

export function summarize(scores: BundleScore[], only?: DefectKind): EvalSummary {
  const by_kind: Record<string, KindScore> = {};
  for (const k of only ? [only] : DEFECT_KINDS) by_kind[k] = { planted: 0, caught: 0, recall: 0 };
  for (const s of scores)
    for (const d of s.defects) {
      const k = by_kind[d.defect.kind];
      if (!k) continue;
      k.planted++;
      if (d.caught) k.caught++;
    }
  const overall = { planted: 0, caught: 0, recall: 0 };
  for (const k of Object.values(by_kind)) {
    k.recall = ratio(k.caught, k.planted);
    overall.planted += k.planted;
    overall.caught += k.caught;
  }
  overall.recall = ratio(overall.caught, overall.planted);
  const clean = scores.filter((s) => s.clean);
  return {
    bundles: scores.length,
    clean_bundles: clean.length,
    by_kind,
    overall,
    false_must_per_clean_doc: ratio(
      clean.reduce((n, s) => n + s.must, 0),
      clean.length,
    ),
    unmatched_per_doc: ratio(
      scores.reduce((n, s) => n + s.unmatched.length, 0),
      scores.length,
    ),
  };
}

/** Read and check an `expected.yaml` (already parsed); throws with the bundle's name. */
export function checkExpectation(bundle: string, data: unknown): BundleExpectation {
  const fail = (why: string): never => {
    throw new Error(`fixtures/eval/${bundle}/expected.yaml: ${why}`);
  };
  if (typeof data !== "object" || data === null) return fail("not a mapping");
  const o = data as Record<string, unknown>;
  if (typeof o["profile"] !== "string") fail("profile is missing");
  const defects = (o["defects"] ?? []) as unknown[];
  if (!Array.isArray(defects)) return fail("defects is not a list");
  const isPath = (p: unknown): p is string[] =>
    Array.isArray(p) && p.length > 0 && p.every((h) => typeof h === "string");
  const list = defects.map((d, i) => {
    const x = d as Record<string, unknown>;
    if (!DEFECT_KINDS.includes(x["kind"] as DefectKind))
      fail(`defect ${i}: kind must be one of ${DEFECT_KINDS.join(", ")}`);
    if (!isPath(x["path"])) fail(`defect ${i}: path must be a list of headings`);
    if (x["also"] !== undefined && !(Array.isArray(x["also"]) && x["also"].every(isPath)))
      fail(`defect ${i}: also must be a list of heading paths`);
    return x as unknown as PlantedDefect;
  });
  const clean = o["clean"] === true;
  if (clean !== (list.length === 0)) fail("clean must be true exactly when there is no defect");
  return { profile: o["profile"] as string, clean, defects: list };
}
