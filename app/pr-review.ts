/**
 * The full review of a pull request: after the lint, when the review roles have models and
 * this month's token budget holds the estimate, each touched bundle's spec doc is reviewed
 * at the head as an ad-hoc review (the service's POST /reviews runner: the pull request's
 * files are reviewed where they are, and nothing is written into the branch's bundles or
 * their versions). The Build Ready check is posted in progress and completed when the
 * review ends; a newer push on the same pull request supersedes a review still running.
 */
import { randomUUID } from "node:crypto";
import { setMaxListeners } from "node:events";
import { posix } from "node:path";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Anchor } from "../core/anchor/anchor.js";
import type { Profile } from "../core/profile/schema.js";
import { completeCheckRun, type ChecksClient, type RepoRef } from "../node/pr/checks.js";
import type { ActionFinding, BundleResult } from "../node/pr/lint.js";
import { annotationsOf, conclusionOf, headline } from "../node/pr/report.js";
import type { Budget } from "../server/models/types.js";
import type { AdhocResult, ReviewService } from "../server/review/service.js";
import { ApiError } from "../server/errors.js";
import { publicLink } from "../server/public-url.js";
import type { Clock, Logger } from "../server/deps.js";
import type { Db } from "../server/db/index.js";
import { prReviews } from "../server/db/schema.js";
import { and, eq, inArray, lt, ne, sql } from "drizzle-orm";

/** What the App needs of the service for a full review. */
export interface FullReviewDeps {
  review: Pick<ReviewService, "roles" | "estimateFiles" | "adhoc" | "ask">;
  budget: Pick<Budget, "remaining">;
  clock: Clock;
  logger: Logger;
  /**
   * The service's public URL (PUBLIC_URL), when one is set: the check links to each doc's
   * report there (GET /api/v1/reviews/{id}/report). Without one there is no address
   * GitHub's readers could reach, and the check carries no link.
   */
  publicUrl?: string;
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
  /** The pull request's profiles (app/pr-profiles.ts); none: the service's. */
  profiles?: readonly Profile[],
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
    const e = await deps.review.estimateFiles(b.files, b.mainPath, profiles);
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
  /** The App's installation on the repo: whoever settles a leftover review calls GitHub through it. */
  installationId: number;
}

interface Running {
  headSha: string;
  abort: AbortController;
  done: Promise<void>;
}

/** A review a process that died left in flight, now claimed by this one (app/pr-leftovers.ts). */
export interface LeftoverReview {
  id: string;
  target: PullTarget;
  startedAt: Date;
  /** Times the review was started, this claim included. */
  attempts: number;
}

export interface PullReviewsOptions {
  db: Db;
  clock: Clock;
  logger: Logger;
  /** How often this instance says it still holds its reviews. */
  heartbeatMs?: number;
  /** A review whose holder has not said so for this long was left by a process that died. */
  leaseMs?: number;
  /** The only process on this database (embedded PGlite): every review in flight at start is a leftover. */
  exclusive?: boolean;
}

/**
 * The full reviews running, one per pull request: a newer push stops the older review,
 * whose check is then completed as cancelled (never left in progress). Each review in
 * flight is also a row of pr_reviews, held by this instance with a heartbeat (the review
 * worker's lease, server/jobs/queue.ts), so that one left by a process that died (kill -9,
 * a deploy) is found and settled by the next instance to look (`recover`).
 */
export class PullReviews {
  /** This instance, as the holder of its rows. */
  readonly id = `app-${randomUUID()}`;
  private readonly running = new Map<string, Running>();
  /** The rows this instance holds: only these are kept alive by its heartbeat. */
  private readonly held = new Set<string>();
  private readonly opts: Required<Omit<PullReviewsOptions, "db" | "clock" | "logger">>;
  private timers: NodeJS.Timeout[] = [];
  private sweeping: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly deps: PullReviewsOptions) {
    this.opts = {
      heartbeatMs: deps.heartbeatMs ?? 5000,
      leaseMs: deps.leaseMs ?? 30_000,
      exclusive: deps.exclusive ?? false,
    };
    const beat = setInterval(() => {
      if (this.held.size === 0) return;
      this.deps.db
        .update(prReviews)
        .set({ heartbeatAt: this.deps.clock.now() })
        .where(and(inArray(prReviews.id, [...this.held]), eq(prReviews.worker, this.id)))
        .catch((err: unknown) =>
          this.deps.logger.warn("pull review heartbeat failed", { error: String(err) }),
        );
    }, this.opts.heartbeatMs);
    beat.unref();
    this.timers.push(beat);
  }

  private key(ref: RepoRef, number: number): string {
    return `${ref.owner}/${ref.repo}#${number}`;
  }

  /** Stop the review running for this pull request, if any, on behalf of `headSha`. */
  supersede(ref: RepoRef, number: number, headSha: string): void {
    const r = this.running.get(this.key(ref, number));
    if (r && r.headSha !== headSha) r.abort.abort(new Superseded(headSha));
  }

  /**
   * Write the review down as in flight, held by this instance, before anything else can go
   * wrong; `leftover` (a row this instance claimed) is taken over rather than written again.
   */
  async hold(target: PullTarget, leftover?: string): Promise<string> {
    const now = this.deps.clock.now();
    if (leftover !== undefined) {
      await this.deps.db
        .update(prReviews)
        .set({ status: "running", headSha: target.headSha, checkRunId: target.checkRunId, heartbeatAt: now })
        .where(and(eq(prReviews.id, leftover), eq(prReviews.worker, this.id)));
      this.held.add(leftover);
      return leftover;
    }
    const id = randomUUID();
    await this.deps.db.insert(prReviews).values({
      id,
      installationId: target.installationId,
      owner: target.ref.owner,
      repo: target.ref.repo,
      pullNumber: target.number,
      headSha: target.headSha,
      checkRunId: target.checkRunId,
      startedAt: now,
      status: "running",
      worker: this.id,
      heartbeatAt: now,
    });
    this.held.add(id);
    return id;
  }

  /** The review ended (its check is completed): nothing is left in flight. */
  async release(rowId: string): Promise<void> {
    this.held.delete(rowId);
    await this.deps.db.delete(prReviews).where(eq(prReviews.id, rowId));
  }

  /**
   * Stop holding a row without removing it (its check could not be completed): its lease
   * lapses and the next sweep, here or on another instance, settles it.
   */
  letGo(rowId: string): void {
    this.held.delete(rowId);
  }

  /** Run `review` in the background (a webhook answers at once); it ends its check itself. */
  start(target: PullTarget, rowId: string, review: (signal: AbortSignal) => Promise<void>): void {
    const key = this.key(target.ref, target.number);
    // The new check supersedes any review still running here, even on the same head (reopened).
    this.running.get(key)?.abort.abort(new Superseded(target.headSha));
    const abort = new AbortController();
    // Every model call of the review listens to the signal (many at once, by design).
    setMaxListeners(0, abort.signal);
    const entry: Running = { headSha: target.headSha, abort, done: Promise.resolve() };
    entry.done = review(abort.signal)
      .then(
        () => this.release(rowId),
        (err: unknown) => {
          // The row stays; its lease lapses and a sweep settles the check (never left in progress).
          this.letGo(rowId);
          throw err;
        },
      )
      .catch((err: unknown) =>
        this.deps.logger.error("a pull request's review did not end cleanly", { error: String(err) }),
      )
      .finally(() => {
        if (this.running.get(key) === entry) this.running.delete(key);
      });
    this.running.set(key, entry);
  }

  /**
   * Claim the reviews processes that died left in flight: every one at the start of the
   * only process (`exclusive`), else those whose holder's heartbeat is older than the
   * lease. The claim is one conditional UPDATE (holder unchanged, still stale), so of
   * several instances looking at once exactly one takes each row.
   */
  async claimLeftovers(all = false): Promise<LeftoverReview[]> {
    const { db, clock } = this.deps;
    const now = clock.now();
    const stale = new Date(now.getTime() - this.opts.leaseMs);
    const rows = await db
      .select({ id: prReviews.id, worker: prReviews.worker })
      .from(prReviews)
      .where(and(ne(prReviews.worker, this.id), all ? undefined : lt(prReviews.heartbeatAt, stale)));
    const out: LeftoverReview[] = [];
    for (const r of rows) {
      const [row] = await db
        .update(prReviews)
        .set({
          worker: this.id,
          status: "settling",
          heartbeatAt: now,
          attempts: sql`${prReviews.attempts} + 1`,
        })
        .where(
          and(
            eq(prReviews.id, r.id),
            eq(prReviews.worker, r.worker),
            all ? undefined : lt(prReviews.heartbeatAt, stale),
          ),
        )
        .returning();
      if (!row) continue;
      this.held.add(row.id);
      out.push({
        id: row.id,
        target: {
          ref: { owner: row.owner, repo: row.repo },
          number: row.pullNumber,
          headSha: row.headSha,
          checkRunId: row.checkRunId,
          installationId: row.installationId,
        },
        startedAt: row.startedAt,
        attempts: row.attempts,
      });
    }
    return out;
  }

  /**
   * Settle the leftovers with `settle` now (all of them when this is the only process) and
   * every half lease after (an instance of several that died is noticed by the others).
   */
  recover(settle: (leftover: LeftoverReview) => Promise<void>): void {
    const sweep = (all: boolean) => {
      if (this.stopped) return;
      this.sweeping = this.sweeping
        .then(async () => {
          for (const l of await this.claimLeftovers(all)) await settle(l);
        })
        .catch((err: unknown) =>
          this.deps.logger.error("settling pull request reviews left in flight failed", {
            error: String(err),
          }),
        );
    };
    sweep(this.opts.exclusive);
    const t = setInterval(() => sweep(false), this.opts.leaseMs / 2);
    t.unref();
    this.timers.push(t);
  }

  /** Resolves once no review is running and no leftover is being settled (tests; a stopping server). */
  async idle(): Promise<void> {
    await this.sweeping;
    while (this.running.size > 0) {
      await Promise.allSettled([...this.running.values()].map((r) => r.done));
      await this.sweeping;
    }
  }

  /** Stop every review (the server is stopping); each completes its check as cancelled. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    await this.sweeping;
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
  /** The pull request's profiles (app/pr-profiles.ts); none: the service's. */
  profiles?: readonly Profile[],
): Promise<void> {
  try {
    await reviewAndComplete(gh, deps, target, bundles, report, signal, profiles);
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
  profiles: readonly Profile[] | undefined,
): Promise<void> {
  const { ref, checkRunId } = target;
  try {
    const results: BundleResult[] = [];
    /** Each doc's report under the public URL (report_url is the API path, /api/v1 included). */
    const reports: Array<{ doc: string; url: string }> = [];
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
        { signal, ...(profiles ? { profiles } : {}) },
      );
      results.push(fullResult(b, r));
      if (deps.publicUrl !== undefined)
        reports.push({ doc: b.lint.doc, url: publicLink(deps.publicUrl, r.report_url) });
    }
    signal.throwIfAborted();
    const all = [...results, ...report.others];
    const findings = results.reduce((n, r) => n + r.findings.length, 0);
    await completeCheckRun(gh, ref, checkRunId, {
      conclusion: conclusionOf(all, "not_build_ready"),
      title: `${headline(all)} (full review)`,
      summary: report.summary(
        all,
        [
          `Full review: ${findings} finding${findings === 1 ? "" : "s"} from the lint and the models.`,
          ...(reports.length > 0
            ? [`The full reports (kept 90 days): ${reports.map((r) => `[${r.doc}](${r.url})`).join(", ")}.`]
            : []),
        ],
        true,
      ),
      annotations: annotationsOf(all),
      // A check has one details link: the first doc's report (the summary lists them all).
      ...(reports.length > 0 ? { detailsUrl: reports[0]!.url } : {}),
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
