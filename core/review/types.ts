/** The records of the full review (docs/review.md): questions, answers, claims, findings, stages. */
import type { Anchor } from "../anchor/anchor.js";
import type { Level } from "../lint/types.js";
import type { ReviewBundle } from "./corpus.js";
import type { ProfileBrief } from "./prompts.js";
import type { ReviewError, RoleRef, StageAnswers, StepRunnerOptions, Usage } from "./steps.js";
import type { ExternalTarget, LinkCheck } from "./stages/external.js";

export type { ExternalTarget, LinkCheck, LinkState } from "./stages/external.js";

export type AiStage = "questions" | "readers" | "judge" | "claims" | "findings" | "external";
/** `external` runs only for a doc with external targets (and is reported only then). */
export const AI_STAGES: readonly AiStage[] = [
  "questions",
  "readers",
  "judge",
  "claims",
  "findings",
  "external",
];

/**
 * `unjudged`: a reader's or the judge's answer was invalid twice, so the review could not
 * judge the question; a person must (docs/review.md).
 */
export type QuestionResult = "agree" | "partial" | "diverge" | "unanswered" | "unjudged";
export const QUESTION_RESULTS: readonly QuestionResult[] = [
  "agree",
  "partial",
  "diverge",
  "unanswered",
  "unjudged",
];

export interface Cite {
  kind: "section" | "trace_id";
  path?: string[];
  id?: string;
  anchor: Anchor;
}

export interface ReaderAnswer {
  reader: number;
  answer: string;
  answered: boolean;
  quotes: Array<{ text: string; found: boolean }>;
}

export interface BuildQuestion {
  id: string;
  /** 1-based, in document order (set when every section's questions are back). */
  number: number;
  text: string;
  level: Level;
  category: string;
  cites: Cite[];
  result: QuestionResult;
  answers: ReaderAnswer[];
  groups: number[][];
  /** With `agree` or `partial`: the answer the answering readers share. */
  agreed_answer?: string;
  /** The finding this question became, when it did. */
  finding_id?: string;
}

export type ClaimLabel = "supported" | "unsupported" | "contradicted" | "assumption";

/**
 * A source a claim's label rests on: a quote of the bundle (`found`, `file`), or a web source
 * a search connection gave (`url`; `found` is false: it is not bundle text).
 */
export interface ClaimSource {
  text: string;
  found: boolean;
  file?: string;
  /** A grounding source: where it is. */
  url?: string;
  title?: string;
  /** With `resolve_sources`: every address the URL redirected to, in order (empty: none). */
  redirect_chain?: string[];
  /** With `resolve_sources`: when the source was read (ISO 8601). */
  retrieved_at?: string;
  /** With `resolve_sources`: why the redirects could not be followed. */
  resolve_error?: string;
}

export interface Claim {
  id: string;
  text: string;
  label: ClaimLabel;
  category: string;
  explanation: string;
  anchor: Anchor;
  sources: ClaimSource[];
}

/** Web sources for a claim (a search connection); never throws, an empty list when nothing is found. */
export interface Grounding {
  sources(claim: string): Promise<ClaimSource[]>;
}

export interface AiFinding {
  id: string;
  check: "build-question" | "claim-contradicted" | "ai-review";
  level: Level;
  category: string;
  message: string;
  anchor: Anchor;
  relaxed: false;
  stage: AiStage;
  /** The quote the model gave was not found; the anchor is the section's heading. */
  unlocated?: boolean;
}

export interface StageTiming {
  name: AiStage;
  /** From the first step's start to the last step's end, in ms. */
  duration_ms: number;
  /** When the stage's first step started, ms after the review started. */
  started_ms: number;
  steps: number;
  cached: number;
}

/** A stage's timing and what happened to its answers. */
export type StageReport = StageTiming & StageAnswers;

export type ReviewEvent =
  | { type: "stage"; stage: AiStage; done: number; total: number; cached: number }
  | { type: "question"; question: BuildQuestion }
  | { type: "claim"; claim: Claim }
  | { type: "finding"; finding: AiFinding }
  | { type: "link"; link: LinkCheck };

export interface ReviewRoles {
  reviewer: RoleRef;
  reader: RoleRef;
  judge: RoleRef;
}

export interface ReviewInput extends Omit<StepRunnerOptions, "onStep"> {
  bundle: ReviewBundle;
  profile: ProfileBrief;
  roles: ReviewRoles;
  /** A monotonic clock in ms (stage timings). */
  now: () => number;
  onEvent?: (event: ReviewEvent) => void;
  /** The doc's external targets, read by the caller: each is checked once (stage `external`). */
  external?: ExternalTarget[];
  /** Web search for the claims stage (a search connection): each claim is labelled with sources. */
  grounding?: Grounding;
}

export interface ReviewOutcome {
  status: "done" | "failed";
  error?: ReviewError;
  questions: BuildQuestion[];
  claims: Claim[];
  /** AI findings in document order. */
  findings: AiFinding[];
  /** The external targets' states, in the order given. */
  links: LinkCheck[];
  stages: StageReport[];
  usage: Usage;
  /** The first repairs made, by stage (for logs and the eval). */
  repairs: Record<string, string[]>;
}

/** The expected answer sizes, for budget checks and estimates. */
export const EXPECTED_TOKENS_OUT: Record<AiStage, number> = {
  questions: 400,
  readers: 150,
  judge: 120,
  claims: 400,
  findings: 300,
  external: 120,
};
