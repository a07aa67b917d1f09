/**
 * What a full review would cost before it starts: the same prompts the pipeline builds,
 * looked up in the step cache. Where the cache holds a section's questions, the readers'
 * prompts are known exactly (and looked up in turn); where it does not, each section is
 * assumed to raise ASSUMED_QUESTIONS questions, each read by every reader and judged once.
 */
import { buildCorpus, contextFor, type ReviewBundle } from "./corpus.js";
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
import { judgeAnswer, questionsAnswer, readerAnswer } from "./schemas.js";
import { estimateTokens, stepKey, validateAnswer, type StepCache } from "./steps.js";

export const ASSUMED_QUESTIONS = 3;

export type RoleKey = "reviewer" | "reader" | "judge";

export interface EstimateInput {
  bundle: ReviewBundle;
  profile: ProfileBrief;
  models: Record<RoleKey, string>;
  cache: Pick<StepCache, "get">;
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
  const need = (stage: AiStage, system: string, prompt: string) => {
    const r = est.byRole[ROLE_OF[stage]];
    const tin = estimateTokens(system + prompt);
    const tout = EXPECTED_TOKENS_OUT[stage];
    est.calls++;
    est.tokens_in += tin;
    est.tokens_out += tout;
    r.calls++;
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
      for (let q = 0; q < ASSUMED_QUESTIONS; q++) {
        for (let r = 1; r <= readers; r++)
          need("readers", SYSTEM.reader, readerPrompt(r, readers, "?".repeat(80), context));
        need("judge", SYSTEM.judge, judgePrompt("?".repeat(80), []) + "?".repeat(200 * readers));
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
        need("judge", SYSTEM.judge, judgePrompt(raw.text, []) + "?".repeat(200 * readers));
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
  return est;
}
