/**
 * The full review of a pull request: after the lint, when the review roles have models and
 * this month's token budget holds the estimate, each touched bundle's spec doc is reviewed
 * at the head as an ad-hoc review (the service's POST /reviews runner: the pull request's
 * files are reviewed where they are, and nothing is written into the branch's bundles or
 * their versions). The Build Ready check is posted in progress and completed when the
 * review ends; a newer push on the same pull request supersedes a review still running.
 */
import { setMaxListeners } from "node:events";
import { posix } from "node:path";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Anchor } from "../core/anchor/anchor.js";
import { completeCheckRun, type ChecksClient, type RepoRef } from "../node/pr/checks.js";
import type { ActionFinding, BundleResult } from "../node/pr/lint.js";
import { annotationsOf, conclusionOf, headline } from "../node/pr/report.js";
import type { Budget } from "../server/models/types.js";
import type { AdhocResult, ReviewService } from "../server/review/service.js";
import { ApiError } from "../server/errors.js";
import type { Clock, Logger } from "../server/deps.js";

/** What the App needs of the service for a full review. */
export interface FullReviewDeps {
  review: Pick<ReviewService, "roles" | "estimateFiles" | "adhoc">;
  budget: Pick<Budget, "remaining">;
  clock: Clock;
  logger: Logger;
}

/** One touched bundle, read out of the partial checkout before it is removed. */
export interface PullBundle {
  lint: BundleResult;
  /** Files of the bundle folder, by path relative to it. */
  files: Map<string, Uint8Array>;
  /** The spec doc, relative to the bundle folder. */
  mainPath: string;
}

/** What the App does after the lint, and the line the check's summary says about it. */
export type FullReviewPlan =
  | { kind: "none" }
  | { kind: "no_model"; note: string }
  | { kind: "over_budget"; note: string }
  | { kind: "run"; note: string; tokens: number };

const fmt = (n: number) => n.toLocaleString("en-US");

/** Read the files of each valid touched bundle from the checkout. */
export function readBundles(root: string, results: readonly BundleResult[]): PullBundle[] {
  const out: PullBundle[] = [];
  for (const r of results) {
    if (r.problem !== undefined) continue;
    const dir = r.bundle === "." ? root : join(root, ...r.bundle.split("/"));
    const files = new Map<string, Uint8Array>();
    const walk = (rel: string) => {
      for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
        const p = rel === "" ? e.name : `${rel}/${e.name}`;
        if (p === ".spec-review" || p === ".git") continue;
        if (e.isDirectory()) walk(p);
        else if (e.isFile()) files.set(p, new Uint8Array(readFileSync(join(dir, p))));
      }
    };
    walk("");
    out.push({
      lint: r,
      files,
      mainPath: r.bundle === "." ? r.doc : posix.relative(r.bundle, r.doc),
    });
  }
  return out;
}

/** Whether a full review runs: models for every role, and a budget that holds the estimate. */
export async function planFullReview(
  deps: FullReviewDeps,
  bundles: readonly PullBundle[],
): Promise<FullReviewPlan> {
  if (bundles.length === 0) return { kind: "none" };
  try {
    await deps.review.roles();
  } catch (err) {
    if (!(err instanceof ApiError) || err.code !== "model_not_configured") throw err;
    return {
      kind: "no_model",
      note:
        `The full review did not run: it needs a model (${err.message}). ` + "This check is the lint alone.",
    };
  }
  let tokens = 0;
  for (const b of bundles) {
    const e = await deps.review.estimateFiles(b.files, b.mainPath);
    tokens += e.tokens_in + e.tokens_out;
  }
  const left = await deps.budget.remaining(deps.clock.now());
  if (left !== undefined && (tokens > left || left <= 0))
    return {
      kind: "over_budget",
      note:
        `The full review did not run: it would take about ${fmt(tokens)} tokens and this month's ` +
        `budget has ${fmt(left)} left (raise it with PUT /admin/budget). This check is the lint alone.`,
    };
  const n = bundles.length;
  return {
    kind: "run",
    tokens,
    note: `The full review of ${n} spec doc${n === 1 ? "" : "s"} is running (about ${fmt(tokens)} tokens); this check is updated when it ends.`,
  };
}

/** Line and UTF-16 column (1-based) of a UTF-8 byte offset. */
function position(bytes: Uint8Array, offset: number): { line: number; column: number } {
  const at = Math.max(0, Math.min(offset, bytes.length));
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < at; i++)
    if (bytes[i] === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  const column = new TextDecoder().decode(bytes.subarray(lineStart, at)).length + 1;
  return { line, column };
}

/** A full review's result in the Action's shape, so the same table, annotations and conclusion serve. */
export function fullResult(b: PullBundle, r: AdhocResult): BundleResult {
  const main = b.lint.doc;
  const findings: ActionFinding[] = r.findings.map((f) => {
    const anchor = (f as { anchor?: Anchor }).anchor;
    const bytes = anchor ? b.files.get(anchor.file) : undefined;
    const file =
      anchor && bytes ? (b.lint.bundle === "." ? anchor.file : `${b.lint.bundle}/${anchor.file}`) : main;
    const start = anchor && bytes ? position(bytes, anchor.start) : { line: 1, column: 1 };
    const end = anchor && bytes ? position(bytes, anchor.end) : start;
    return {
      id: f.id,
      file,
      line: start.line,
      column: start.column,
      endLine: end.line,
      endColumn: end.column,
      level: f.level,
      check: f.check_slug,
      message: f.message,
      relaxed: f.relaxed,
    };
  });
  const v = r.verdict;
  return {
    bundle: b.lint.bundle,
    doc: main,
    profile: r.profile_key,
    size: b.lint.size,
    result: v.result === "build_ready" ? "build_ready" : "not_build_ready",
    score: v.score,
    must: v.must,
    should: v.should,
    info: v.info,
    findings,
    ...(b.lint.adoption ? { adoption: b.lint.adoption } : {}),
  };
}

/** The pull request a review belongs to. */
export interface PullTarget {
  ref: RepoRef;
  number: number;
  headSha: string;
  checkRunId: number;
}

interface Running {
  headSha: string;
  abort: AbortController;
  done: Promise<void>;
}

/**
 * The full reviews running in this process, one per pull request: a newer push stops the
 * older review, whose check is then completed as cancelled (never left in progress).
 */
export class PullReviews {
  private readonly running = new Map<string, Running>();

  private key(ref: RepoRef, number: number): string {
    return `${ref.owner}/${ref.repo}#${number}`;
  }

  /** Stop the review running for this pull request, if any, on behalf of `headSha`. */
  supersede(ref: RepoRef, number: number, headSha: string): void {
    const r = this.running.get(this.key(ref, number));
    if (r && r.headSha !== headSha) r.abort.abort(new Superseded(headSha));
  }

  /** Run `review` in the background (a webhook answers at once); it ends its check itself. */
  start(target: PullTarget, review: (signal: AbortSignal) => Promise<void>): void {
    const key = this.key(target.ref, target.number);
    // The new check supersedes any review still running here, even on the same head (reopened).
    this.running.get(key)?.abort.abort(new Superseded(target.headSha));
    const abort = new AbortController();
    // Every model call of the review listens to the signal (many at once, by design).
    setMaxListeners(0, abort.signal);
    const entry: Running = { headSha: target.headSha, abort, done: Promise.resolve() };
    entry.done = review(abort.signal).finally(() => {
      if (this.running.get(key) === entry) this.running.delete(key);
    });
    this.running.set(key, entry);
  }

  /** Resolves once no review is running (tests; a stopping server). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running.values()].map((r) => r.done));
  }

  /** Stop every review (the server is stopping); each completes its check as cancelled. */
  async stop(): Promise<void> {
    for (const r of this.running.values()) r.abort.abort(new Error("the server stopped"));
    await this.idle();
  }
}

export class Superseded extends Error {
  constructor(readonly by: string) {
    super(`a newer push (${by.slice(0, 7)}) started a new check`);
  }
}

/**
 * Review each bundle in turn and complete the check: the full verdicts' table, score and
 * counts, one annotation per finding. A failure completes it as failed with the reason; a
 * newer push, as cancelled.
 */
export async function runFullReview(
  gh: ChecksClient,
  deps: FullReviewDeps,
  target: PullTarget,
  bundles: readonly PullBundle[],
  report: {
    /** What the lint found, said again when the review fails. */
    lint: readonly BundleResult[];
    /** Findings that are not in a bundle reviewed (invalid folders): kept as the lint saw them. */
    others: readonly BundleResult[];
    /** The check's summary: the lint's (`full` false) or the full review's table, then `notes`. */
    summary: (results: readonly BundleResult[], notes: readonly string[], full: boolean) => string;
    comment?: (results: readonly BundleResult[]) => Promise<void>;
  },
  signal: AbortSignal,
): Promise<void> {
  try {
    await reviewAndComplete(gh, deps, target, bundles, report, signal);
  } catch (err) {
    // Completing the check failed too (GitHub refused): nothing more can be said there.
    deps.logger.error("completing a pull request's check failed", {
      repo: `${target.ref.owner}/${target.ref.repo}`,
      pull: target.number,
      error: err instanceof Error ? err.message : String(err),
    });
  }
}

async function reviewAndComplete(
  gh: ChecksClient,
  deps: FullReviewDeps,
  target: PullTarget,
  bundles: readonly PullBundle[],
  report: Parameters<typeof runFullReview>[4],
  signal: AbortSignal,
): Promise<void> {
  const { ref, checkRunId } = target;
  try {
    const results: BundleResult[] = [];
    for (const b of bundles) {
      signal.throwIfAborted();
      const r = await deps.review.adhoc(
        {
          files: [...b.files].map(([path, bytes]) => ({
            path,
            content: Buffer.from(bytes).toString("base64"),
            encoding: "base64" as const,
          })),
          main_path: b.mainPath,
          full: true,
        },
        `github:${ref.owner}/${ref.repo}#${target.number}`,
        { signal },
      );
      results.push(fullResult(b, r));
    }
    signal.throwIfAborted();
    const all = [...results, ...report.others];
    const findings = results.reduce((n, r) => n + r.findings.length, 0);
    await completeCheckRun(gh, ref, checkRunId, {
      conclusion: conclusionOf(all, "not_build_ready"),
      title: `${headline(all)} (full review)`,
      summary: report.summary(
        all,
        [`Full review: ${findings} finding${findings === 1 ? "" : "s"} from the lint and the models.`],
        true,
      ),
      annotations: annotationsOf(all),
    });
    await report.comment?.(all);
    deps.logger.info("pull request reviewed", {
      repo: `${ref.owner}/${ref.repo}`,
      pull: target.number,
      docs: results.length,
    });
  } catch (err) {
    if (signal.aborted) {
      const why = signal.reason instanceof Error ? signal.reason.message : String(signal.reason);
      await completeCheckRun(gh, ref, checkRunId, {
        conclusion: "cancelled",
        title: "Superseded: the full review was stopped",
        summary: `The full review of this commit was stopped: ${why}.`,
        annotations: [],
      });
      return;
    }
    const reason =
      err instanceof ApiError
        ? `${err.code}: ${err.message}`
        : err instanceof Error
          ? err.message
          : String(err);
    deps.logger.error("pull request review failed", {
      repo: `${ref.owner}/${ref.repo}`,
      pull: target.number,
      error: reason,
    });
    await completeCheckRun(gh, ref, checkRunId, {
      conclusion: "failure",
      title: "The full review failed",
      summary: report.summary(report.lint, [`The full review failed: ${reason}`], false),
      annotations: annotationsOf(report.lint),
    });
  }
}
