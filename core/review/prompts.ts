/**
 * The prompts of each stage. Each is a pure function of the text it needs and nothing
 * else (no run id, no date, no question number), so an unchanged section gives the same
 * prompt, and the step cache answers it.
 */
import { sectionLabel, type CorpusSection } from "./corpus.js";
import { FENCE_SYSTEM, fenceFor } from "./fence.js";

export interface ProfileBrief {
  key: string;
  title: string;
  radar: string[];
  readers: number;
  /** The profile's guidance: questions a builder must be able to answer. */
  build_questions: string[];
  guidance: string;
}

const SYSTEM_BASE = {
  questions:
    "You review a specification before anyone builds from it. You list the questions a builder must be able " +
    "to answer from the text to build exactly what the authors mean.",
  reader:
    "You are one of several independent readers of a specification. Answer only from the text you are given, " +
    "never from general knowledge or guesses. Quote the text verbatim. When the text does not say, answer " +
    "NOT SPECIFIED.",
  judge:
    "You compare answers that independent readers gave to the same question about a specification. Group " +
    "readers whose answers mean the same thing for a builder; wording does not matter, meaning does.",
  claims: "You check the factual claims of a specification section against the rest of the text.",
  findings:
    "You review a specification section for what would make builders build the wrong thing or stop: " +
    "ambiguity, gaps, contradictions, untestable statements.",
  fix: "You edit a specification to resolve one review finding with the smallest change.",
  diff: "You summarize what changed in meaning between two versions of a specification.",
} as const;

/** The system prompt of each step: its task, the fence rule, and JSON only. */
export const SYSTEM = Object.fromEntries(
  Object.entries(SYSTEM_BASE).map(([k, v]) => [k, `${v} ${FENCE_SYSTEM} Answer with JSON only.`]),
) as { readonly [K in keyof typeof SYSTEM_BASE]: string };

function header(p: ProfileBrief): string {
  return `Document type: ${p.title} (${p.key}).`;
}

function block(s: CorpusSection): string {
  return `=== ${sectionLabel(s)} ===\n${s.text}`;
}

export function questionsPrompt(p: ProfileBrief, section: CorpusSection): string {
  const guidance = p.build_questions.length
    ? `\nQuestions this document type must answer (guidance):\n${p.build_questions.map((q) => `- ${q}`).join("\n")}`
    : "";
  const extra = p.guidance ? `\nReview guidance: ${p.guidance}` : "";
  const f = fenceFor(block(section));
  return (
    `${header(p)}${guidance}${extra}\n\n` +
    `List the build questions the section below raises: what a builder must know to build what it describes ` +
    `(values, formats, limits, orders, errors, who does what). Only questions this section is about; none ` +
    `when it has nothing to build. For each: the level (MUST when builders cannot build without the answer, ` +
    `SHOULD when they would guess, INFO otherwise), the category, a verbatim quote of the section it comes ` +
    `from, and the trace IDs it is about. ${f.rule}\n\n${f.wrap(block(section), "section")}`
  );
}

export function readerPrompt(
  reader: number,
  readers: number,
  question: string,
  context: CorpusSection[],
): string {
  const text = context.map(block).join("\n\n");
  const f = fenceFor(text, question);
  return (
    `You are reader ${reader} of ${readers}. Work alone.\n\n` +
    `Question: ${question}\n\n` +
    `Answer from this text only (sections of the bundle and its linked bundles). ${f.rule}\n\n` +
    `${f.wrap(text, "bundle")}\n\n` +
    `Give the answer as the text states it, with the verbatim quotes that state it. If the text does not ` +
    `answer the question, set not_specified to true, answer NOT SPECIFIED and give no quotes.`
  );
}

export interface JudgedAnswer {
  reader: number;
  answer: string;
  quotes: string[];
}

export function judgePrompt(question: string, answers: JudgedAnswer[]): string {
  const list = answers
    .map(
      (a) =>
        `Reader ${a.reader}: ${a.answer.replace(/\s*\n\s*/g, " ")}\n` +
        (a.quotes.length ? a.quotes.map((q) => `  quote: "${q}"`).join("\n") : "  (no quote)"),
    )
    .join("\n");
  const f = fenceFor(list, question);
  return (
    `Question: ${question}\n\nAnswers (${f.rule})\n${f.wrap(list, "answers")}\n\n` +
    `Group the readers by the meaning of their answers (every reader above exactly once). result is agree ` +
    `when all are in one group, else diverge. With agree, give the agreed answer in one sentence.`
  );
}

export function claimsPrompt(p: ProfileBrief, section: CorpusSection, context: CorpusSection[]): string {
  const other = context.map(block).join("\n\n");
  const f = fenceFor(block(section), other);
  return (
    `${header(p)}\n\nList the factual claims of the section below (statements of fact, numbers, names, ` +
    `behaviour), each with a verbatim quote of the section that makes it. Label each against the other text: ` +
    `supported (quote what backs it), contradicted (quote what says otherwise), unsupported, or assumption. ` +
    `${f.rule}\n\n` +
    `Section:\n${f.wrap(block(section), "section")}\n\n` +
    (context.length ? `Other text:\n${f.wrap(other, "other")}` : "Other text: none.")
  );
}

export function findingsPrompt(p: ProfileBrief, section: CorpusSection): string {
  const extra = p.guidance ? `\nReview guidance: ${p.guidance}` : "";
  const f = fenceFor(block(section));
  return (
    `${header(p)}${extra}\n\nReview the section below. Report only real problems, each with its level, ` +
    `category, a message saying what is wrong and what to do, and a verbatim quote of the text it is about. ` +
    `Report nothing when the section is fine. ${f.rule}\n\n${f.wrap(block(section), "section")}`
  );
}

export function fixPrompt(
  finding: { level: string; message: string; quote: string },
  file: string,
  section: string,
): string {
  const f = fenceFor(section, finding.quote, finding.message);
  return (
    `Finding (${finding.level}): ${finding.message}\n` +
    (finding.quote ? `It points at: "${finding.quote}"\n` : "") +
    `\nThe section of ${file} (${f.rule}):\n${f.wrap(section, "section")}\n\n` +
    `Give the exact text to replace (copied verbatim from the section, long enough to be unique) and the ` +
    `new text that resolves the finding. Change nothing else.`
  );
}

export function diffPrompt(changes: Array<{ path: string; before: string; after: string }>): string {
  const text = changes
    .map(
      (c) => `=== ${c.path} ===\n--- before\n${c.before || "(absent)"}\n--- after\n${c.after || "(removed)"}`,
    )
    .join("\n\n");
  const f = fenceFor(text);
  return (
    `Sections that changed (before, then after; ${f.rule}):\n${f.wrap(text, "changes")}` +
    `\n\nSummarize what changed in meaning for a builder, as short markdown bullets.`
  );
}
