/**
 * The verdict of a run (contract 2.4) and the state of a bundle (2.6). Formulas in
 * docs/scoring.md; keep the two in step.
 */
import type { Finding, Level } from "../lint/types.js";

export type VerdictResult = "build_ready" | "not_build_ready" | "stale";
export type VerdictKind = "lint" | "full";

/** A doc as a verdict names it (the upstream docs that made it stale). */
export interface VerdictDocRef {
  id: string;
  bundle_id: string;
  slug: string;
  title: string;
  profile_key: string;
}

/**
 * The one verdict type: what a run stores, what the API answers (server/schemas/common.ts
 * checks its schema against this), what the HTML report shows.
 */
export interface Verdict {
  run_id: string;
  version_number: number;
  kind: VerdictKind;
  result: VerdictResult;
  score: number;
  radar: Record<string, number>;
  waiver_count: number;
  relaxed_count: number;
  must: number;
  should: number;
  info: number;
  blocking_threads: number;
  /** The full review whose AI findings the verdict counts (for a full run, the run itself). */
  ai_run_id?: string;
  /** The version the AI review read, when older than the verdict's version. */
  ai_version_number?: number;
  /** Sections changed since the AI review read the doc. */
  sections_changed?: number;
  /** Why a verdict is `stale` beyond its own doc changing: a linked upstream doc has a newer version. */
  stale_reason?: "upstream_changed";
  /** With `stale_reason` `upstream_changed`: those upstream docs. */
  stale_upstream?: VerdictDocRef[];
}

export interface VerdictInput {
  findings: readonly Pick<Finding, "id" | "level" | "category" | "relaxed">[];
  /** Ids of findings excused by an approved waiver. */
  waived?: Iterable<string>;
  /** Open blocking threads on the doc (countBlockingThreads; 0 until threads exist). */
  blockingThreads?: number;
  kind: VerdictKind;
  runId: string;
  versionNumber: number;
  /** Radar keys of the profile: each gets a value even without findings. */
  radarCategories?: readonly string[];
  /** The full review whose AI findings are among `findings`. */
  aiRunId?: string;
  /** With `aiRunId`: the version that review read, when older than `versionNumber`. */
  aiVersionNumber?: number;
  /** With `aiRunId`: sections changed since that review read the doc. */
  sectionsChanged?: number;
}

/** Score factor per open finding: each MUST takes 20% off, each SHOULD 5%, each INFO 1%. */
export const SCORE_FACTORS: Record<Level, number> = { MUST: 0.8, SHOULD: 0.95, INFO: 0.99 };
/** Radar factor per open finding of the category. */
export const RADAR_FACTORS: Record<Level, number> = { MUST: 0.6, SHOULD: 0.85, INFO: 0.97 };
/** Score factor per open blocking thread. */
export const BLOCKING_THREAD_FACTOR = 0.8;

/**
 * Open blocking threads of a doc. Threads do not exist yet: the server passes what it
 * counts; this is the one place that turns a thread list into the number.
 */
export function countBlockingThreads(threads: readonly { blocking: boolean; status: string }[] = []): number {
  return threads.filter((t) => t.blocking && t.status === "open").length;
}

export function computeVerdict(input: VerdictInput): Verdict {
  const waived = new Set(input.waived ?? []);
  const blocking = Math.max(0, input.blockingThreads ?? 0);
  const counts: Record<Level, number> = { MUST: 0, SHOULD: 0, INFO: 0 };
  const radarFactor = new Map<string, number>((input.radarCategories ?? []).map((k) => [k, 1]));
  let scoreFactor = Math.pow(BLOCKING_THREAD_FACTOR, blocking);
  let waiverCount = 0;
  let relaxed = 0;
  for (const f of input.findings) {
    if (waived.has(f.id)) {
      waiverCount++;
      continue;
    }
    counts[f.level]++;
    if (f.relaxed) relaxed++;
    scoreFactor *= SCORE_FACTORS[f.level];
    radarFactor.set(f.category, (radarFactor.get(f.category) ?? 1) * RADAR_FACTORS[f.level]);
  }
  const radar: Record<string, number> = {};
  for (const [k, v] of radarFactor) radar[k] = Math.round(100 * v);
  return {
    run_id: input.runId,
    version_number: input.versionNumber,
    kind: input.kind,
    result: counts.MUST === 0 && blocking === 0 ? "build_ready" : "not_build_ready",
    score: Math.round(100 * scoreFactor),
    radar,
    waiver_count: waiverCount,
    relaxed_count: relaxed,
    must: counts.MUST,
    should: counts.SHOULD,
    info: counts.INFO,
    blocking_threads: blocking,
    ...(input.aiRunId !== undefined ? { ai_run_id: input.aiRunId } : {}),
    ...(input.aiRunId !== undefined &&
    input.aiVersionNumber !== undefined &&
    input.aiVersionNumber < input.versionNumber
      ? { ai_version_number: input.aiVersionNumber }
      : {}),
    ...(input.aiRunId !== undefined && input.sectionsChanged !== undefined
      ? { sections_changed: input.sectionsChanged }
      : {}),
  };
}

/** A verdict that is no longer on the doc's current version. */
export function staleVerdict(verdict: Verdict): Verdict {
  return { ...verdict, result: "stale" };
}

export type BundleState = "not_build_ready" | "not_reviewed" | "build_ready";

/**
 * Contract 2.6: the worst state of the bundle's docs. Pass each doc's verdict on its
 * CURRENT version (undefined when it has none; a `stale` verdict counts as none).
 * `not_build_ready` if any doc is Not Build Ready; then `not_reviewed` if any doc has no
 * current verdict (or the bundle has no doc); else `build_ready`.
 */
export function bundleState(verdicts: readonly (Pick<Verdict, "result"> | null | undefined)[]): BundleState {
  if (verdicts.some((v) => v?.result === "not_build_ready")) return "not_build_ready";
  if (verdicts.length === 0 || verdicts.some((v) => !v || v.result !== "build_ready")) return "not_reviewed";
  return "build_ready";
}
