/**
 * Lint runs: every new version of a bundle (an API save or an edit on disk) is linted
 * in process with core/lint, and the run, its findings in document order and its
 * verdict are recorded. A save waits for its own run, so its answer carries the verdict.
 */
import { randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import { and, asc, desc, eq, inArray, lt, or, sql } from "drizzle-orm";
import { lintBundle } from "../core/lint/index.js";
import { computeVerdict, countBlockingThreads } from "../core/verdict/index.js";
import type { Db } from "./db/index.js";
import { bundles, docs, findings, runs } from "./db/schema.js";
import type { Clock, Logger } from "./deps.js";
import { NotFoundError } from "./errors.js";
import type { ProfileRegistry } from "./profiles.js";
import type { LocalStore, VersionEvent } from "./store/local.js";
import { Mutex } from "./store/mutex.js";
import { aiCarry } from "./review/carry.js";
import type { Verdict } from "./schemas/common.js";
import type { Anchor } from "../core/anchor/anchor.js";

export type RunRow = typeof runs.$inferSelect;
export type FindingRow = typeof findings.$inferSelect;

export const LINT_AUTHOR = "lint";

export class RunService {
  /** `run`: a run of the bundle finished (its verdict may have changed). */
  readonly events = new EventEmitter<{ run: [{ bundleId: string; docId: string }] }>();
  private readonly inflight = new Map<string, Promise<RunRow>>();
  private readonly queue = new Mutex();
  private pending = 0;
  private idleWaiters: Array<() => void> = [];
  private readonly onVersion = (ev: VersionEvent) => {
    this.lintVersion(ev.bundleId, ev.docId, ev.version.id, ev.version.number).catch((err: unknown) =>
      this.logger.error("lint run failed", { doc: ev.docId, error: String(err) }),
    );
  };

  constructor(
    private readonly db: Db,
    private readonly store: LocalStore,
    private readonly profiles: ProfileRegistry,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** Lint every new version from now on. */
  listen(): void {
    this.store.events.on("version", this.onVersion);
  }

  stop(): void {
    this.store.events.off("version", this.onVersion);
  }

  /** Lint the current version of every doc whose run is missing or used an older profile (after a start). */
  async catchUp(): Promise<void> {
    const rows = await this.db
      .select({
        docId: docs.id,
        bundleId: bundles.id,
        versionId: bundles.headVersionId,
        number: bundles.headNumber,
      })
      .from(docs)
      .innerJoin(bundles, eq(bundles.id, docs.bundleId))
      .where(sql`${bundles.headVersionId} is not null`);
    await Promise.all(rows.map((r) => this.lintVersion(r.bundleId, r.docId, r.versionId!, r.number)));
  }

  /** Lint again the current version of every doc that names `profileKey` (after the profile changed). */
  relintProfile(profileKey: string): Promise<void> {
    return this.tracked(() => this.relint(profileKey));
  }

  private async relint(profileKey: string): Promise<void> {
    const rows = await this.db
      .select({
        docId: docs.id,
        bundleId: bundles.id,
        versionId: bundles.headVersionId,
        number: bundles.headNumber,
      })
      .from(docs)
      .innerJoin(bundles, eq(bundles.id, docs.bundleId))
      .where(and(eq(docs.profileKey, profileKey), sql`${bundles.headVersionId} is not null`));
    await Promise.all(rows.map((r) => this.lintVersion(r.bundleId, r.docId, r.versionId!, r.number)));
  }

  /** Resolves when no lint run is queued or running. */
  idle(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** The lint run of a version: started once, shared by everyone who asks. */
  lintVersion(bundleId: string, docId: string, versionId: string, versionNumber: number): Promise<RunRow> {
    let run = this.inflight.get(versionId);
    if (run) return run;
    run = this.tracked(() => this.queue.run(() => this.lint(bundleId, docId, versionId, versionNumber)))
      .then((row) => {
        this.changed(bundleId, docId);
        return row;
      })
      .finally(() => this.inflight.delete(versionId));
    this.inflight.set(versionId, run);
    return run;
  }

  /** Say that a run of the bundle finished, so views of its verdict refresh. */
  changed(bundleId: string, docId: string): void {
    this.events.emit("run", { bundleId, docId });
  }

  /** Count work that `idle()` waits for. */
  private tracked<T>(fn: () => Promise<T>): Promise<T> {
    this.pending++;
    return fn().finally(() => {
      if (--this.pending === 0) for (const w of this.idleWaiters.splice(0)) w();
    });
  }

  private async lint(
    bundleId: string,
    docId: string,
    versionId: string,
    versionNumber: number,
  ): Promise<RunRow> {
    const [existing] = await this.db
      .select()
      .from(runs)
      .where(and(eq(runs.versionId, versionId), eq(runs.docId, docId), eq(runs.kind, "lint")))
      .orderBy(desc(runs.createdAt))
      .limit(1);
    // A run on this version is still good unless its profile has a newer text since.
    if (
      existing &&
      (existing.status !== "done" || existing.profileVersion === this.profiles.versionOf(existing.profileKey))
    )
      return existing;
    const [doc] = await this.db.select().from(docs).where(eq(docs.id, docId));
    if (!doc) throw new NotFoundError("doc", docId);
    const started = this.clock.now();
    const id = randomUUID();
    const base = {
      id,
      docId,
      bundleId,
      versionId,
      versionNumber,
      kind: "lint",
      createdBy: LINT_AUTHOR,
      createdAt: started,
      startedAt: started,
    };
    let result;
    let files: Map<string, Uint8Array>;
    const t0 = performance.now();
    try {
      files = await this.store.snapshot(versionId);
      result = lintBundle({ files, mainPath: doc.path, profiles: this.profiles.list() });
    } catch (err) {
      const [row] = await this.db
        .insert(runs)
        .values({
          ...base,
          status: "failed",
          profileKey: doc.profileKey,
          error: `lint failed: ${err instanceof Error ? err.message : String(err)}`,
          finishedAt: this.clock.now(),
        })
        .returning();
      return row!;
    }
    const duration = Math.round((performance.now() - t0) * 1000) / 1000;
    const profile = this.profiles.get(result.profile_key);
    // The latest full review's AI findings keep counting (re-anchored), until the next one.
    const carry = await aiCarry(this.db, this.store, docId, versionNumber, doc.path, files);
    const all = [...result.findings.map((f) => ({ ...f, stage: "lint" })), ...(carry?.findings ?? [])];
    all.sort((a, b) => a.anchor.start - b.anchor.start);
    const verdict = computeVerdict({
      findings: all,
      blockingThreads: countBlockingThreads([]),
      kind: "lint",
      runId: id,
      versionNumber,
      radarCategories: profile?.radar.map((r) => r.key),
      ...(carry
        ? {
            aiRunId: carry.runId,
            aiVersionNumber: carry.versionNumber,
            sectionsChanged: carry.sectionsChanged,
          }
        : {}),
    });
    return this.db.transaction(async (tx) => {
      const [row] = await tx
        .insert(runs)
        .values({
          ...base,
          status: "done",
          profileKey: result.profile_key,
          profileVersion: this.profiles.versionOf(result.profile_key) ?? null,
          verdict,
          adopt: result.adopt ?? null,
          stages: [{ name: "lint", duration_ms: duration }],
          finishedAt: this.clock.now(),
        })
        .returning();
      await insertFindings(tx, id, all);
      return row!;
    });
  }

  /** The latest finished run of each doc (done or failed). */
  async latestRuns(docIds: string[]): Promise<Map<string, RunRow>> {
    if (docIds.length === 0) return new Map();
    const rows = await this.db
      .selectDistinctOn([runs.docId])
      .from(runs)
      .where(and(inArray(runs.docId, docIds), inArray(runs.status, ["done", "failed"])))
      .orderBy(runs.docId, desc(runs.versionNumber), desc(runs.createdAt), desc(runs.id));
    return new Map(rows.map((r) => [r.docId, r]));
  }

  async get(runId: string): Promise<RunRow> {
    const [row] = await this.db.select().from(runs).where(eq(runs.id, runId));
    if (!row) throw new NotFoundError("run", runId);
    return row;
  }

  /** Runs of a doc, newest first; `before` is the last run of the previous page. */
  async list(docId: string, opts: { limit: number; before?: { at: Date; id: string } }): Promise<RunRow[]> {
    const b = opts.before;
    return this.db
      .select()
      .from(runs)
      .where(
        b
          ? and(
              eq(runs.docId, docId),
              or(lt(runs.createdAt, b.at), and(eq(runs.createdAt, b.at), lt(runs.id, b.id))),
            )
          : eq(runs.docId, docId),
      )
      .orderBy(desc(runs.createdAt), desc(runs.id))
      .limit(opts.limit);
  }

  async findingCounts(runIds: string[]): Promise<Map<string, number>> {
    if (runIds.length === 0) return new Map();
    const rows = await this.db
      .select({ runId: findings.runId, n: sql<number>`count(*)::int` })
      .from(findings)
      .where(inArray(findings.runId, runIds))
      .groupBy(findings.runId);
    return new Map(rows.map((r) => [r.runId, r.n]));
  }

  async findings(runId: string): Promise<FindingRow[]> {
    await this.get(runId);
    return this.db.select().from(findings).where(eq(findings.runId, runId)).orderBy(asc(findings.ord));
  }
}

/** The verdict a doc shows: the latest run's, `stale` when that run read an older version. */
export function docVerdict(run: RunRow | undefined, currentNumber: number): Verdict | undefined {
  if (!run?.verdict) return undefined;
  const verdict = { ...(run.verdict as Verdict) };
  if (run.versionNumber !== currentNumber) verdict.result = "stale";
  return verdict;
}

/** A finding as a run stores it: the lint finding fields plus the stage that found it. */
export interface StoredFinding {
  id: string;
  check: string;
  level: string;
  category: string;
  message: string;
  anchor: Anchor;
  stage: string;
  relaxed: boolean;
}

/** Store a run's findings in the order given (document order); a repeated id keeps its first. */
export async function insertFindings(db: Db, runId: string, list: readonly StoredFinding[]): Promise<void> {
  const seen = new Set<string>();
  const rows = list
    .filter((f) => !seen.has(f.id) && seen.add(f.id))
    .map((f, ord) => ({
      runId,
      id: f.id,
      ord,
      checkSlug: f.check,
      level: f.level,
      category: f.category,
      message: f.message,
      anchor: f.anchor,
      stage: f.stage,
      relaxed: f.relaxed,
    }));
  for (let i = 0; i < rows.length; i += 500) await db.insert(findings).values(rows.slice(i, i + 500));
}
