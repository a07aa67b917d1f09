/**
 * Lint runs: every new version of a bundle (an API save or an edit on disk) is linted
 * in process with core/lint, and the run, its findings in document order and its
 * verdict are recorded. A save waits for its own run, so its answer carries the verdict.
 */
import { randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import { decodeInSlices, slices } from "./slices.js";
import { and, asc, desc, eq, gt, inArray, lt, or, sql } from "drizzle-orm";
import type { HeavyPool } from "./heavy/pool.js";
import { safeJson, safeText } from "../core/anchor/index.js";
import { computeVerdict } from "../core/verdict/index.js";
import type { Db } from "./db/index.js";
import { bundles, docs, findings, runs } from "./db/schema.js";
import type { Clock, Logger } from "./deps.js";
import { NotFoundError } from "./errors.js";
import { redactedMessage } from "./redact.js";
import type { ProfileRegistry } from "./profiles.js";
import type { BundleStore, VersionEvent, WritingEvent } from "./store/types.js";
import { aiCarry } from "./review/carry.js";
import type { Verdict } from "./schemas/common.js";
import type { Anchor } from "../core/anchor/anchor.js";
import {
  recordUpstream,
  runUpstreams,
  upstreamInsert,
  upstreamReads,
  type RunUpstream,
  type UpstreamCheck,
} from "./trace/upstream.js";
import type { LintResult } from "../core/lint/engine.js";
import { linkFindings } from "../core/trace/link-findings.js";

/** A run; `upstream` (from latestRuns) says which linked bundles it read and which moved on since. */
export type RunRow = typeof runs.$inferSelect & { upstream?: RunUpstream };
export type FindingRow = typeof findings.$inferSelect;

export const LINT_AUTHOR = "lint";

interface LintJob {
  bundleId: string;
  docId: string;
  versionId: string;
  versionNumber: number;
  /** The version is new: no run of it can exist yet. */
  fresh?: boolean;
  /** Path and bytes of the spec doc when the caller has them (a save). */
  mainPath?: string;
  mainBytes?: Uint8Array;
}

/** What the checks of a lint found (a throw here records a failed run). */
interface Checked {
  result: LintResult;
  /** Milliseconds the checks took. */
  duration: number;
}

/** What a lint reads besides the checks: the doc's text, and its links and threads. */
interface LintReads {
  mainText: string;
  upstream: UpstreamCheck;
}

/**
 * A lint started while a save writes its version (the store's `writing` event): the
 * checks and the reads of the new text, which need no version. The lint of the version
 * takes it when the version holds exactly these bytes at this path with these files.
 */
interface EarlyLint {
  mainPath: string;
  mainBytes: Uint8Array;
  paths: string;
  /** The doc's type as the version records it: the reads hold only if they saw the same. */
  profileKey: string;
  files: Map<string, Uint8Array>;
  checked: Promise<Checked>;
  reads: Promise<LintReads>;
  at: number;
}

/** Paths in one string, to compare a version's file list with a write's. */
function sortedPaths(paths: readonly string[]): string {
  return [...paths].sort().join("\n");
}

/** An early lint no version took (its write failed) is dropped after this long. */
const EARLY_TTL_MS = 60_000;

/**
 * Lint runs one at a time (they are CPU work on this thread), in two lanes: lints of new
 * versions (saves, edits on disk) go before bulk work (catch-up after a start, re-lint
 * after a profile change), so a save never queues behind hundreds of re-lints. Bulk work
 * also holds back briefly while requests read docs (`settled`), so reads during a large
 * re-lint answer about as fast as when idle. The early lint of a save (`EarlyLint`) runs
 * outside the lanes: it is the save's own work, done while its file is written.
 */
/** Bulk lints wait for reads to pause this long, holding back at most MAX_HOLD_MS each. */
const QUIET_MS = 10;
/** Findings read per statement (`findings`). */
const FINDINGS_PAGE = 500;
const MAX_HOLD_MS = 100;

class Lanes {
  private readonly urgent: Array<{ key: string; go: () => Promise<void> }> = [];
  private readonly bulk: Array<{ key: string; go: () => Promise<void> }> = [];
  private running = false;
  /** performance.now() of the last read of a doc (see `reading`). */
  private lastRead = -Infinity;

  /** A request reads a doc now: bulk work holds back a little so the read goes first. */
  reading(): void {
    this.lastRead = performance.now();
  }

  /** Before a bulk job: wait until reads pause for QUIET_MS, at most MAX_HOLD_MS. */
  private async quiet(): Promise<void> {
    const until = performance.now() + MAX_HOLD_MS;
    while (
      performance.now() - this.lastRead < QUIET_MS &&
      performance.now() < until &&
      this.urgent.length === 0
    )
      await new Promise((r) => setTimeout(r, QUIET_MS));
  }

  run<T>(key: string, urgent: boolean, fn: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      (urgent ? this.urgent : this.bulk).push({ key, go: () => fn().then(resolve, reject) });
      if (!this.running) void this.drain();
    });
  }

  /** Move a queued bulk job to the urgent lane (someone waits for it). */
  promote(key: string): void {
    const i = this.bulk.findIndex((j) => j.key === key);
    if (i >= 0) this.urgent.push(...this.bulk.splice(i, 1));
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      for (;;) {
        if (this.urgent.length === 0 && this.bulk.length > 0) await this.quiet();
        const next = this.urgent.shift() ?? this.bulk.shift();
        if (!next) return;
        await next.go();
        // Between bulk lints, let requests waiting on I/O run.
        if (this.urgent.length === 0) await new Promise((r) => setImmediate(r));
      }
    } finally {
      this.running = false;
    }
  }
}

/** What a version's sidecar excuses (server/waivers): waived finding ids, and notes for findings it names without counting. */
export interface WaiverHook {
  waivedFor(
    docId: string,
    versionId: string,
    mainPath: string,
    findings: ReadonlyArray<{ id: string; check: string; message: string; anchor: Anchor }>,
  ): Promise<{ waived: Set<string>; notes: Map<string, string> }>;
}

export class RunService {
  /** Approved waivers of a version stop counting in its verdict (set by the service graph). */
  waivers: WaiverHook | undefined;
  /** `run`: a run of the bundle finished (its verdict may have changed). */
  readonly events = new EventEmitter<{ run: [{ bundleId: string; docId: string }] }>();
  private readonly inflight = new Map<string, Promise<RunRow>>();
  /** Per doc: the lint of a version that has no run yet (what a read of the doc waits for). */
  private readonly firstLints = new Map<string, Promise<RunRow>>();
  private readonly lanes = new Lanes();
  /** Docs known to have no finished full review (their lint carries no AI findings); see `changed`. */
  private readonly noFullRun = new Set<string>();
  /** Per doc: the lint started on the bytes a save is writing (see `EarlyLint`). */
  private readonly early = new Map<string, EarlyLint>();
  private pending = 0;
  private idleWaiters: Array<() => void> = [];
  private readonly onWriting = (ev: WritingEvent) => {
    const now = performance.now();
    for (const [docId, e] of this.early) if (now - e.at > EARLY_TTL_MS) this.early.delete(docId);
    const files = new Map<string, Uint8Array>();
    const empty = new Uint8Array();
    for (const path of ev.paths) files.set(path, path === ev.mainPath ? ev.mainBytes : empty);
    const checked = this.tracked(() => this.check(files, ev.mainPath));
    const reads = this.tracked(async () => {
      await checked.catch(() => undefined); // the checks first: a save waits for them
      return this.reads(ev.docId, files, ev.mainPath);
    });
    // A failure here is not lost: the lint of the version finds it, does the work again and
    // records (or throws) what it meets then.
    checked.catch(() => undefined);
    reads.catch(() => undefined);
    this.early.set(ev.docId, {
      mainPath: ev.mainPath,
      mainBytes: ev.mainBytes,
      paths: sortedPaths(ev.paths),
      profileKey: ev.profileKey,
      files,
      checked,
      reads,
      at: now,
    });
  };
  private readonly onVersion = (ev: VersionEvent) => {
    this.lintVersion(ev.bundleId, ev.docId, ev.version.id, ev.version.number, {
      fresh: true,
      urgent: ev.bulk !== true,
      mainPath: ev.mainPath,
      ...(ev.mainBytes ? { mainBytes: ev.mainBytes } : {}),
    }).catch((err: unknown) => this.logger.error("lint run failed", { doc: ev.docId, error: String(err) }));
  };

  constructor(
    private readonly db: Db,
    private readonly store: BundleStore,
    private readonly profiles: ProfileRegistry,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly heavy: HeavyPool,
  ) {}

  /** Lint every new version from now on. */
  listen(): void {
    this.store.events.on("version", this.onVersion);
    this.store.events.on("writing", this.onWriting);
  }

  stop(): void {
    this.store.events.off("version", this.onVersion);
    this.store.events.off("writing", this.onWriting);
    this.early.clear();
  }

  /** Lint the current version of every doc whose run is missing or used an older profile (after a start). */
  async catchUp(): Promise<void> {
    const rows = await this.db
      .select({
        docId: docs.id,
        bundleId: bundles.id,
        versionId: bundles.headVersionId,
        number: bundles.headNumber,
        path: docs.path,
        linted: sql<boolean>`exists (select 1 from ${runs} where ${runs.versionId} = ${bundles.headVersionId} and ${runs.kind} = 'lint')`,
      })
      .from(docs)
      .innerJoin(bundles, eq(bundles.id, docs.bundleId))
      .where(sql`${bundles.headVersionId} is not null`);
    await Promise.all(
      rows.map((r) =>
        this.lintVersion(r.bundleId, r.docId, r.versionId!, r.number, { first: !r.linted, mainPath: r.path }),
      ),
    );
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
        path: docs.path,
      })
      .from(docs)
      .innerJoin(bundles, eq(bundles.id, docs.bundleId))
      .where(and(eq(docs.profileKey, profileKey), sql`${bundles.headVersionId} is not null`));
    await Promise.all(
      rows.map((r) => this.lintVersion(r.bundleId, r.docId, r.versionId!, r.number, { mainPath: r.path })),
    );
  }

  /** Resolves when no lint run is queued or running (shutdown, tests; never a request). */
  idle(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Resolves when the doc's current version has its first lint run, if one is queued or
   * running; never waits for the lints of other docs, nor for a re-lint of a version
   * that already has a run.
   */
  async settled(docId: string): Promise<void> {
    this.lanes.reading();
    const first = this.firstLints.get(docId);
    if (!first) return;
    const versionId = [...this.inflight].find(([, p]) => p === first)?.[0];
    if (versionId) this.lanes.promote(versionId);
    await first.catch(() => undefined);
  }

  /**
   * The lint run of a version: started once, shared by everyone who asks. `fresh`: the
   * version is new; `first`: it has no run yet, so reads of the doc wait for this one;
   * `urgent`: ahead of bulk lints (a save, an edit on disk).
   */
  lintVersion(
    bundleId: string,
    docId: string,
    versionId: string,
    versionNumber: number,
    opts: {
      fresh?: boolean;
      first?: boolean;
      urgent?: boolean;
      mainPath?: string;
      mainBytes?: Uint8Array;
    } = {},
  ): Promise<RunRow> {
    let run = this.inflight.get(versionId);
    if (run) return run;
    const first = opts.first ?? opts.fresh ?? false;
    const job: LintJob = { bundleId, docId, versionId, versionNumber, ...opts };
    run = this.tracked(() => this.lanes.run(versionId, opts.urgent === true, () => this.lint(job)))
      .then((row) => {
        this.events.emit("run", { bundleId, docId });
        return row;
      })
      .finally(() => {
        this.inflight.delete(versionId);
        if (this.firstLints.get(docId) === run) this.firstLints.delete(docId);
      });
    this.inflight.set(versionId, run);
    if (first) this.firstLints.set(docId, run);
    return run;
  }

  /** A full review of the doc finished on another instance (server/cluster-wire.ts). */
  forgetNoFullRun(docId: string): void {
    this.noFullRun.delete(docId);
  }

  /** Say that a run of the bundle finished (a full review), so views of its verdict refresh. */
  changed(bundleId: string, docId: string): void {
    this.noFullRun.delete(docId);
    this.events.emit("run", { bundleId, docId });
  }

  /** Count work that `idle()` waits for. */
  private tracked<T>(fn: () => Promise<T>): Promise<T> {
    this.pending++;
    return fn().finally(() => {
      if (--this.pending === 0) for (const w of this.idleWaiters.splice(0)) w();
    });
  }

  /**
   * What lint reads of a version: the spec doc's bytes and the names of the other files
   * (checks look at which files exist, never at their bytes).
   */
  private async lintInput(
    job: LintJob,
    mainPath: string,
  ): Promise<{ files: Map<string, Uint8Array>; early?: EarlyLint }> {
    const list = await this.store.manifest(job.versionId);
    // The lint the save started on these very bytes, when the version holds just them.
    const early = this.early.get(job.docId);
    if (
      early &&
      early.mainBytes === job.mainBytes &&
      early.mainPath === mainPath &&
      early.paths === sortedPaths(list.map((f) => f.path))
    ) {
      this.early.delete(job.docId);
      return { files: early.files, early };
    }
    const main = job.mainBytes ?? (await this.store.fileBytes(job.versionId, mainPath)).bytes;
    const empty = new Uint8Array();
    return { files: new Map(list.map((f) => [f.path, f.path === mainPath ? main : empty])) };
  }

  /** The profile's checks over the files (a large doc on a worker thread, off the request loop). */
  private async check(files: Map<string, Uint8Array>, mainPath: string): Promise<Checked> {
    const t0 = performance.now();
    const result = await this.heavy.run({
      kind: "lint",
      input: { files, mainPath, profiles: this.profiles.list() },
    });
    return { result, duration: Math.round((performance.now() - t0) * 1000) / 1000 };
  }

  /**
   * The doc's text, the versions of the linked bundles the run reads (upstream staleness,
   * docs/trace.md), frontmatter links that name no bundle, and its blocking threads. On a
   * doc of megabytes decoding takes tens of milliseconds, so it goes in slices.
   */
  private async reads(docId: string, files: Map<string, Uint8Array>, mainPath: string): Promise<LintReads> {
    const pause = slices();
    await pause();
    const mainText = (await decodeInSlices(files.get(mainPath) ?? new Uint8Array(), pause)).text;
    await pause();
    return { mainText, upstream: await upstreamReads(this.db, this.profiles, docId, mainText) };
  }

  private async lint(job: LintJob): Promise<RunRow> {
    const { bundleId, docId, versionId, versionNumber } = job;
    if (!job.fresh) {
      const [existing] = await this.db
        .select()
        .from(runs)
        .where(and(eq(runs.versionId, versionId), eq(runs.docId, docId), eq(runs.kind, "lint")))
        .orderBy(desc(runs.createdAt))
        .limit(1);
      // A run on this version is still good unless its profile has a newer text since.
      if (
        existing &&
        (existing.status !== "done" ||
          existing.profileVersion === this.profiles.versionOf(existing.profileKey))
      )
        return existing;
    }
    let mainPath = job.mainPath;
    let profileKey: string | undefined;
    if (mainPath === undefined) {
      const [doc] = await this.db
        .select({ path: docs.path, profileKey: docs.profileKey })
        .from(docs)
        .where(eq(docs.id, docId));
      if (!doc) throw new NotFoundError("doc", docId);
      mainPath = doc.path;
      profileKey = doc.profileKey;
    }
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
    let checked: Checked;
    let files: Map<string, Uint8Array>;
    let early: EarlyLint | undefined;
    try {
      ({ files, early } = await this.lintInput(job, mainPath));
      const mine = files;
      checked = early
        ? await early.checked.catch(() => this.check(mine, mainPath))
        : await this.check(files, mainPath);
    } catch (err) {
      if (profileKey === undefined) {
        const [doc] = await this.db
          .select({ profileKey: docs.profileKey })
          .from(docs)
          .where(eq(docs.id, docId));
        profileKey = doc?.profileKey ?? "";
      }
      const [row] = await this.db
        .insert(runs)
        .values({
          ...base,
          status: "failed",
          profileKey,
          error: `lint failed: ${redactedMessage(err)}`,
          finishedAt: this.clock.now(),
        })
        .returning();
      return row!;
    }
    const { result, duration } = checked;
    // What follows runs on the request loop: on a doc of megabytes each step (decoding the
    // text, reading its links, sorting and counting the findings) takes tens of
    // milliseconds, so the loop gets a turn between them once a slice is used.
    const pause = slices();
    await pause();
    const profile = this.profiles.get(result.profile_key);
    // The latest full review's AI findings keep counting (re-anchored), until the next one.
    const carry = this.noFullRun.has(docId)
      ? undefined
      : await aiCarry(this.db, this.store, docId, versionNumber, mainPath, files);
    if (!carry) this.noFullRun.add(docId);
    await pause();
    // The early reads hold when they saw the doc's type the version records.
    let read = early && (await early.reads.catch(() => undefined));
    if (!read || read.upstream.profileKey !== early?.profileKey)
      read = await this.reads(docId, files, mainPath);
    const { mainText } = read;
    const { reads, broken, blockingThreads } = read.upstream;
    await pause();
    const all = [
      ...result.findings.map((f) => ({ ...f, stage: "lint" })),
      ...linkFindings(mainText, mainPath, profile, broken),
      ...(carry?.findings ?? []),
    ];
    await pause();
    all.sort((a, b) => a.anchor.start - b.anchor.start);
    await pause();
    const excused = await this.waivers?.waivedFor(docId, versionId, mainPath, all);
    await pause();
    for (const f of all) {
      const note = excused?.notes.get(f.id);
      if (note) f.message = `${f.message} ${note}`;
    }
    const verdict = computeVerdict({
      findings: all,
      waived: excused?.waived,
      blockingThreads,
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
    await pause();
    const values = {
      ...base,
      status: "done",
      profileKey: result.profile_key,
      profileVersion: this.profiles.versionOf(result.profile_key) ?? null,
      verdict,
      adopt: result.adopt ?? null,
      stages: [{ name: "lint", duration_ms: duration }],
      finishedAt: this.clock.now(),
    };
    const kept = distinctFindings(all);
    // A run with one batch of findings (a save, nearly always) is written in one statement:
    // on the embedded database a transaction of four cost three times one statement.
    if (kept.length <= FINDINGS_BATCH) {
      const parts = [sql`run as (${this.db.insert(runs).values(values).getSQL()})`];
      if (kept.length > 0)
        parts.push(sql`found as (${this.db.insert(findings).values(findingRows(id, kept)).getSQL()})`);
      const upstream = upstreamInsert(this.db, id, reads);
      if (upstream) parts.push(sql`upstream as (${upstream.getSQL()})`);
      await this.db.execute(sql`with ${sql.join(parts, sql`, `)} select 1`);
      // What the insert wrote, as a read answers it (jsonb keeps JSON, not the objects).
      return {
        ...values,
        stage: null,
        error: null,
        verdict: JSON.parse(JSON.stringify(verdict)) as Verdict,
        adopt: values.adopt && (JSON.parse(JSON.stringify(values.adopt)) as typeof values.adopt),
      };
    }
    return this.db.transaction(async (tx) => {
      const [row] = await tx.insert(runs).values(values).returning();
      await insertFindings(tx, id, all);
      await recordUpstream(tx, id, reads);
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
    const upstream = await runUpstreams(
      this.db,
      rows.map((r) => r.id),
    );
    return new Map(rows.map((r) => [r.docId, { ...r, upstream: upstream.get(r.id) }]));
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

  /** The first finding of a run at `level`, in document order. */
  async firstFinding(runId: string, level: string): Promise<FindingRow | undefined> {
    const [row] = await this.db
      .select()
      .from(findings)
      .where(and(eq(findings.runId, runId), eq(findings.level, level)))
      .orderBy(asc(findings.ord))
      .limit(1);
    return row;
  }

  /**
   * A run's findings in document order. Read a page at a time, with a turn of the loop
   * between pages: a large doc has tens of thousands, and reading (and decoding) them in
   * one statement held the request loop for a second on the embedded database.
   */
  async findings(runId: string): Promise<FindingRow[]> {
    await this.get(runId);
    const out: FindingRow[] = [];
    for (;;) {
      const last = out.at(-1);
      if (last) await new Promise((resolve) => setImmediate(resolve));
      const page = await this.db
        .select()
        .from(findings)
        .where(and(eq(findings.runId, runId), last ? gt(findings.ord, last.ord) : undefined))
        .orderBy(asc(findings.ord))
        .limit(FINDINGS_PAGE);
      for (const row of page) out.push(row);
      if (page.length < FINDINGS_PAGE) return out;
    }
  }
}

/**
 * The verdict a doc shows: the latest run's, `stale` when that run read an older version
 * of the doc, or of a linked bundle (`stale_reason: upstream_changed`, docs/trace.md).
 */
export function docVerdict(run: RunRow | undefined, currentNumber: number): Verdict | undefined {
  if (!run?.verdict) return undefined;
  const verdict = { ...run.verdict };
  if (run.versionNumber !== currentNumber) verdict.result = "stale";
  const moved = run.upstream?.stale ?? [];
  if (moved.length > 0) {
    verdict.result = "stale";
    verdict.stale_reason = "upstream_changed";
    verdict.stale_upstream = moved;
  }
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

/** Findings stored per insert statement. */
const FINDINGS_BATCH = 100;

/** A run's findings in the order given (document order); a repeated id keeps its first. */
function distinctFindings(list: readonly StoredFinding[]): StoredFinding[] {
  const seen = new Set<string>();
  return list.filter((f) => !seen.has(f.id) && seen.add(f.id));
}

/** The rows of findings `from` onwards, numbered from `from` (made a batch at a time, just before its insert). */
function findingRows(
  runId: string,
  kept: readonly StoredFinding[],
  from = 0,
): Array<typeof findings.$inferInsert> {
  return kept.slice(from, from + FINDINGS_BATCH).map((f, j) => ({
    runId,
    id: f.id,
    ord: from + j,
    checkSlug: f.check,
    level: f.level,
    category: f.category,
    message: safeText(f.message),
    anchor: safeJson(f.anchor),
    stage: f.stage,
    relaxed: f.relaxed,
  }));
}

/** Store a run's findings in the order given (document order); a repeated id keeps its first. */
export async function insertFindings(db: Db, runId: string, list: readonly StoredFinding[]): Promise<void> {
  const kept = distinctFindings(list);
  // Small batches, each made just before its insert, and a turn of the event loop between
  // them: on the embedded database each insert runs on the request loop, and a large doc
  // has thousands of findings (making all their rows at once held the loop for 200 ms).
  for (let i = 0; i < kept.length; i += FINDINGS_BATCH) {
    if (i > 0) await new Promise((resolve) => setImmediate(resolve));
    await db.insert(findings).values(findingRows(runId, kept, i));
  }
}
