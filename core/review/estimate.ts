/**
 * What a full review would cost before it starts: the same prompts the pipeline builds,
 * looked up in the step cache. Where the cache holds a section's questions, the readers'
 * prompts are known exactly (and looked up in turn); where it does not, a section is
 * assumed to raise one question per requirement it states, or, stating none, as many as
 * the reviewer model's past answers did on average (ASSUMED_QUESTIONS when it has none),
 * each read by every reader and judged once.
 * Answer sizes are the role model's mean answer size per stage in the step cache, or the
 * stage's EXPECTED_TOKENS_OUT when the model has answered nothing yet; a prompt that can
 * only be guessed (a question not asked yet) costs the model's mean prompt size of that stage.
 * Each external target the main doc links to is one reviewer call (stage 6): its text is
 * read only when the run starts, so it is assumed as long as the doc, within the stage's cut.
 */
import { buildCorpus, contextFor, sectionLabel, type ReviewBundle } from "./corpus.js";
import { EXTERNAL_SYSTEM, externalPrompt } from "./stages/external.js";
import {
  EXPECTED_TOKENS_OUT,
  judgedAnswers,
  questionCites,
  readerAnswerOf,
  type AiStage,
} from "./pipeline.js";
import {
  SYSTEM,
  claimsPrompt,
  findingsPrompt,
  judgePrompt,
  questionsPrompt,
  readerPrompt,
  type ProfileBrief,
} from "./prompts.js";
import { MAX_ITEMS, judgeAnswer, questionsAnswer, readerAnswer } from "./schemas.js";
import { estimateTokens, stepKey, validateAnswer, type StageHistory, type StepCache } from "./steps.js";

export const ASSUMED_QUESTIONS = 3;

/** A list item, or a line that states a requirement (an RFC 2119 keyword or a trace ID). */
const REQUIREMENT_LINE =
  /^\s*(?:[-*+]|\d+[.)])\s+\S|\b(?:MUST|SHALL|SHOULD|REQUIRED)\b|\b[A-Z][A-Z0-9]*-\d+\b/;

/**
 * How many build questions a section not asked yet will likely raise: one per requirement
 * it states (list items and requirement lines), bounded by what the schema allows; a
 * section that states none raises what the model raised per section before.
 */
function likelyQuestions(sectionText: string, fallback: number): number {
  let n = 0;
  for (const line of sectionText.split(/\r?\n/).slice(1)) if (REQUIREMENT_LINE.test(line)) n++;
  return n > 0 ? Math.min(n, MAX_ITEMS) : fallback;
}

export type RoleKey = "reviewer" | "reader" | "judge";

export interface EstimateInput {
  bundle: ReviewBundle;
  profile: ProfileBrief;
  models: Record<RoleKey, string>;
  cache: Pick<StepCache, "get" | "history">;
  /** URLs of the main doc's external targets (stage 6 reads and checks each once). */
  externalUrls?: readonly string[];
}

export interface ReviewEstimate {
  /** Model calls the review would make (steps the cache does not answer). */
  calls: number;
  /** Steps the cache would answer. */
  cached_steps: number;
  tokens_in: number;
  tokens_out: number;
  /** Tokens by role, for pricing. */
  byRole: Record<RoleKey, { tokensIn: number; tokensOut: number; calls: number }>;
}

const ROLE_OF: Record<AiStage, RoleKey> = {
  questions: "reviewer",
  claims: "reviewer",
  findings: "reviewer",
  readers: "reader",
  judge: "judge",
  external: "reviewer",
};

export async function estimateReview(input: EstimateInput): Promise<ReviewEstimate> {
  const corpus = buildCorpus(input.bundle);
  const p = input.profile;
  const readers = Math.max(1, p.readers);
  const est: ReviewEstimate = {
    calls: 0,
    cached_steps: 0,
    tokens_in: 0,
    tokens_out: 0,
    byRole: {
      reviewer: { tokensIn: 0, tokensOut: 0, calls: 0 },
      reader: { tokensIn: 0, tokensOut: 0, calls: 0 },
      judge: { tokensIn: 0, tokensOut: 0, calls: 0 },
    },
  };
  const history: Partial<Record<RoleKey, Record<string, StageHistory>>> = {};
  for (const role of ["reviewer", "reader", "judge"] as const)
    history[role] = (await input.cache.history?.(input.models[role])) ?? {};
  const seen = (stage: AiStage) => {
    const h = history[ROLE_OF[stage]]?.[stage];
    return h && h.answers > 0 ? h : undefined;
  };
  const sizeOf = (stage: AiStage) => Math.round(seen(stage)?.meanTokensOut ?? EXPECTED_TOKENS_OUT[stage]);
  const assumedQuestions = Math.round(seen("questions")?.meanItems ?? ASSUMED_QUESTIONS);
  // The share of questions the judge was asked about (it is not when fewer than two answer).
  const q = seen("questions");
  const judged = seen("judge");
  const judgeShare =
    q?.meanItems !== undefined && q.meanItems > 0
      ? Math.min(1, (judged?.answers ?? 0) / (q.meanItems * q.answers))
      : 1;
  /** What an unknown judge prompt adds for the readers' answers. */
  const answersText = "?".repeat(readers * 4 * Math.round(seen("readers")?.meanTokensOut ?? 50));
  /**
   * A call the review would make; `weight` < 1 for calls it makes only sometimes. A prompt
   * that is only a guess (the readers and judge of questions not asked yet) costs what this
   * model's prompts of that stage cost on average, once it has answered any.
   */
  const need = (stage: AiStage, system: string, prompt: string, weight = 1, guessed = false) => {
    const r = est.byRole[ROLE_OF[stage]];
    const past = guessed ? seen(stage)?.meanTokensIn : undefined;
    const tin = (past ?? estimateTokens(system + prompt)) * weight;
    const tout = sizeOf(stage) * weight;
    est.calls += weight;
    est.tokens_in += tin;
    est.tokens_out += tout;
    r.calls += weight;
    r.tokensIn += tin;
    r.tokensOut += tout;
  };
  /** The cached answer text of a step, or undefined (and the step is counted as a call). */
  const look = async (stage: AiStage, schemaName: string, system: string, prompt: string) => {
    const key = await stepKey(stage, input.models[ROLE_OF[stage]], system, prompt, schemaName);
    const hit = await input.cache.get(key);
    if (hit) {
      est.cached_steps++;
      return hit.text;
    }
    need(stage, system, prompt);
    return undefined;
  };

  for (const s of corpus.mainSections) {
    await look(
      "claims",
      "claims",
      SYSTEM.claims,
      claimsPrompt(
        p,
        s,
        contextFor(corpus, [], s.text, { extra: 3 }).filter((c) => c.key !== s.key),
      ),
    );
    await look("findings", "findings", SYSTEM.findings, findingsPrompt(p, s));
    const text = await look("questions", "build_questions", SYSTEM.questions, questionsPrompt(p, s));
    const parsed = text === undefined ? undefined : validateAnswer(questionsAnswer(p.radar), text);
    if (!parsed?.ok) {
      if (text !== undefined) {
        // A cached answer that no longer validates is asked again.
        est.cached_steps--;
        need("questions", SYSTEM.questions, questionsPrompt(p, s));
      }
      // Unknown questions: each reader reads about this section and two more.
      const context = contextFor(corpus, [s.key], s.text);
      for (let q = 0; q < likelyQuestions(s.text, assumedQuestions); q++) {
        for (let r = 1; r <= readers; r++)
          need("readers", SYSTEM.reader, readerPrompt(r, readers, "?".repeat(80), context), 1, true);
        need("judge", SYSTEM.judge, judgePrompt("?".repeat(80), []) + answersText, judgeShare, true);
      }
      continue;
    }
    for (const raw of parsed.value.questions) {
      const { citedKeys } = questionCites(corpus, s, raw);
      const context = contextFor(corpus, citedKeys, raw.text);
      const answers = [];
      let known = true;
      for (let r = 1; r <= readers; r++) {
        const t = await look(
          "readers",
          "reader_answer",
          SYSTEM.reader,
          readerPrompt(r, readers, raw.text, context),
        );
        const v = t === undefined ? undefined : validateAnswer(readerAnswer, t);
        if (v?.ok) answers.push(readerAnswerOf(corpus, r, v.value));
        else known = false;
      }
      if (!known) {
        need("judge", SYSTEM.judge, judgePrompt(raw.text, []) + answersText, judgeShare, true);
        continue;
      }
      const answered = answers.filter((a) => a.answered).map((a) => a.reader);
      if (answered.length < 2) continue;
      const prompt = judgePrompt(raw.text, judgedAnswers(answers));
      const key = await stepKey("judge", input.models.judge, SYSTEM.judge, prompt, "judge_groups");
      const hit = await input.cache.get(key);
      if (hit && validateAnswer(judgeAnswer(answered), hit.text).ok) est.cached_steps++;
      else need("judge", SYSTEM.judge, prompt);
    }
  }
  if (input.externalUrls && input.externalUrls.length > 0) {
    const doc = corpus.mainSections.map((s) => `=== ${sectionLabel(s)} ===\n${s.text}`).join("\n\n");
    for (const url of new Set(input.externalUrls))
      need("external", EXTERNAL_SYSTEM, externalPrompt(doc, { url, text: doc }), 1, true);
  }
  est.calls = Math.round(est.calls);
  est.tokens_in = Math.round(est.tokens_in);
  est.tokens_out = Math.round(est.tokens_out);
  for (const r of Object.values(est.byRole)) {
    r.calls = Math.round(r.calls);
    r.tokensIn = Math.round(r.tokensIn);
    r.tokensOut = Math.round(r.tokensOut);
  }
  return est;
}
