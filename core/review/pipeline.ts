/**
 * The full review's AI stages over one bundle (docs/review.md), each in its own file under
 * `stages/`:
 *
 *   questions (per section) -> readers (N per question) -> judge (per question)
 *   claims (per section; with grounding, each claim searched for web sources)
 *   findings (per section)
 *   external (per external target the caller read)
 *
 * Steps run as soon as what they need is there (a question's readers start when its
 * section's questions are back), at most `parallel` model calls at once.
 *
 * Degrade, do not die: an answer invalid twice loses only its item (a question becomes
 * `unjudged`, a section's claims or findings are lost) and the review goes on. The review
 * fails when the model cannot be reached after retries, the budget would be passed, the
 * run is cancelled (these stop every other step), or when a whole stage produced nothing
 * usable; the outcome keeps everything finished before.
 */
import { lfAnchorView } from "../anchor/anchor.js";
import { buildCorpus, type Corpus, type CorpusSection } from "./corpus.js";
import { ReviewError, StepRunner } from "./steps.js";
import { IdMaker, isLostAnswer, tolerant, type StageContext } from "./stages/context.js";
import { askQuestions } from "./stages/questions.js";
import { readQuestion } from "./stages/readers.js";
import { judgeQuestion, questionFinding } from "./stages/judge.js";
import { claimsOf } from "./stages/claims.js";
import { findingsOf } from "./stages/findings.js";
import { checkExternal } from "./stages/external.js";
import {
  AI_STAGES,
  type AiFinding,
  type AiStage,
  type BuildQuestion,
  type Claim,
  type LinkCheck,
  type ReviewEvent,
  type ReviewInput,
  type ReviewOutcome,
  type StageReport,
} from "./types.js";

export * from "./types.js";
export { questionCites } from "./stages/questions.js";
export { readerAnswerOf } from "./stages/readers.js";
export { judgedAnswers, resultOf } from "./stages/judge.js";

interface Progress {
  done: number;
  total: number;
  cached: number;
  start?: number;
  end?: number;
}

export async function runReview(input: ReviewInput): Promise<ReviewOutcome> {
  const corpus = buildCorpus(input.bundle);
  const t0 = input.now();
  const progress = new Map<AiStage, Progress>(AI_STAGES.map((s) => [s, { done: 0, total: 0, cached: 0 }]));
  const emit = (e: ReviewEvent) => input.onEvent?.(e);
  const runner = new StepRunner({
    ...input,
    onStep: ({ stage, cached }) => {
      const pr = progress.get(stage as AiStage)!;
      pr.done++;
      if (cached) pr.cached++;
      pr.end = input.now() - t0;
      emit({ type: "stage", stage: stage as AiStage, done: pr.done, total: pr.total, cached: pr.cached });
    },
  });
  const questions: Array<{ section: number; order: number; q: BuildQuestion }> = [];
  const claims: Array<{ section: number; order: number; claim: Claim }> = [];
  const findings: AiFinding[] = [];
  const firstLost = new Map<AiStage, ReviewError>();
  let failure: ReviewError | undefined;
  const fail = (err: unknown) => {
    const e =
      err instanceof ReviewError
        ? err
        : new ReviewError("model_call_failed", err instanceof Error ? err.message : String(err));
    if (!failure || (failure.code === "cancelled" && e.code !== "cancelled")) failure = e;
    runner.abort();
  };

  const ctx: StageContext = {
    corpus,
    profile: input.profile,
    readers: Math.max(1, input.profile.readers),
    roles: input.roles,
    runner,
    ids: idsFor(corpus),
    ...(input.grounding ? { grounding: input.grounding } : {}),
    plan: (stage, n) => {
      const pr = progress.get(stage)!;
      pr.total += n;
      pr.start ??= input.now() - t0;
    },
    emit,
    addFinding: (f) => {
      findings.push(f);
      emit({ type: "finding", finding: f });
    },
    lose: (stage, err) => {
      if (!isLostAnswer(err)) throw err;
      if (!firstLost.has(stage)) firstLost.set(stage, err);
    },
  };

  const sections = corpus.mainSections;
  ctx.plan("questions", sections.length);
  ctx.plan("claims", sections.length);
  ctx.plan("findings", sections.length);

  async function questionsOf(s: CorpusSection, si: number): Promise<void> {
    const asked = await tolerant(ctx, "questions", () => askQuestions(ctx, s));
    if (!asked) return;
    ctx.plan("readers", asked.length * ctx.readers);
    // Judged concurrently: a finding's order among equal anchors comes from the list asked.
    const seen = new Map<string, number>();
    const nth = asked.map(({ anchor }) => {
      const k = ctx.ids.key("build-question", anchor).join("\u0000");
      const n = seen.get(k) ?? 0;
      seen.set(k, n + 1);
      return n;
    });
    await Promise.all(
      asked.map(async ({ q, anchor, citedKeys, quote }, order) => {
        await judgeQuestion(ctx, q, await readQuestion(ctx, q, citedKeys, quote));
        questions.push({ section: si, order, q });
        const f = questionFinding(ctx, q, anchor, nth[order]!);
        if (f) {
          q.finding_id = f.id;
          ctx.addFinding(f);
        }
        emit({ type: "question", question: q });
      }),
    );
  }

  const tasks: Promise<void>[] = [];
  sections.forEach((s, si) => {
    tasks.push(questionsOf(s, si).catch(fail));
    tasks.push(
      tolerant(ctx, "claims", () => claimsOf(ctx, s))
        .then((list) => list?.forEach((claim, order) => claims.push({ section: si, order, claim })))
        .catch(fail),
    );
    tasks.push(tolerant(ctx, "findings", () => findingsOf(ctx, s)).catch(fail));
  });
  const external = input.external ?? [];
  const links: Array<LinkCheck | undefined> = external.map(() => undefined);
  ctx.plan("external", external.filter((x) => x.text !== undefined).length);
  external.forEach((target, i) =>
    tasks.push(
      checkExternal(ctx, target)
        .then((check) => void (links[i] = check))
        .catch(fail),
    ),
  );
  await Promise.all(tasks);

  // A whole stage that produced nothing usable fails the run, naming its first error.
  if (!failure)
    for (const stage of AI_STAGES) {
      const lost = firstLost.get(stage);
      if (lost && progress.get(stage)!.done === 0) {
        const n = runner.stageAnswers(stage).lost;
        failure = new ReviewError(
          "model_output_invalid",
          `${stage}: no answer of this stage was usable (${n} lost); the first error: ${lost.message}`,
          stage,
        );
        break;
      }
    }

  questions.sort((a, b) => a.section - b.section || a.order - b.order);
  questions.forEach((x, i) => (x.q.number = i + 1));
  claims.sort((a, b) => a.section - b.section || a.order - b.order);
  const order: Record<AiStage, number> = {
    questions: 0,
    readers: 1,
    judge: 2,
    claims: 3,
    findings: 4,
    external: 5,
  };
  findings.sort(
    (a, b) =>
      a.anchor.start - b.anchor.start || order[a.stage] - order[b.stage] || a.anchor.end - b.anchor.end,
  );
  // The external stage is reported only for a doc that has external targets to check.
  const reported = AI_STAGES.filter((name) => name !== "external" || progress.get(name)!.total > 0);
  const stages: StageReport[] = reported.map((name) => {
    const pr = progress.get(name)!;
    return {
      name,
      started_ms: round(pr.start ?? 0),
      duration_ms: round(Math.max(0, (pr.end ?? pr.start ?? 0) - (pr.start ?? 0))),
      steps: pr.done,
      cached: pr.cached,
      ...runner.stageAnswers(name),
    };
  });
  return {
    status: failure ? "failed" : "done",
    ...(failure ? { error: failure } : {}),
    questions: questions.map((x) => x.q),
    claims: claims.map((x) => x.claim),
    findings,
    links: links.filter((l): l is LinkCheck => l !== undefined),
    stages,
    usage: { ...runner.usage },
    repairs: Object.fromEntries(runner.repairs),
  };
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/** Ids of the review's findings: the main doc's anchors read with CRLF as LF (lfAnchorView). */
function idsFor(corpus: Corpus): IdMaker {
  const asLf = lfAnchorView(corpus.main);
  return new IdMaker(asLf ? (a) => (a.file === corpus.mainPath ? asLf(a) : a) : undefined);
}
