/**
 * Stage 4, judge (judge, one call per question with at least two answering readers): groups
 * the answering readers by meaning; the result follows from the groups.
 */
import type { Anchor } from "../../anchor/anchor.js";
import { SYSTEM, judgePrompt } from "../prompts.js";
import { judgeSalvager } from "../repair.js";
import { judgeAnswer } from "../schemas.js";
import {
  EXPECTED_TOKENS_OUT,
  type AiFinding,
  type BuildQuestion,
  type QuestionResult,
  type ReaderAnswer,
} from "../types.js";
import { lostAnswer } from "./readers.js";
import { tolerant, type StageContext } from "./context.js";

export function resultOf(
  readers: number,
  answered: number[],
  judgeGroups?: number[][],
): {
  result: QuestionResult;
  groups: number[][];
} {
  const silent = Array.from({ length: readers }, (_, i) => i + 1).filter((r) => !answered.includes(r));
  if (answered.length === 0) return { result: "unanswered", groups: [silent] };
  const groups = (judgeGroups ?? [answered]).map((g) => [...g].sort((a, b) => a - b));
  groups.sort((a, b) => a[0]! - b[0]!);
  if (silent.length > 0) groups.push(silent);
  const answeredGroups = judgeGroups?.length ?? 1;
  if (answeredGroups > 1) return { result: "diverge", groups };
  return { result: silent.length > 0 ? "partial" : "agree", groups };
}

/** What the judge is shown: the answering readers and their found quotes. */
export function judgedAnswers(answers: ReaderAnswer[]) {
  return answers
    .filter((a) => a.answered)
    .map((a) => ({
      reader: a.reader,
      answer: a.answer,
      quotes: a.quotes.filter((x) => x.found).map((x) => x.text),
    }));
}

function unjudged(q: BuildQuestion): void {
  q.result = "unjudged";
  q.groups = [];
  delete q.agreed_answer;
}

/**
 * Set the question's result from its readers' answers (asking the judge when two or more
 * answered). A lost reader answer or a lost judge answer makes it `unjudged`.
 */
export async function judgeQuestion(
  ctx: StageContext,
  q: BuildQuestion,
  got: Array<ReaderAnswer | undefined>,
): Promise<void> {
  q.answers = got.map((a, i) => a ?? lostAnswer(i + 1));
  if (got.some((a) => a === undefined)) return unjudged(q);
  const answers = q.answers;
  const answered = answers.filter((a) => a.answered).map((a) => a.reader);
  if (answered.length < 2) {
    const r = resultOf(ctx.readers, answered);
    q.result = r.result;
    q.groups = r.groups;
    if (answered.length === 1) q.agreed_answer = answers[answered[0]! - 1]!.answer;
    return;
  }
  ctx.plan("judge", 1);
  const judged = await tolerant(ctx, "judge", () =>
    ctx.runner.run({
      stage: "judge",
      role: ctx.roles.judge,
      system: SYSTEM.judge,
      prompt: judgePrompt(q.text, judgedAnswers(answers)),
      schemaName: "judge_groups",
      schema: judgeAnswer(answered),
      salvage: judgeSalvager(answered),
      expectedTokensOut: EXPECTED_TOKENS_OUT.judge,
    }),
  );
  if (!judged) return unjudged(q);
  const { value } = judged;
  const r = resultOf(ctx.readers, answered, value.groups);
  q.result = r.result;
  q.groups = r.groups;
  if (r.result !== "diverge" && value.agreed_answer.trim()) q.agreed_answer = value.agreed_answer.trim();
}

const WHY: Record<Exclude<QuestionResult, "agree">, string> = {
  diverge: "Readers understood this differently",
  unanswered: "No reader could answer this from the text",
  partial: "Some readers could not answer this from the text",
  unjudged: "The review could not judge this question (the model's answers were invalid); check it by hand",
};

/**
 * A MUST or SHOULD question not `agree` is a finding of its level (check `build-question`).
 * `n`: how many questions asked before it in its section share its anchor (its id's order).
 */
export function questionFinding(
  ctx: StageContext,
  q: BuildQuestion,
  anchor: Anchor,
  n: number,
): AiFinding | undefined {
  if ((q.level !== "MUST" && q.level !== "SHOULD") || q.result === "agree") return undefined;
  return {
    id: ctx.ids.nth("build-question", anchor, n),
    check: "build-question",
    level: q.level,
    category: q.category,
    message: `${WHY[q.result]}: ${q.text}`,
    anchor,
    relaxed: false,
    stage: "judge",
  };
}
