/**
 * What a full review would cost before it starts: the same prompts the pipeline builds,
 * looked up in the step cache. Where the cache holds a section's questions, the readers'
 * prompts are known exactly (and looked up in turn). Where it does not, the section's
 * statements stand in for what the model will say (docs/review.md, "The estimate"):
 * one build question per requirement it states (list items and requirement lines), or
 * per sentence when it states none; each read by every reader, whose prompt is built
 * around that statement, and judged once, on answers that restate it.
 * Answer sizes are the role model's mean answer size per stage in the step cache; before
 * the model has answered anything, they are the size of the answer the stage's schema
 * asks for, filled with the section's own statements as quotes and answers and one
 * sentence (GUESSED_SENTENCE) wherever the model writes its own words. A prompt that can
 * only be guessed costs, once the model has answered, its mean prompt size of that stage.
 * Each external target the main doc links to is one reviewer call (stage 6): its text is
 * read only when the run starts, so it is assumed as long as the doc, within the stage's cut.
 */
import {
  buildCorpus,
  contextFor,
  readerContext,
  sectionLabel,
  traceIdsOf,
  type ReviewBundle,
} from "./corpus.js";
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

/** Characters of text a model writes in its own words (a question, a message, an explanation): one sentence. */
export const GUESSED_SENTENCE = 80;

/** A list item, or a line that states a requirement (an RFC 2119 keyword or a trace ID). */
const REQUIREMENT_LINE =
  /^\s*(?:[-*+]|\d+[.)])\s+\S|\b(?:MUST|SHALL|SHOULD|REQUIRED)\b|\b[A-Z][A-Z0-9]*-\d+\b/;

/**
 * What a section states, as a model would quote it: its requirement lines (list markers
 * dropped), or, when it has none, the sentences of its prose; headings, fences and HTML
 * comments left out. `requirements` tells which of the two it is.
 */
export function statementsOf(sectionText: string): { statements: string[]; requirements: boolean } {
  const lines = sectionText
    .replace(/<!--[\s\S]*?-->/g, " ")
    .replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "")
    .split(/\r?\n/)
    .filter((l) => l.trim() !== "" && !/^\s{0,3}#{1,6}(?:\s|$)/.test(l));
  const strip = (l: string) => l.replace(/^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?/, "").trim();
  const requirements = lines.filter((l) => REQUIREMENT_LINE.test(l)).map(strip);
  if (requirements.length > 0) return { statements: requirements, requirements: true };
  const sentences = lines
    .map(strip)
    .join(" ")
    .split(/(?<=[.!?])\s+/)
    .map((x) => x.trim())
    .filter((x) => /[\p{L}\p{N}]/u.test(x));
  return { statements: sentences, requirements: false };
}

/** Tokens of a JSON answer, counted as the pipeline counts a prompt. */
const jsonTokens = (value: unknown) => estimateTokens(JSON.stringify(value));

/**
 * The answers a model that has answered nothing yet is assumed to give, by the schemas'
 * shape: every list holds one item per statement (the count the prompt asks for), each
 * quote is a statement, each reader restates it, and what the model writes in its own
 * words is one sentence. Findings: one per section, the prompt asking only for real problems.
 */
export function guessedAnswers(statements: readonly string[], radar: readonly string[], readers: number) {
  const sentence = "x".repeat(GUESSED_SENTENCE);
  const category = radar[0] ?? "completeness";
  const items = statements.slice(0, MAX_ITEMS);
  return {
    questions: jsonTokens({
      questions: items.map((quote) => ({
        text: sentence,
        level: "SHOULD",
        category,
        quote,
        trace_ids: traceIdsOf(quote),
      })),
    }),
    claims: jsonTokens({
      claims: items.map((quote) => ({
        text: quote,
        quote,
        label: "supported",
        sources: [quote],
        category,
        explanation: sentence,
      })),
    }),
    findings: jsonTokens({
      findings: items.slice(0, 1).map((quote) => ({ level: "SHOULD", category, message: sentence, quote })),
    }),
    reader: (statement: string) =>
      jsonTokens({ not_specified: false, answer: statement, quotes: [statement] }),
    judge: (statement: string) =>
      jsonTokens({
        groups: [Array.from({ length: readers }, (_, i) => i + 1)],
        result: "agree",
        agreed_answer: statement,
        explanation: sentence,
      }),
  };
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
  /** Tokens of an answer: the model's mean for the stage once it has answered, else the guess (`prior`). */
  const sizeOf = (stage: AiStage, prior?: number) =>
    Math.round(seen(stage)?.meanTokensOut ?? prior ?? EXPECTED_TOKENS_OUT[stage]);
  const pastQuestions = seen("questions")?.meanItems;
  // The share of questions the judge was asked about (it is not when fewer than two answer).
  const q = seen("questions");
  const judged = seen("judge");
  const judgeShare =
    q?.meanItems !== undefined && q.meanItems > 0
      ? Math.min(1, (judged?.answers ?? 0) / (q.meanItems * q.answers))
      : 1;
  /**
   * A call the review would make; `weight` < 1 for calls it makes only sometimes. A prompt
   * that is only a guess (the readers and judge of questions not asked yet) costs what this
   * model's prompts of that stage cost on average, once it has answered any.
   */
  const need = (
    stage: AiStage,
    system: string,
    prompt: string,
    weight = 1,
    guessed = false,
    prior?: number,
  ) => {
    const r = est.byRole[ROLE_OF[stage]];
    const past = guessed ? seen(stage)?.meanTokensIn : undefined;
    const tin = (past ?? estimateTokens(system + prompt)) * weight;
    const tout = sizeOf(stage, prior) * weight;
    est.calls += weight;
    est.tokens_in += tin;
    est.tokens_out += tout;
    r.calls += weight;
    r.tokensIn += tin;
    r.tokensOut += tout;
  };
  /** The cached answer text of a step, or undefined (and the step is counted as a call). */
  const look = async (stage: AiStage, schemaName: string, system: string, prompt: string, prior?: number) => {
    const key = await stepKey(stage, input.models[ROLE_OF[stage]], system, prompt, schemaName);
    const hit = await input.cache.get(key);
    if (hit) {
      est.cached_steps++;
      return hit.text;
    }
    need(stage, system, prompt, 1, false, prior);
    return undefined;
  };

  for (const s of corpus.mainSections) {
    const { statements, requirements } = statementsOf(s.text);
    const guess = guessedAnswers(statements, p.radar, readers);
    await look(
      "claims",
      "claims",
      SYSTEM.claims,
      claimsPrompt(
        p,
        s,
        contextFor(corpus, [], s.text, { extra: 3 }).filter((c) => c.key !== s.key),
      ),
      guess.claims,
    );
    await look("findings", "findings", SYSTEM.findings, findingsPrompt(p, s), guess.findings);
    const text = await look(
      "questions",
      "build_questions",
      SYSTEM.questions,
      questionsPrompt(p, s),
      guess.questions,
    );
    const parsed = text === undefined ? undefined : validateAnswer(questionsAnswer(p.radar), text);
    if (!parsed?.ok) {
      if (text !== undefined) {
        // A cached answer that no longer validates is asked again.
        est.cached_steps--;
        need("questions", SYSTEM.questions, questionsPrompt(p, s), 1, false, guess.questions);
      }
      // Unknown questions: one per statement (a section stating no requirement raises what
      // the model raised per section before, once it has answered), each about its statement.
      const count = Math.min(
        MAX_ITEMS,
        !requirements && pastQuestions !== undefined ? Math.round(pastQuestions) : statements.length,
      );
      for (let q = 0; q < count; q++) {
        const statement = statements[q % Math.max(1, statements.length)] ?? "";
        const question = "?".repeat(GUESSED_SENTENCE);
        const context = readerContext(corpus, [s.key], "", statement);
        for (let r = 1; r <= readers; r++)
          need(
            "readers",
            SYSTEM.reader,
            readerPrompt(r, readers, question, context),
            1,
            true,
            guess.reader(statement),
          );
        const answers = Array.from({ length: readers }, (_, i) => ({
          reader: i + 1,
          answer: statement,
          quotes: [statement],
        }));
        need("judge", SYSTEM.judge, judgePrompt(question, answers), judgeShare, true, guess.judge(statement));
      }
      continue;
    }
    for (const raw of parsed.value.questions) {
      const { citedKeys } = questionCites(corpus, s, raw);
      const context = readerContext(corpus, citedKeys, raw.text, raw.quote);
      const answers = [];
      let known = true;
      for (let r = 1; r <= readers; r++) {
        const t = await look(
          "readers",
          "reader_answer",
          SYSTEM.reader,
          readerPrompt(r, readers, raw.text, context),
          guess.reader(raw.quote),
        );
        const v = t === undefined ? undefined : validateAnswer(readerAnswer, t);
        if (v?.ok) answers.push(readerAnswerOf(corpus, r, v.value));
        else known = false;
      }
      if (!known) {
        // Answers not given yet: readers that restate what the question quotes.
        const restated = Array.from({ length: readers }, (_, i) => ({
          reader: i + 1,
          answer: raw.quote,
          quotes: [raw.quote],
        }));
        need(
          "judge",
          SYSTEM.judge,
          judgePrompt(raw.text, restated),
          judgeShare,
          true,
          guess.judge(raw.quote),
        );
        continue;
      }
      const answered = answers.filter((a) => a.answered).map((a) => a.reader);
      if (answered.length < 2) continue;
      const prompt = judgePrompt(raw.text, judgedAnswers(answers));
      const key = await stepKey("judge", input.models.judge, SYSTEM.judge, prompt, "judge_groups");
      const hit = await input.cache.get(key);
      if (hit && validateAnswer(judgeAnswer(answered), hit.text).ok) est.cached_steps++;
      else need("judge", SYSTEM.judge, prompt, 1, false, guess.judge(raw.quote));
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
