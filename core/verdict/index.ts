export {
  computeVerdict,
  staleVerdict,
  bundleState,
  countBlockingThreads,
  SCORE_FACTORS,
  RADAR_FACTORS,
  BLOCKING_THREAD_FACTOR,
  type Verdict,
  type VerdictInput,
  type VerdictKind,
  type VerdictResult,
  type BundleState,
} from "./verdict.js";
