/**
 * Full reviews (docs/review.md): start one (a queued run), run it (the worker calls
 * `execute`), and read what it produced: questions, claims, report, tour; fixes, the
 * diff summary and ad-hoc reviews of unsaved files.
 *
 * One object per app; each concern lives in its own module:
 * - `execute.ts`: queueing, estimating and running full runs;
 * - `read-models.ts`: questions, claims, report and tour;
 * - `fixes.ts`: suggested fixes and applying them;
 * - `diff-summary.ts`: what changed between two versions;
 * - `adhoc.ts`: reviews of files that are not saved (POST /reviews).
 */
import type { Deps } from "../deps.js";
import type { RunBus } from "../jobs/bus.js";
import type { EventWriter } from "../jobs/events.js";
import type { RoleModel, RoleName } from "../models/types.js";
import type { RunRow } from "../runs.js";
import { AdhocReviews, type AdhocResult } from "./adhoc.js";
import { FileQuestions } from "./ask.js";
import { ROLES, ReviewBase } from "./common.js";
import { DiffSummaries } from "./diff-summary.js";
import { RunExecution } from "./execute.js";
import { FixService } from "./fixes.js";
import { ReviewReads } from "./read-models.js";

export { ADHOC_TTL_DAYS, type AdhocResult } from "./adhoc.js";
export { ROLES, mergeFindings, profileBrief } from "./common.js";

export class ReviewService {
  readonly bus: RunBus;
  private readonly base: ReviewBase;
  private readonly execution: RunExecution;
  private readonly reads: ReviewReads;
  private readonly fixes: FixService;
  private readonly diffs: DiffSummaries;
  private readonly adhocs: AdhocReviews;
  private readonly questionsOfFiles: FileQuestions;

  constructor(deps: Deps) {
    this.bus = deps.bus;
    this.base = new ReviewBase(deps);
    this.execution = new RunExecution(deps, this.bus);
    this.reads = new ReviewReads(deps);
    this.fixes = new FixService(deps);
    this.diffs = new DiffSummaries(deps);
    this.adhocs = new AdhocReviews(deps);
    this.questionsOfFiles = new FileQuestions(deps);
  }

  /** The models of the review roles; `model_not_configured` names the roles without one. */
  roles(needed: readonly RoleName[] = ROLES): Promise<Record<RoleName, RoleModel>> {
    return this.base.roles(needed);
  }

  /** Queue a full review of the doc's current version. */
  start(docId: string, by: string): Promise<RunRow> {
    return this.execution.start(docId, by);
  }

  /** What a full review of the current version would cost. */
  estimate(docId: string) {
    return this.execution.estimate(docId);
  }

  /** Run a claimed full run to its end (the worker's job). Never leaves it `running`. */
  execute(run: RunRow, signal: AbortSignal, events: EventWriter): Promise<void> {
    return this.execution.execute(run, signal, events);
  }

  questions(runId: string) {
    return this.reads.questions(runId);
  }

  claims(runId: string) {
    return this.reads.claims(runId);
  }

  report(runId: string) {
    return this.reads.report(runId);
  }

  /** Points of the doc's latest review that need a person: decide, then fix, in document order. */
  tour(docId: string) {
    return this.reads.tour(docId);
  }

  /** Ask the reviewer for a patch for one finding; the doc does not change. */
  fix(runId: string, findingId: string) {
    return this.fixes.fix(runId, findingId);
  }

  /** Apply a finding's suggested patch on `base` as a new version. */
  acceptFix(runId: string, findingId: string, base: string, author: string) {
    return this.fixes.acceptFix(runId, findingId, base, author);
  }

  diffSummary(docId: string, from: string, to: string | undefined) {
    return this.diffs.diffSummary(docId, from, to);
  }

  purgeExpired(): Promise<number> {
    return this.adhocs.purgeExpired();
  }

  /** Review files that are not saved; changes no bundle. */
  adhoc(...args: Parameters<AdhocReviews["adhoc"]>) {
    return this.adhocs.adhoc(...args);
  }

  /** What a full ad-hoc review of these files would cost. */
  estimateFiles(...args: Parameters<AdhocReviews["estimateFiles"]>) {
    return this.adhocs.estimateFiles(...args);
  }

  /** The reviewer's answer to a question about bundles that are not saved (the App's `ask`). */
  ask(...args: Parameters<FileQuestions["ask"]>) {
    return this.questionsOfFiles.ask(...args);
  }

  adhocResult(reviewId: string): Promise<AdhocResult> {
    return this.adhocs.adhocResult(reviewId);
  }
}
