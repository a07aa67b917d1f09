/** What a full run produced, as the API reads it: questions, claims, report, tour. */
import { and, asc, eq } from "drizzle-orm";
import type { Anchor } from "../../core/anchor/anchor.js";
import type { ClaimLabel } from "../../core/review/pipeline.js";
import { buildQuestions, claims, findings, reviewRuns } from "../db/schema.js";
import { ReviewBase, questionApi, round } from "./common.js";
import { redact } from "../redact.js";

export class ReviewReads extends ReviewBase {
  // ----------------------------------------------------------------- reading

  async questions(runId: string) {
    await this.deps.runs.get(runId);
    const rows = await this.db
      .select()
      .from(buildQuestions)
      .where(eq(buildQuestions.runId, runId))
      .orderBy(asc(buildQuestions.number));
    return rows.map(questionApi);
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
    const answeredGroups = qs
      .filter((q) => q.result !== "unjudged")
      .map(
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
        unjudged: count("unjudged"),
        mean_groups: answeredGroups.length
          ? round(answeredGroups.reduce((a, b) => a + b, 0) / answeredGroups.length)
          : 0,
      },
      answers_by_stage: answersByStage(run.stages),
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
      ...(run.error ? { error: redact(run.error) } : {}),
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
    const unjudged = new Set(
      (
        await this.db
          .select({ findingId: buildQuestions.findingId })
          .from(buildQuestions)
          .where(and(eq(buildQuestions.runId, run.id), eq(buildQuestions.result, "unjudged")))
      ).map((q) => q.findingId),
    );
    const decide: Point[] = [];
    const must: Point[] = [];
    const should: Point[] = [];
    for (const f of rows) {
      const anchor = f.anchor ?? undefined;
      const base = { key: `finding:${f.id}`, finding_id: f.id, ...(anchor ? { anchor } : {}) };
      if (unjudged.has(f.id))
        decide.push({
          ...base,
          kind: "decide",
          sentence: `Needs a person: the review could not judge this ${f.level} question; read the doc and decide whether it answers it. ${f.message}`,
        });
      else if (f.checkSlug === "build-question" || f.checkSlug === "claim-contradicted")
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
    const verdict = run.verdict;
    if (verdict?.kind === "lint" && !verdict.ai_run_id)
      points.push({
        key: "review",
        kind: "review",
        sentence: "Run a full review to find where readers would build different things.",
      });
    return points;
  }
}

/** Per AI stage: model calls, and answers repaired, retried, dropped and lost (docs/review.md). */
export function answersByStage(stages: ReadonlyArray<Record<string, unknown>>) {
  const out: Record<
    string,
    { calls: number; repaired: number; retried: number; dropped: number; lost: number }
  > = {};
  const n = (v: unknown) => (typeof v === "number" ? v : 0);
  for (const s of stages)
    if (typeof s["calls"] === "number")
      out[String(s["name"])] = {
        calls: n(s["calls"]),
        repaired: n(s["repaired"]),
        retried: n(s["retried"]),
        dropped: n(s["dropped"]),
        lost: n(s["lost"]),
      };
  return out;
}
