/** Run execution of full reviews (docs/review.md). */
import { recordUpstream, upstreamReads, type UpstreamRead } from "../trace/upstream.js";
import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { lintBundle, type LintResult } from "../../core/lint/index.js";
import { runReview, type ReviewEvent, type ReviewOutcome } from "../../core/review/pipeline.js";
import { estimateReview } from "../../core/review/estimate.js";
import { computeVerdict, countBlockingThreads, type Verdict } from "../../core/verdict/index.js";
import { blockingThreadsOf } from "../threads/blocking.js";
import { buildQuestions, claims, docs, findings, reviewRuns, runs } from "../db/schema.js";
import type { Deps } from "../deps.js";
import { ApiError, NotFoundError } from "../errors.js";
import type { RoleName, RoleModel } from "../models/types.js";
import { readSettings } from "../settings.js";
import { insertFindings, type RunRow } from "../runs.js";
import type { RunBus } from "../jobs/bus.js";
import { EventWriter } from "../jobs/events.js";
import { DbStepCache } from "./cache.js";
import { redact } from "../redact.js";
import { loadReviewBundle } from "./bundle.js";
import { openRunTools } from "../mcp/run-tools.js";
import { parseFrontmatter } from "../../core/markdown/frontmatter.js";
import { externalTargets } from "../../core/trace/links.js";
import { saveLinkChecks } from "../mcp/link-checks.js";
import {
  ReviewBase,
  ROLES,
  profileBrief,
  mergeFindings,
  errorText,
  retryOf,
  reviewRoles,
  round,
} from "./common.js";
import { findingApi, type RunFinding } from "../findings.js";

/** Full runs: queue one, estimate one, run one to its end (the worker calls `execute`). */
export class RunExecution extends ReviewBase {
  constructor(
    deps: Deps,
    readonly bus: RunBus,
  ) {
    super(deps);
  }

  // ------------------------------------------------------------------ starting

  /** Queue a full review of the doc's current version. */
  async start(docId: string, by: string): Promise<RunRow> {
    const { store, clock } = this.deps;
    await store.refreshBundle(await store.bundleIdOfDoc(docId));
    const { bundle: b, doc: d, head: v } = await store.doc(docId);
    await this.roles();
    await this.checkBudget();
    const profile = this.deps.profiles.get(d.profileKey);
    const id = randomUUID();
    const now = clock.now();
    const row = await this.db.transaction(async (tx) => {
      const [run] = await tx
        .insert(runs)
        .values({
          id,
          docId,
          bundleId: b.id,
          versionId: v.id,
          versionNumber: v.number,
          kind: "full",
          status: "queued",
          profileKey: d.profileKey,
          profileVersion: this.deps.profiles.versionOf(d.profileKey) ?? null,
          createdBy: by,
          createdAt: now,
        })
        .returning();
      await tx.insert(reviewRuns).values({ runId: id, readers: profile?.review.readers ?? 3 });
      return run!;
    });
    const ev = new EventWriter(this.db, this.bus, clock, id);
    ev.emit("queued", { run_id: id, version_number: v.number });
    await ev.flush();
    this.bus.queued();
    return row;
  }

  /** What a full review of the current version would cost. */
  async estimate(docId: string) {
    const { store } = this.deps;
    await store.refreshBundle(await store.bundleIdOfDoc(docId));
    const { bundle: b, doc: d, head: v } = await store.doc(docId);
    const files = await store.snapshot(v.id);
    const bundle = await loadReviewBundle(this.db, store, {
      bundleId: b.id,
      slug: b.slug,
      mainPath: d.path,
      files,
    });
    const roles = await Promise.all(ROLES.map((r) => this.deps.models.forRole(r)));
    const [reviewer, reader, judge] = roles;
    const est = await estimateReview({
      bundle,
      profile: profileBrief(this.deps.profiles.get(d.profileKey), d.profileKey),
      models: { reviewer: reviewer?.model ?? "", reader: reader?.model ?? "", judge: judge?.model ?? "" },
      cache: new DbStepCache(this.db, this.deps.clock),
      externalUrls: externalTargets(
        parseFrontmatter(bundle.files.find((f) => f.path === bundle.mainPath)?.text ?? "").data,
      ).map((t) => t.url),
    });
    const priced = roles.every((r) => r?.priceInPerMTok !== undefined && r.priceOutPerMTok !== undefined);
    let cost = 0;
    ROLES.forEach((name, i) => {
      const r = roles[i];
      const t = est.byRole[name];
      if (r?.priceInPerMTok !== undefined) cost += (t.tokensIn * r.priceInPerMTok) / 1e6;
      if (r?.priceOutPerMTok !== undefined) cost += (t.tokensOut * r.priceOutPerMTok) / 1e6;
    });
    return {
      calls: est.calls,
      cached_steps: est.cached_steps,
      tokens_in: est.tokens_in,
      tokens_out: est.tokens_out,
      ...(priced ? { cost_usd: Math.round(cost * 1e6) / 1e6 } : {}),
      priced,
    };
  }

  // ----------------------------------------------------------------- running

  /** Run a claimed full run to its end (the worker's job). Never leaves it `running`. */
  async execute(run: RunRow, signal: AbortSignal, events: EventWriter): Promise<void> {
    try {
      await this.executeInner(run, signal, events);
    } catch (err) {
      this.deps.logger.error("review run failed", {
        run: run.id,
        error: err instanceof Error ? (err.stack ?? err.message) : String(err),
      });
      // A domain error keeps its code (the bundle was deleted meanwhile: not_found).
      const code = err instanceof ApiError ? err.code : "internal_error";
      await this.finish(run, events, {
        status: "failed",
        error: `${code}: ${err instanceof Error ? err.message : String(err)}`,
        code,
      });
    }
  }

  private async finish(
    run: RunRow,
    events: EventWriter,
    end: { status: "failed"; error: string; code: string; verdict?: Verdict },
  ): Promise<void> {
    await this.db
      .update(runs)
      .set({
        status: end.status,
        stage: null,
        error: redact(end.error),
        ...(end.verdict ? { verdict: end.verdict } : {}),
        finishedAt: this.deps.clock.now(),
      })
      .where(eq(runs.id, run.id));
    this.deps.runs.changed(run.bundleId, run.docId);
    events.emit("failed", { code: end.code, error: end.error });
    // The run row says it failed already; a lost event is logged, not thrown over that.
    await events
      .flush()
      .catch((err: unknown) =>
        this.deps.logger.error("writing a run's failed event failed", { run: run.id, error: String(err) }),
      );
  }

  private async requeue(run: RunRow, events: EventWriter): Promise<void> {
    await this.db.update(runs).set({ status: "queued", stage: null }).where(eq(runs.id, run.id));
    events.emit("requeued", { reason: "the server is stopping" });
    await events.flush();
  }

  private async executeInner(run: RunRow, signal: AbortSignal, events: EventWriter): Promise<void> {
    const { store, profiles, clock } = this.deps;
    const [doc] = await this.db.select().from(docs).where(eq(docs.id, run.docId));
    if (!doc) throw new NotFoundError("doc", run.docId);
    const bundleRow = await store.bundle(run.bundleId);
    const files = await store.snapshot(run.versionId);
    // The versions of the linked bundles this run reads (upstream staleness, docs/trace.md).
    const { reads } = await upstreamReads(
      this.db,
      profiles,
      run.docId,
      files.get(doc.path) ?? new Uint8Array(),
    );

    // Stage 1: lint.
    events.emit("stage", { stage: "lint", status: "started" });
    let t = performance.now();
    // A doc that names no type is linted as the type it was found as (the repository's config).
    const lint = lintBundle({ files, mainPath: doc.path, profiles: profiles.list(), type: doc.profileKey });
    const lintMs = round(performance.now() - t);
    events.emit("stage", {
      stage: "lint",
      status: "done",
      duration_ms: lintMs,
      findings: lint.findings.length,
    });
    const profile = profiles.get(lint.profile_key);
    const radar = profile?.radar.map((r) => r.key);
    // Waivers the version's sidecar carries, approved through the service (server/waivers).
    const excusedLint = await this.deps.runs.waivers?.waivedFor(
      run.docId,
      run.versionId,
      doc.path,
      lint.findings,
    );
    const lintVerdict = computeVerdict({
      findings: lint.findings,
      waived: excusedLint?.waived,
      blockingThreads: countBlockingThreads(await blockingThreadsOf(this.db, run.docId)),
      kind: "lint",
      runId: run.id,
      versionNumber: run.versionNumber,
      radarCategories: radar,
    });
    if (signal.aborted) return this.requeue(run, events);

    let roles: Record<RoleName, RoleModel>;
    try {
      roles = await this.roles();
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return this.finish(run, events, {
        status: "failed",
        error: errorText(err),
        code: err.code,
        verdict: lintVerdict,
      });
    }
    const settings = await readSettings(this.db);
    const bundle = await loadReviewBundle(this.db, store, {
      bundleId: run.bundleId,
      slug: bundleRow.bundle.slug,
      mainPath: doc.path,
      files,
    });
    const stagesSeen = new Set<string>();
    const onEvent = (e: ReviewEvent) => {
      switch (e.type) {
        case "stage":
          if (!stagesSeen.has(e.stage)) {
            stagesSeen.add(e.stage);
            this.db
              .update(runs)
              .set({ stage: e.stage })
              .where(and(eq(runs.id, run.id), eq(runs.status, "running")))
              .catch((err: unknown) =>
                this.deps.logger.warn("recording a run's stage failed", { run: run.id, error: String(err) }),
              );
          }
          events.emit("stage", {
            stage: e.stage,
            status: "progress",
            done: e.done,
            total: e.total,
            cached: e.cached,
          });
          break;
        case "finding":
          events.emit("finding", findingApi(run.id, e.finding));
          break;
        case "question":
          events.emit("question", {
            id: e.question.id,
            text: e.question.text,
            level: e.question.level,
            result: e.question.result,
          });
          break;
        case "claim":
          events.emit("claim", { id: e.claim.id, text: e.claim.text, label: e.claim.label });
          break;
        case "link":
          events.emit("link", {
            target_url: e.link.url,
            state: e.link.state,
            state_reason: e.link.state_reason,
          });
          break;
      }
    };
    const brief = profileBrief(profile, lint.profile_key);
    await this.db.update(reviewRuns).set({ readers: brief.readers }).where(eq(reviewRuns.runId, run.id));
    // External targets (read once each) and grounding for claims, through MCP connections.
    const outside = await openRunTools({
      mcp: this.deps.mcp,
      clock,
      logger: this.deps.logger,
      mainText: bundle.files.find((f) => f.path === bundle.mainPath)?.text ?? "",
      resolveSources: settings.resolve_sources,
      signal,
    });
    let outcome: ReviewOutcome;
    try {
      outcome = await runReview({
        bundle,
        profile: brief,
        roles: reviewRoles(roles),
        parallel: settings.parallel_calls,
        ...retryOf(this.deps.models),
        cache: new DbStepCache(this.db, clock),
        budget: this.budgetGate(),
        signal,
        now: () => performance.now(),
        onEvent,
        external: outside.external,
        ...(outside.grounding ? { grounding: outside.grounding } : {}),
      });
    } finally {
      await outside.close();
    }
    if (outcome.error?.code === "cancelled" && signal.aborted) return this.requeue(run, events);
    await saveLinkChecks(this.db, run, outcome.links, clock.now());

    t = performance.now();
    const merged = mergeFindings(lint.findings, outcome.findings);
    const excused = await this.deps.runs.waivers?.waivedFor(run.docId, run.versionId, doc.path, merged);
    for (const f of merged) {
      const note = excused?.notes.get(f.id);
      if (note) f.message = `${f.message} ${note}`;
    }
    const done = outcome.status === "done";
    const verdict = done
      ? computeVerdict({
          findings: merged,
          waived: excused?.waived,
          blockingThreads: countBlockingThreads(await blockingThreadsOf(this.db, run.docId)),
          kind: "full",
          runId: run.id,
          versionNumber: run.versionNumber,
          radarCategories: radar,
          aiRunId: run.id,
        })
      : lintVerdict;
    const verdictMs = round(performance.now() - t);
    for (const s of outcome.stages)
      events.emit("stage", {
        stage: s.name,
        status: "done",
        duration_ms: s.duration_ms,
        done: s.steps,
        cached: s.cached,
      });
    const stages = [
      { name: "lint", duration_ms: lintMs },
      ...outcome.stages
        .filter((s) => s.steps > 0 || s.lost > 0 || s.name !== "judge" || done)
        .map((s) => {
          const notes = outcome.repairs[s.name]?.slice(0, 5) ?? [];
          return notes.length > 0 ? { ...s, repair_notes: notes } : s;
        }),
      ...(done ? [{ name: "verdict", duration_ms: verdictMs }] : []),
    ];
    await this.persist(run, lint, outcome, merged, {
      status: done ? "done" : "failed",
      verdict,
      stages,
      error: outcome.error ? errorText(outcome.error) : null,
      reads,
    });
    if (done)
      events.emit("done", {
        verdict,
        findings: merged.length,
        questions: outcome.questions.length,
        claims: outcome.claims.length,
      });
    else
      events.emit("failed", {
        code: outcome.error!.code,
        stage: outcome.error!.stage,
        error: errorText(outcome.error!),
      });
    await events.flush();
  }

  private async persist(
    run: RunRow,
    lint: LintResult,
    outcome: ReviewOutcome,
    merged: RunFinding[],
    end: {
      status: "done" | "failed";
      verdict: Verdict;
      stages: Array<{ name: string; duration_ms: number }>;
      error: string | null;
      reads: readonly UpstreamRead[];
    },
  ): Promise<void> {
    const { profiles, clock } = this.deps;
    await this.db.transaction(async (tx) => {
      await tx.delete(findings).where(eq(findings.runId, run.id));
      await tx.delete(buildQuestions).where(eq(buildQuestions.runId, run.id));
      await tx.delete(claims).where(eq(claims.runId, run.id));
      await insertFindings(tx, run.id, merged);
      await recordUpstream(tx, run.id, end.reads);
      const qs = outcome.questions.map((q) => ({
        runId: run.id,
        id: q.id,
        number: q.number,
        text: q.text,
        level: q.level,
        category: q.category,
        cites: q.cites,
        result: q.result,
        answers: q.answers,
        groups: q.groups,
        agreedAnswer: q.agreed_answer ?? null,
        findingId: q.finding_id ?? null,
      }));
      const seenQ = new Set<string>();
      const uq = qs.filter((q) => !seenQ.has(q.id) && seenQ.add(q.id));
      for (let i = 0; i < uq.length; i += 200) await tx.insert(buildQuestions).values(uq.slice(i, i + 200));
      const seenC = new Set<string>();
      const cs = outcome.claims
        .filter((c) => !seenC.has(c.id) && seenC.add(c.id))
        .map((c, ord) => ({
          runId: run.id,
          id: c.id,
          ord,
          text: c.text,
          label: c.label,
          explanation: c.explanation,
          anchor: c.anchor,
          sources: c.sources,
        }));
      for (let i = 0; i < cs.length; i += 200) await tx.insert(claims).values(cs.slice(i, i + 200));
      await tx
        .update(reviewRuns)
        .set({
          calls: outcome.usage.steps,
          cachedCalls: outcome.usage.cached,
          tokensIn: outcome.usage.tokensIn,
          tokensOut: outcome.usage.tokensOut,
        })
        .where(eq(reviewRuns.runId, run.id));
      await tx
        .update(runs)
        .set({
          status: end.status,
          stage: null,
          error: end.error === null ? null : redact(end.error),
          verdict: end.verdict,
          stages: end.stages,
          profileKey: lint.profile_key,
          profileVersion: profiles.versionOf(lint.profile_key) ?? null,
          adopt: lint.adopt ?? null,
          finishedAt: clock.now(),
        })
        .where(eq(runs.id, run.id));
    });
    this.deps.runs.changed(run.bundleId, run.docId);
  }
}
