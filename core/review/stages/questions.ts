/** Stage 2, questions (reviewer, one call per section): the build questions a section raises. */
import type { Anchor } from "../../anchor/anchor.js";
import {
  anchorQuote,
  anchorTraceId,
  mainSection,
  traceIdsOf,
  type Corpus,
  type CorpusSection,
} from "../corpus.js";
import { SYSTEM, questionsPrompt } from "../prompts.js";
import { listSalvager } from "../repair.js";
import { MAX_ITEMS, questionItem, questionsAnswer } from "../schemas.js";
import { EXPECTED_TOKENS_OUT, type BuildQuestion, type Cite } from "../types.js";
import type { StageContext } from "./context.js";

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

export interface AskedQuestion {
  q: BuildQuestion;
  /** Where a finding about the question is anchored. */
  anchor: Anchor;
  /** Corpus keys of the sections the question cites (the readers' context starts there). */
  citedKeys: string[];
  /** The text of the section the question says it comes from, as the model quoted it. */
  quote: string;
}

export function questionsStep(ctx: StageContext, s: CorpusSection) {
  const radar = ctx.profile.radar;
  return {
    stage: "questions",
    role: ctx.roles.reviewer,
    system: SYSTEM.questions,
    prompt: questionsPrompt(ctx.profile, s),
    schemaName: "build_questions",
    schema: questionsAnswer(radar),
    salvage: listSalvager("questions", questionItem(radar), MAX_ITEMS),
    expectedTokensOut: EXPECTED_TOKENS_OUT.questions,
  };
}

/** The questions of one section, not yet answered. */
export async function askQuestions(ctx: StageContext, s: CorpusSection): Promise<AskedQuestion[]> {
  const { corpus } = ctx;
  const section = mainSection(corpus, s)!;
  const { value } = await ctx.runner.run(questionsStep(ctx, s));
  return value.questions.map((raw) => {
    const { anchor, cites, citedKeys } = questionCites(corpus, s, raw);
    const q: BuildQuestion = {
      id: ctx.ids.make(["question", corpus.mainPath, section.heading_path.join(" > "), raw.text]),
      number: 0,
      text: raw.text,
      level: raw.level,
      category: raw.category,
      cites,
      result: "unanswered",
      answers: [],
      groups: [],
    };
    return { q, anchor, citedKeys, quote: raw.quote };
  });
}
