/**
 * Full reviews (docs/review.md): start one (a queued run), run it (the worker calls
 * `execute`), and read what it produced: questions, claims, report, tour; fixes, the
 * diff summary and ad-hoc reviews of unsaved files.
 */
import { randomUUID } from "node:crypto";
import { and, asc, desc, eq, lt } from "drizzle-orm";
import { applyPatch, createPatch } from "diff";
import type { z } from "zod";
import type { Anchor } from "../../core/anchor/anchor.js";
import { lintBundle, type LintResult } from "../../core/lint/index.js";
import type { Finding } from "../../core/lint/types.js";
import { parseMarkdown, sectionAtChar, sectionTexts } from "../../core/markdown/document.js";
import {
  runReview,
  type AiFinding,
  type ClaimLabel,
  type ReviewEvent,
  type ReviewOutcome,
  type ReviewRoles,
} from "../../core/review/pipeline.js";
import { estimateReview } from "../../core/review/estimate.js";
import { SYSTEM, diffPrompt, fixPrompt, type ProfileBrief } from "../../core/review/prompts.js";
import { diffSummaryAnswer, fixAnswer } from "../../core/review/schemas.js";
import { ReviewError, StepRunner, type BudgetGate } from "../../core/review/steps.js";
import type { Profile } from "../../core/profile/schema.js";
import { computeVerdict, countBlockingThreads, type Verdict } from "../../core/verdict/index.js";
import { decodeText } from "../../core/lint/engine.js";
import type { Db } from "../db/index.js";
import {
  adhocReviews,
  buildQuestions,
  claims,
  docs,
  findingFixes,
  findings,
  reviewRuns,
  runs,
} from "../db/schema.js";
import type { Deps } from "../deps.js";
import { ApiError, NotFoundError } from "../errors.js";
import type { RoleName, RoleModel } from "../models/types.js";
import { readSettings } from "../settings.js";
import { insertFindings, type RunRow } from "../runs.js";
import { busFor, type RunBus } from "../jobs/bus.js";
import { EventWriter } from "../jobs/events.js";
import { DbStepCache } from "./cache.js";
import { loadReviewBundle, textFiles } from "./bundle.js";

export const ROLES: readonly RoleName[] = ["reviewer", "reader", "judge"];
/** How long POST /reviews keeps the files and result. */
export const ADHOC_TTL_DAYS = 90;

export type FindingLike = Pick<
  Finding,
  "id" | "check" | "level" | "category" | "message" | "anchor" | "relaxed"
> & {
  stage: string;
};

export function profileBrief(profile: Profile | undefined, key: string): ProfileBrief {
  return {
    key,
    title: profile?.title ?? key,
    radar: profile?.radar.map((r) => r.key) ?? [],
    readers: profile?.review.readers ?? 3,
    build_questions: profile?.review.build_questions ?? [],
    guidance: profile?.review.guidance ?? "",
  };
}

/** Lint findings and AI findings together, in document order (lint first at the same place). */
export function mergeFindings(lint: readonly Finding[], ai: readonly AiFinding[]): FindingLike[] {
  const all: Array<FindingLike & { k: number }> = [
    ...lint.map((f, i) => ({ ...f, stage: "lint", k: i })),
    ...ai.map((f, i) => ({ ...f, stage: f.stage, k: lint.length + i })),
  ];
  all.sort((a, b) => a.anchor.start - b.anchor.start || a.k - b.k);
  return all.map(({ k: _k, ...f }) => f);
}

function errorText(e: ReviewError | ApiError): string {
  return `${e.code}: ${e.message}`;
}

export class ReviewService {
  readonly bus: RunBus;

  constructor(private readonly deps: Deps) {
    this.bus = busFor(deps.db);
  }

  private get db(): Db {
    return this.deps.db;
  }

  private budgetGate(): BudgetGate {
    const { budget, clock } = this.deps;
    return {
      remaining: () => budget.remaining(clock.now()),
      record: (i, o) => budget.record(clock.now(), i, o),
    };
  }

  /** The models of the review roles; `model_not_configured` names the roles without one. */
  async roles(needed: readonly RoleName[] = ROLES): Promise<Record<RoleName, RoleModel>> {
    const found = await Promise.all(needed.map((r) => this.deps.models.forRole(r)));
    const missing = needed.filter((_, i) => !found[i]);
    if (missing.length > 0)
      throw new ApiError(
        "model_not_configured",
        `the ${missing.join(", ")} role${missing.length === 1 ? " has" : "s have"} no model; assign one with PUT /admin/roles/{role}`,
        { roles: missing },
      );
    return Object.fromEntries(needed.map((r, i) => [r, found[i]!])) as Record<RoleName, RoleModel>;
  }

  private async checkBudget(): Promise<void> {
    const left = await this.deps.budget.remaining(this.deps.clock.now());
    if (left !== undefined && left <= 0)
      throw new ApiError(
        "budget_exceeded",
        "this month's token budget is used up; raise it with PUT /admin/budget",
      );
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
      await this.finish(run, events, {
        status: "failed",
        error: `internal_error: ${err instanceof Error ? err.message : String(err)}`,
      });
    }
  }

  private async finish(
    run: RunRow,
    events: EventWriter,
    end: { status: "failed"; error: string; code?: string; verdict?: Verdict },
  ): Promise<void> {
    await this.db
      .update(runs)
      .set({
        status: end.status,
        stage: null,
        error: end.error,
        ...(end.verdict ? { verdict: end.verdict } : {}),
        finishedAt: this.deps.clock.now(),
      })
      .where(eq(runs.id, run.id));
    this.deps.runs.changed(run.bundleId, run.docId);
    events.emit("failed", { code: end.code ?? end.error.split(":")[0], error: end.error });
    await events.flush().catch(() => undefined);
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
    const bundleRow = await store.bundle(run.bundleId).catch(() => undefined);
    const files = await store.snapshot(run.versionId);

    // Stage 1: lint.
    events.emit("stage", { stage: "lint", status: "started" });
    let t = performance.now();
    const lint = lintBundle({ files, mainPath: doc.path, profiles: profiles.list() });
    const lintMs = round(performance.now() - t);
    events.emit("stage", {
      stage: "lint",
      status: "done",
      duration_ms: lintMs,
      findings: lint.findings.length,
    });
    const profile = profiles.get(lint.profile_key);
    const radar = profile?.radar.map((r) => r.key);
    const lintVerdict = computeVerdict({
      findings: lint.findings,
      blockingThreads: countBlockingThreads([]),
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
      slug: bundleRow?.bundle.slug ?? ".",
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
              .catch(() => undefined);
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
          events.emit("finding", findingEvent(run.id, e.finding));
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
      }
    };
    const brief = profileBrief(profile, lint.profile_key);
    await this.db.update(reviewRuns).set({ readers: brief.readers }).where(eq(reviewRuns.runId, run.id));
    const outcome = await runReview({
      bundle,
      profile: brief,
      roles: reviewRoles(roles),
      parallel: settings.parallel_calls,
      cache: new DbStepCache(this.db, clock),
      budget: this.budgetGate(),
      signal,
      now: () => performance.now(),
      onEvent,
    });
    if (outcome.error?.code === "cancelled" && signal.aborted) return this.requeue(run, events);

    t = performance.now();
    const merged = mergeFindings(lint.findings, outcome.findings);
    const done = outcome.status === "done";
    const verdict = done
      ? computeVerdict({
          findings: merged,
          blockingThreads: countBlockingThreads([]),
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
      ...outcome.stages.filter((s) => s.steps > 0 || s.name !== "judge" || done),
      ...(done ? [{ name: "verdict", duration_ms: verdictMs }] : []),
    ];
    await this.persist(run, lint, outcome, merged, {
      status: done ? "done" : "failed",
      verdict,
      stages,
      error: outcome.error ? errorText(outcome.error) : null,
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
    merged: FindingLike[],
    end: {
      status: "done" | "failed";
      verdict: Verdict;
      stages: Array<{ name: string; duration_ms: number }>;
      error: string | null;
    },
  ): Promise<void> {
    const { profiles, clock } = this.deps;
    await this.db.transaction(async (tx) => {
      await tx.delete(findings).where(eq(findings.runId, run.id));
      await tx.delete(buildQuestions).where(eq(buildQuestions.runId, run.id));
      await tx.delete(claims).where(eq(claims.runId, run.id));
      await insertFindings(tx, run.id, merged);
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
          error: end.error,
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

  // ----------------------------------------------------------------- reading

  async questions(runId: string) {
    await this.deps.runs.get(runId);
    const rows = await this.db
      .select()
      .from(buildQuestions)
      .where(eq(buildQuestions.runId, runId))
      .orderBy(asc(buildQuestions.number));
    return rows.map((q) => ({
      id: q.id,
      number: q.number,
      text: q.text,
      level: q.level,
      cites: q.cites,
      result: q.result,
      answers: q.answers,
      groups: q.groups,
    }));
  }

  async claims(runId: string) {
    await this.deps.runs.get(runId);
    const rows = await this.db.select().from(claims).where(eq(claims.runId, runId)).orderBy(asc(claims.ord));
    return rows.map((c) => ({
      id: c.id,
      text: c.text,
      label: c.label as ClaimLabel,
      explanation: c.explanation,
      ...(c.anchor ? { anchor: c.anchor } : {}),
      sources: c.sources,
    }));
  }

  async report(runId: string) {
    const run = await this.deps.runs.get(runId);
    const [usage] = await this.db.select().from(reviewRuns).where(eq(reviewRuns.runId, runId));
    const qs = await this.db
      .select({
        result: buildQuestions.result,
        groups: buildQuestions.groups,
        answers: buildQuestions.answers,
      })
      .from(buildQuestions)
      .where(eq(buildQuestions.runId, runId));
    const fs = await this.db
      .select({ category: findings.category, stage: findings.stage, level: findings.level })
      .from(findings)
      .where(eq(findings.runId, runId));
    const count = (r: string) => qs.filter((q) => q.result === r).length;
    const by = (key: "category" | "stage" | "level") => {
      const out: Record<string, number> = {};
      for (const f of fs) out[f[key]] = (out[f[key]] ?? 0) + 1;
      return out;
    };
    const answeredGroups = qs.map(
      (q) =>
        q.groups.filter((g) =>
          g.some((r) => (q.answers as Array<{ reader: number; answered: boolean }>)[r - 1]?.answered),
        ).length,
    );
    return {
      run_id: run.id,
      kind: run.kind,
      status: run.status,
      stages: run.stages,
      reader_diversity: {
        readers: usage?.readers ?? 0,
        questions: qs.length,
        divergent_questions: count("diverge"),
        agree: count("agree"),
        partial: count("partial"),
        unanswered: count("unanswered"),
        mean_groups: answeredGroups.length
          ? round(answeredGroups.reduce((a, b) => a + b, 0) / answeredGroups.length)
          : 0,
      },
      findings_by_category: by("category"),
      findings_by_stage: by("stage"),
      findings_by_level: by("level"),
      ...(usage
        ? {
            tokens_in: usage.tokensIn,
            tokens_out: usage.tokensOut,
            calls: usage.calls,
            cached_calls: usage.cachedCalls,
          }
        : {}),
      ...(run.error ? { error: run.error } : {}),
    };
  }

  /** Points of the doc's latest review that need a person: decide, then fix, in document order. */
  async tour(docId: string) {
    const { store, runs: runService } = this.deps;
    await store.refreshBundle(await store.bundleIdOfDoc(docId));
    await runService.settled(docId);
    await store.doc(docId);
    const run = (await runService.latestRuns([docId])).get(docId);
    type Point = {
      key: string;
      kind: "fix" | "decide" | "review" | "adopt";
      sentence: string;
      finding_id?: string;
      anchor?: Anchor;
    };
    const points: Point[] = [];
    if (run?.adopt && (run.adopt.type !== undefined || run.adopt.size !== undefined))
      points.push({
        key: "adopt",
        kind: "adopt",
        sentence: "Write the type and size the review guessed into the frontmatter.",
      });
    if (!run) return points;
    const rows = await this.db
      .select()
      .from(findings)
      .where(eq(findings.runId, run.id))
      .orderBy(asc(findings.ord));
    const decide: Point[] = [];
    const must: Point[] = [];
    const should: Point[] = [];
    for (const f of rows) {
      const anchor = f.anchor ?? undefined;
      const base = { key: `finding:${f.id}`, finding_id: f.id, ...(anchor ? { anchor } : {}) };
      if (f.checkSlug === "build-question" || f.checkSlug === "claim-contradicted")
        decide.push({
          ...base,
          kind: "decide",
          sentence: `Decide what the doc means and write it down. ${f.message}`,
        });
      else if (f.level === "MUST") must.push({ ...base, kind: "fix", sentence: `Fix (MUST): ${f.message}` });
      else if (f.level === "SHOULD")
        should.push({ ...base, kind: "fix", sentence: `Fix (SHOULD): ${f.message}` });
    }
    points.push(...decide, ...must, ...should);
    const verdict = run.verdict as Verdict | null;
    if (verdict?.kind === "lint" && !verdict.ai_run_id)
      points.push({
        key: "review",
        kind: "review",
        sentence: "Run a full review to find where readers would build different things.",
      });
    return points;
  }

  // ------------------------------------------------------------------- fixes

  private async findingOf(runId: string, findingId: string) {
    const run = await this.deps.runs.get(runId);
    const [f] = await this.db
      .select()
      .from(findings)
      .where(and(eq(findings.runId, runId), eq(findings.id, findingId)));
    if (!f) throw new NotFoundError("finding", findingId);
    return { run, f };
  }

  private runner(parallel = 1) {
    return new StepRunner({
      parallel,
      cache: new DbStepCache(this.db, this.deps.clock),
      budget: this.budgetGate(),
    });
  }

  private async step<S extends z.ZodType>(
    req: Parameters<StepRunner["run"]>[0] & { schema: S },
  ): Promise<z.output<S>> {
    await this.checkBudget();
    try {
      return (await this.runner().run(req)).value;
    } catch (err) {
      if (err instanceof ReviewError)
        throw new ApiError(err.code === "budget_exceeded" ? "budget_exceeded" : "model_failed", err.message);
      throw err;
    }
  }

  /** Ask the reviewer for a patch for one finding; the doc does not change. */
  async fix(runId: string, findingId: string) {
    const { run, f } = await this.findingOf(runId, findingId);
    const { reviewer } = await this.roles(["reviewer"]);
    const anchor = f.anchor ?? undefined;
    const [doc] = await this.db.select().from(docs).where(eq(docs.id, run.docId));
    const file = anchor?.file ?? doc!.path;
    const { bytes } = await this.deps.store.fileBytes(run.versionId, file);
    const text = decodeText(bytes).text;
    const md = parseMarkdown(text);
    const section = sectionAtChar(md, anchor ? md.index.charOf(anchor.start) : md.bodyCharStart);
    const sectionText = text.slice(
      section.index === 0 ? md.bodyCharStart : section.charStart,
      section.charEnd,
    );
    const schema = fixAnswer.superRefine((v, ctx) => {
      if (!text.includes(v.find))
        ctx.addIssue({ code: "custom", path: ["find"], message: "find is not verbatim text of the doc" });
      if (v.find === v.replace)
        ctx.addIssue({ code: "custom", path: ["replace"], message: "replace changes nothing" });
    });
    const answer = await this.step({
      stage: "fix",
      role: { client: reviewer.client, model: reviewer.model },
      system: SYSTEM.fix,
      prompt: fixPrompt(
        { level: f.level, message: f.message, quote: anchor?.quote ?? "" },
        file,
        sectionText,
      ),
      schemaName: "finding_fix",
      schema,
      expectedTokensOut: 400,
    });
    const within = text.indexOf(answer.find, section.charStart);
    const at = within >= 0 && within < section.charEnd ? within : text.indexOf(answer.find);
    const after = text.slice(0, at) + answer.replace + text.slice(at + answer.find.length);
    const patch = createPatch(file, text, after, `version ${run.versionNumber}`, "fixed");
    await this.db
      .insert(findingFixes)
      .values({
        runId,
        findingId,
        file,
        patch,
        explanation: answer.explanation,
        createdAt: this.deps.clock.now(),
      })
      .onConflictDoUpdate({
        target: [findingFixes.runId, findingFixes.findingId],
        set: { file, patch, explanation: answer.explanation, createdAt: this.deps.clock.now() },
      });
    return { finding_id: findingId, file, patch, explanation: answer.explanation, version_id: run.versionId };
  }

  /** Apply a finding's suggested patch on `base` as a new version. */
  async acceptFix(runId: string, findingId: string, base: string, author: string) {
    const { run, f } = await this.findingOf(runId, findingId);
    const [fix] = await this.db
      .select()
      .from(findingFixes)
      .where(and(eq(findingFixes.runId, runId), eq(findingFixes.findingId, findingId)));
    if (!fix)
      throw new ApiError("fix_not_suggested", `no fix was asked for finding ${findingId}; POST …/fix first`);
    const { store } = this.deps;
    const version = await store.resolveVersion(run.bundleId, base);
    const { bytes } = await store.fileBytes(version.id, fix.file).catch(() => {
      throw new ApiError("patch_conflict", `${fix.file} is not in version ${version.number}`);
    });
    const patched = applyPatch(decodeText(bytes).text, fix.patch);
    if (patched === false)
      throw new ApiError(
        "patch_conflict",
        `the patch for finding ${findingId} no longer applies to ${fix.file} at version ${version.number}; ask for a new fix`,
      );
    return store.write(
      run.docId,
      base,
      [{ path: fix.file, bytes: new TextEncoder().encode(patched) }],
      author,
      `Fix: ${f.message}`.slice(0, 200),
    );
  }

  // ------------------------------------------------------------ diff summary

  async diffSummary(docId: string, from: string, to: string | undefined) {
    const { store, runs: runService } = this.deps;
    const bundleId = await store.bundleIdOfDoc(docId);
    await store.refreshBundle(bundleId);
    const vFrom = await store.resolveVersion(bundleId, from);
    const vTo = await store.resolveVersion(bundleId, to);
    const { doc: d } = await store.doc(docId);
    const textAt = async (versionId: string) =>
      store.fileBytes(versionId, d.path).then(
        (r) => decodeText(r.bytes).text,
        () => "",
      );
    const [a, b] = await Promise.all([textAt(vFrom.id), textAt(vTo.id)]);
    const before = new Map(sectionTexts(parseMarkdown(a)).map((s) => [s.key, s.text]));
    const after = new Map(sectionTexts(parseMarkdown(b)).map((s) => [s.key, s.text]));
    const changes: Array<{ path: string; before: string; after: string }> = [];
    for (const key of new Set([...before.keys(), ...after.keys()])) {
      const x = before.get(key) ?? "";
      const y = after.get(key) ?? "";
      if (x.trim() !== y.trim()) changes.push({ path: key || "(top)", before: x.trim(), after: y.trim() });
    }
    let summary = "No section of the spec doc changed.";
    if (changes.length > 0) {
      const { reviewer } = await this.roles(["reviewer"]);
      summary = (
        await this.step({
          stage: "diff",
          role: { client: reviewer.client, model: reviewer.model },
          system: SYSTEM.diff,
          prompt: diffPrompt(changes),
          schemaName: "diff_summary",
          schema: diffSummaryAnswer,
          expectedTokensOut: 300,
        })
      ).summary;
    }
    await runService.lintVersion(bundleId, docId, vTo.id, vTo.number).catch(() => undefined);
    const latestOf = async (versionId: string) => {
      const [r] = await this.db
        .select({ id: runs.id })
        .from(runs)
        .where(and(eq(runs.docId, docId), eq(runs.versionId, versionId), eq(runs.status, "done")))
        .orderBy(desc(runs.createdAt))
        .limit(1);
      if (!r) return new Set<string>();
      const rows = await this.db.select({ id: findings.id }).from(findings).where(eq(findings.runId, r.id));
      return new Set(rows.map((x) => x.id));
    };
    const [fa, fb] = await Promise.all([latestOf(vFrom.id), latestOf(vTo.id)]);
    return {
      summary,
      sections_changed: changes.length,
      findings: { added: [...fb].filter((x) => !fa.has(x)), resolved: [...fa].filter((x) => !fb.has(x)) },
    };
  }

  // ---------------------------------------------------------- ad-hoc reviews

  async purgeExpired(): Promise<number> {
    const gone = await this.db
      .delete(adhocReviews)
      .where(lt(adhocReviews.expiresAt, this.deps.clock.now()))
      .returning({ id: adhocReviews.id });
    return gone.length;
  }

  /** Review files that are not saved; changes no bundle. */
  async adhoc(
    body: {
      files: Array<{ path: string; content: string; encoding?: "text" | "base64" }>;
      main_path?: string;
      full?: boolean;
    },
    by: string,
  ) {
    await this.purgeExpired();
    const { profiles, clock } = this.deps;
    const files = new Map<string, Uint8Array>();
    for (const f of body.files) {
      const path = f.path.replace(/^\.?\/+/, "");
      if (path === "" || path.split("/").includes("..") || path.includes("\0") || path.includes("\\"))
        throw new ApiError(
          "bad_path",
          `path ${JSON.stringify(f.path)} is not a relative path inside the bundle`,
        );
      if (files.has(path)) throw new ApiError("validation_failed", `the file ${path} is sent twice`);
      files.set(
        path,
        f.encoding === "base64"
          ? new Uint8Array(Buffer.from(f.content, "base64"))
          : new TextEncoder().encode(f.content),
      );
    }
    const markdown = [...files.keys()].filter((p) => /\.(md|markdown)$/i.test(p)).sort();
    const typed = markdown.filter((p) =>
      /^type\s*:/m.test(decodeText(files.get(p)!).text.split(/^---\s*$/m)[1] ?? ""),
    );
    const mainPath = body.main_path ?? (typed.length === 1 ? typed[0]! : markdown[0]);
    if (!mainPath || !files.has(mainPath))
      throw new ApiError(
        "validation_failed",
        "main_path names no file of the request, and no markdown file was found",
      );
    const id = randomUUID();
    const now = clock.now();
    const lint = lintBundle({ files, mainPath, profiles: profiles.list() });
    const profile = profiles.get(lint.profile_key);
    const radar = profile?.radar.map((r) => r.key);
    let outcome: ReviewOutcome | undefined;
    if (body.full) {
      const roles = await this.roles();
      await this.checkBudget();
      outcome = await runReview({
        bundle: { files: textFiles(files), mainPath, linked: [] },
        profile: profileBrief(profile, lint.profile_key),
        roles: reviewRoles(roles),
        parallel: (await readSettings(this.db)).parallel_calls,
        cache: new DbStepCache(this.db, clock),
        budget: this.budgetGate(),
        now: () => performance.now(),
      });
      if (outcome.status === "failed")
        throw new ApiError(
          outcome.error!.code === "budget_exceeded" ? "budget_exceeded" : "model_failed",
          outcome.error!.message,
        );
    }
    const merged = mergeFindings(lint.findings, outcome?.findings ?? []);
    const verdict = computeVerdict({
      findings: merged,
      kind: body.full ? "full" : "lint",
      runId: id,
      versionNumber: 0,
      radarCategories: radar,
      ...(body.full ? { aiRunId: id } : {}),
    });
    const expires = new Date(now.getTime() + ADHOC_TTL_DAYS * 86_400_000);
    const result = {
      id,
      main_path: mainPath,
      profile_key: lint.profile_key,
      verdict,
      findings: merged.map((f) => findingEvent(id, f)),
      ...(outcome
        ? {
            questions: outcome.questions.map((q) => ({
              id: q.id,
              number: q.number,
              text: q.text,
              level: q.level,
              cites: q.cites,
              result: q.result,
              answers: q.answers,
              groups: q.groups,
            })),
            claims: outcome.claims.map((c) => ({
              id: c.id,
              text: c.text,
              label: c.label,
              explanation: c.explanation,
              anchor: c.anchor,
              sources: c.sources,
            })),
            stages: outcome.stages,
          }
        : {}),
      report_url: `/api/v1/reviews/${id}/report`,
      created_at: now.toISOString(),
      expires_at: expires.toISOString(),
    };
    await this.db.insert(adhocReviews).values({
      id,
      mainPath,
      files: body.files.map((f) => ({ path: f.path, content: f.content, encoding: f.encoding ?? "text" })),
      result,
      createdBy: by,
      createdAt: now,
      expiresAt: expires,
    });
    return result;
  }

  async adhocResult(reviewId: string): Promise<AdhocResult> {
    await this.purgeExpired();
    const [row] = await this.db.select().from(adhocReviews).where(eq(adhocReviews.id, reviewId));
    if (!row) throw new NotFoundError("review", reviewId);
    return row.result as AdhocResult;
  }
}

export interface AdhocResult {
  id: string;
  main_path: string;
  profile_key: string;
  verdict: Verdict;
  findings: ReturnType<typeof findingEvent>[];
  questions?: Array<{
    number: number;
    text: string;
    level: string;
    result: string;
    groups: number[][];
    answers: Array<{ reader: number; answer: string; answered: boolean }>;
  }>;
  claims?: Array<{ text: string; label: string; explanation: string }>;
  report_url: string;
  created_at: string;
  expires_at: string;
}

function reviewRoles(roles: Record<RoleName, RoleModel>): ReviewRoles {
  return {
    reviewer: { client: roles.reviewer.client, model: roles.reviewer.model },
    reader: { client: roles.reader.client, model: roles.reader.model },
    judge: { client: roles.judge.client, model: roles.judge.model },
  };
}

/** A finding as the API shows it (the finding record of docs/findings.md). */
export function findingEvent(runId: string, f: FindingLike) {
  return {
    id: f.id,
    run_id: runId,
    check_slug: f.check,
    level: f.level,
    category: f.category,
    message: f.message,
    anchor: f.anchor,
    stage: f.stage,
    relaxed: f.relaxed,
  };
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
