/**
 * The full review's AI stages over one bundle (docs/review.md):
 *
 *   questions (per section) -> readers (N per question) -> judge (per question)
 *   claims (per section)
 *   findings (per section)
 *
 * Steps run as soon as what they need is there (a question's readers start when its
 * section's questions are back), at most `parallel` model calls at once. A step that fails
 * stops the rest; the outcome keeps everything finished before, so the run can keep it.
 */
import type { Anchor } from "../anchor/anchor.js";
import { stableId } from "../lint/ids.js";
import type { Level } from "../lint/types.js";
import {
  anchorQuote,
  anchorTraceId,
  buildCorpus,
  contextFor,
  findQuote,
  mainSection,
  traceIdsOf,
  type Corpus,
  type CorpusSection,
  type ReviewBundle,
} from "./corpus.js";
import {
  SYSTEM,
  claimsPrompt,
  findingsPrompt,
  judgePrompt,
  questionsPrompt,
  readerPrompt,
  type ProfileBrief,
} from "./prompts.js";
import { claimsAnswer, findingsAnswer, judgeAnswer, questionsAnswer, readerAnswer } from "./schemas.js";
import { ReviewError, StepRunner, type RoleRef, type StepRunnerOptions, type Usage } from "./steps.js";

export type AiStage = "questions" | "readers" | "judge" | "claims" | "findings";
export const AI_STAGES: readonly AiStage[] = ["questions", "readers", "judge", "claims", "findings"];

export type QuestionResult = "agree" | "partial" | "diverge" | "unanswered";

export interface Cite {
  kind: "section" | "trace_id";
  path?: string[];
  id?: string;
  anchor: Anchor;
}

export interface ReaderAnswer {
  reader: number;
  answer: string;
  answered: boolean;
  quotes: Array<{ text: string; found: boolean }>;
}

export interface BuildQuestion {
  id: string;
  /** 1-based, in document order (set when every section's questions are back). */
  number: number;
  text: string;
  level: Level;
  category: string;
  cites: Cite[];
  result: QuestionResult;
  answers: ReaderAnswer[];
  groups: number[][];
  /** With `agree` or `partial`: the answer the answering readers share. */
  agreed_answer?: string;
  /** The finding this question became, when it did. */
  finding_id?: string;
}

export type ClaimLabel = "supported" | "unsupported" | "contradicted" | "assumption";

export interface Claim {
  id: string;
  text: string;
  label: ClaimLabel;
  category: string;
  explanation: string;
  anchor: Anchor;
  sources: Array<{ text: string; found: boolean; file?: string }>;
}

export interface AiFinding {
  id: string;
  check: "build-question" | "claim-contradicted" | "ai-review";
  level: Level;
  category: string;
  message: string;
  anchor: Anchor;
  relaxed: false;
  stage: AiStage;
  /** The quote the model gave was not found; the anchor is the section's heading. */
  unlocated?: boolean;
}

export interface StageTiming {
  name: AiStage;
  /** From the first step's start to the last step's end, in ms. */
  duration_ms: number;
  /** When the stage's first step started, ms after the review started. */
  started_ms: number;
  steps: number;
  cached: number;
}

export type ReviewEvent =
  | { type: "stage"; stage: AiStage; done: number; total: number; cached: number }
  | { type: "question"; question: BuildQuestion }
  | { type: "claim"; claim: Claim }
  | { type: "finding"; finding: AiFinding };

export interface ReviewRoles {
  reviewer: RoleRef;
  reader: RoleRef;
  judge: RoleRef;
}

export interface ReviewInput extends Omit<StepRunnerOptions, "onStep"> {
  bundle: ReviewBundle;
  profile: ProfileBrief;
  roles: ReviewRoles;
  /** A monotonic clock in ms (stage timings). */
  now: () => number;
  onEvent?: (event: ReviewEvent) => void;
}

export interface ReviewOutcome {
  status: "done" | "failed";
  error?: ReviewError;
  questions: BuildQuestion[];
  claims: Claim[];
  /** AI findings in document order. */
  findings: AiFinding[];
  stages: StageTiming[];
  usage: Usage;
}

/** The expected answer sizes, for budget checks and estimates. */
export const EXPECTED_TOKENS_OUT: Record<AiStage, number> = {
  questions: 400,
  readers: 150,
  judge: 120,
  claims: 400,
  findings: 300,
};

const NOT_SPECIFIED = "NOT SPECIFIED";

interface Progress {
  done: number;
  total: number;
  cached: number;
  start?: number;
  end?: number;
}

/** Ids that stay the same for the same text, told apart by order when equal. */
class IdMaker {
  private readonly seen = new Map<string, number>();
  make(parts: string[]): string {
    const k = parts.join("\u0000");
    const n = this.seen.get(k) ?? 0;
    this.seen.set(k, n + 1);
    return stableId([...parts, String(n)]);
  }
}

interface SectionQuestion {
  section: number;
  order: number;
  q: BuildQuestion;
}

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

/** Where a question comes from: its section (and quote), and the trace IDs it names. */
export function questionCites(
  corpus: Corpus,
  s: CorpusSection,
  raw: { quote: string; trace_ids: string[] },
): { anchor: Anchor; cites: Cite[]; citedKeys: string[] } {
  const section = mainSection(corpus, s)!;
  const { anchor } = anchorQuote(corpus, section, raw.quote);
  const cites: Cite[] = [{ kind: "section", path: section.heading_path, anchor }];
  const citedKeys = [s.key];
  for (const id of new Set([...raw.trace_ids, ...traceIdsOf(raw.quote)])) {
    const at = anchorTraceId(corpus, id);
    if (!at) continue;
    cites.push({ kind: "trace_id", id, path: at.heading_path, anchor: at });
    const holder = corpus.mainSections.find(
      (x) => x.heading_path.join("\u0000") === at.heading_path.join("\u0000"),
    );
    if (holder && !citedKeys.includes(holder.key)) citedKeys.push(holder.key);
  }
  return { anchor, cites, citedKeys };
}

/** The answers readers give: NOT SPECIFIED and quotes checked against the corpus. */
export function readerAnswerOf(
  corpus: Corpus,
  reader: number,
  value: { not_specified: boolean; answer: string; quotes: string[] },
): ReaderAnswer {
  const notSpecified = value.not_specified || value.answer.trim().toUpperCase() === NOT_SPECIFIED;
  const quotes = notSpecified
    ? []
    : value.quotes.map((text) => ({ text, found: findQuote(corpus, text) !== undefined }));
  return {
    reader,
    answer: notSpecified ? NOT_SPECIFIED : value.answer,
    answered: !notSpecified && quotes.some((x) => x.found),
    quotes,
  };
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

export async function runReview(input: ReviewInput): Promise<ReviewOutcome> {
  const corpus = buildCorpus(input.bundle);
  const p = input.profile;
  const readers = Math.max(1, p.readers);
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
  const plan = (stage: AiStage, n: number) => {
    const pr = progress.get(stage)!;
    pr.total += n;
    pr.start ??= input.now() - t0;
  };
  const ids = new IdMaker();
  const questions: SectionQuestion[] = [];
  const claims: Array<{ section: number; order: number; claim: Claim }> = [];
  const findings: AiFinding[] = [];
  let failure: ReviewError | undefined;
  const fail = (err: unknown) => {
    const e =
      err instanceof ReviewError
        ? err
        : new ReviewError("model_call_failed", err instanceof Error ? err.message : String(err));
    if (!failure || (failure.code === "cancelled" && e.code !== "cancelled")) failure = e;
    runner.abort();
  };
  const addFinding = (f: AiFinding) => {
    findings.push(f);
    emit({ type: "finding", finding: f });
  };

  const sections = corpus.mainSections;
  plan("questions", sections.length);
  plan("claims", sections.length);
  plan("findings", sections.length);

  const tasks: Promise<void>[] = [];
  sections.forEach((s, si) => {
    tasks.push(questionsOf(s, si).catch(fail));
    tasks.push(claimsOf(s, si).catch(fail));
    tasks.push(findingsOf(s).catch(fail));
  });
  await Promise.all(tasks);

  async function questionsOf(s: CorpusSection, si: number): Promise<void> {
    const section = mainSection(corpus, s)!;
    const { value } = await runner.run({
      stage: "questions",
      role: input.roles.reviewer,
      system: SYSTEM.questions,
      prompt: questionsPrompt(p, s),
      schemaName: "build_questions",
      schema: questionsAnswer(p.radar),
      expectedTokensOut: EXPECTED_TOKENS_OUT.questions,
    });
    plan("readers", value.questions.length * readers);
    await Promise.all(
      value.questions.map(async (raw, order) => {
        const { anchor, cites, citedKeys } = questionCites(corpus, s, raw);
        const q: BuildQuestion = {
          id: ids.make(["question", corpus.mainPath, section.heading_path.join(" > "), raw.text]),
          number: 0,
          text: raw.text,
          level: raw.level,
          category: raw.category,
          cites,
          result: "unanswered",
          answers: [],
          groups: [],
        };
        await answer(q, citedKeys);
        questions.push({ section: si, order, q });
        if ((q.level === "MUST" || q.level === "SHOULD") && q.result !== "agree") {
          const why =
            q.result === "diverge"
              ? "Readers understood this differently"
              : q.result === "unanswered"
                ? "No reader could answer this from the text"
                : "Some readers could not answer this from the text";
          const f: AiFinding = {
            id: ids.make(["build-question", corpus.mainPath, anchor.heading_path.join(" > "), q.text]),
            check: "build-question",
            level: q.level,
            category: q.category,
            message: `${why}: ${q.text}`,
            anchor,
            relaxed: false,
            stage: "judge",
          };
          q.finding_id = f.id;
          addFinding(f);
        }
        emit({ type: "question", question: q });
      }),
    );
  }

  async function answer(q: BuildQuestion, citedKeys: string[]): Promise<void> {
    const context = contextFor(corpus, citedKeys, q.text);
    const answers = await Promise.all(
      Array.from({ length: readers }, async (_, i): Promise<ReaderAnswer> => {
        const reader = i + 1;
        const { value } = await runner.run({
          stage: "readers",
          role: input.roles.reader,
          system: SYSTEM.reader,
          prompt: readerPrompt(reader, readers, q.text, context),
          schemaName: "reader_answer",
          schema: readerAnswer,
          expectedTokensOut: EXPECTED_TOKENS_OUT.readers,
        });
        return readerAnswerOf(corpus, reader, value);
      }),
    );
    q.answers = answers;
    const answered = answers.filter((a) => a.answered).map((a) => a.reader);
    if (answered.length < 2) {
      const r = resultOf(readers, answered);
      q.result = r.result;
      q.groups = r.groups;
      if (answered.length === 1) q.agreed_answer = answers[answered[0]! - 1]!.answer;
      return;
    }
    plan("judge", 1);
    const { value } = await runner.run({
      stage: "judge",
      role: input.roles.judge,
      system: SYSTEM.judge,
      prompt: judgePrompt(q.text, judgedAnswers(answers)),
      schemaName: "judge_groups",
      schema: judgeAnswer(answered),
      expectedTokensOut: EXPECTED_TOKENS_OUT.judge,
    });
    const r = resultOf(readers, answered, value.groups);
    q.result = r.result;
    q.groups = r.groups;
    if (r.result !== "diverge" && value.agreed_answer.trim()) q.agreed_answer = value.agreed_answer.trim();
  }

  async function claimsOf(s: CorpusSection, si: number): Promise<void> {
    const section = mainSection(corpus, s)!;
    const context = contextFor(corpus, [], s.text, { extra: 3 }).filter((c) => c.key !== s.key);
    const { value } = await runner.run({
      stage: "claims",
      role: input.roles.reviewer,
      system: SYSTEM.claims,
      prompt: claimsPrompt(p, s, context),
      schemaName: "claims",
      schema: claimsAnswer(p.radar),
      expectedTokensOut: EXPECTED_TOKENS_OUT.claims,
    });
    value.claims.forEach((raw, order) => {
      const { anchor } = anchorQuote(corpus, section, raw.quote);
      const sources = raw.sources.map((text) => {
        const at = findQuote(corpus, text);
        return {
          text,
          found: at !== undefined,
          ...(at ? { file: at.bundle ? `${at.bundle}/${at.file}` : at.file } : {}),
        };
      });
      let label: ClaimLabel = raw.label;
      let explanation = raw.explanation;
      if ((label === "supported" || label === "contradicted") && !sources.some((x) => x.found)) {
        label = "unsupported";
        explanation = `${explanation}${explanation ? " " : ""}(marked ${raw.label}, but no quoted source is in the bundle)`;
      }
      const claim: Claim = {
        id: ids.make(["claim", corpus.mainPath, anchor.heading_path.join(" > "), raw.text]),
        text: raw.text,
        label,
        category: raw.category,
        explanation,
        anchor,
        sources,
      };
      claims.push({ section: si, order, claim });
      emit({ type: "claim", claim });
      if (label === "contradicted")
        addFinding({
          id: ids.make(["claim-contradicted", corpus.mainPath, anchor.heading_path.join(" > "), raw.text]),
          check: "claim-contradicted",
          level: "SHOULD",
          category: raw.category,
          message: `The text contradicts this claim: ${raw.text}`,
          anchor,
          relaxed: false,
          stage: "claims",
        });
    });
  }

  async function findingsOf(s: CorpusSection): Promise<void> {
    const section = mainSection(corpus, s)!;
    const { value } = await runner.run({
      stage: "findings",
      role: input.roles.reviewer,
      system: SYSTEM.findings,
      prompt: findingsPrompt(p, s),
      schemaName: "findings",
      schema: findingsAnswer(p.radar),
      expectedTokensOut: EXPECTED_TOKENS_OUT.findings,
    });
    for (const raw of value.findings) {
      const { anchor, located } = anchorQuote(corpus, section, raw.quote);
      addFinding({
        id: ids.make([
          "ai-review",
          corpus.mainPath,
          anchor.heading_path.join(" > "),
          anchor.quote,
          raw.message,
        ]),
        check: "ai-review",
        level: raw.level,
        category: raw.category,
        message: raw.message,
        anchor,
        relaxed: false,
        stage: "findings",
        ...(located ? {} : { unlocated: true }),
      });
    }
  }

  questions.sort((a, b) => a.section - b.section || a.order - b.order);
  questions.forEach((x, i) => (x.q.number = i + 1));
  claims.sort((a, b) => a.section - b.section || a.order - b.order);
  const order: Record<AiStage, number> = { questions: 0, readers: 1, judge: 2, claims: 3, findings: 4 };
  findings.sort(
    (a, b) =>
      a.anchor.start - b.anchor.start || order[a.stage] - order[b.stage] || a.anchor.end - b.anchor.end,
  );
  const stages: StageTiming[] = AI_STAGES.map((name) => {
    const pr = progress.get(name)!;
    return {
      name,
      started_ms: round(pr.start ?? 0),
      duration_ms: round(Math.max(0, (pr.end ?? pr.start ?? 0) - (pr.start ?? 0))),
      steps: pr.done,
      cached: pr.cached,
    };
  });
  return {
    status: failure ? "failed" : "done",
    ...(failure ? { error: failure } : {}),
    questions: questions.map((x) => x.q),
    claims: claims.map((x) => x.claim),
    findings,
    stages,
    usage: { ...runner.usage },
  };
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

export type { Corpus };
