/** Stage 3, readers (reader, N calls per question): each reader answers alone, from the text only. */
import { findQuote, readerContext, type Corpus } from "../corpus.js";
import { SYSTEM, readerPrompt } from "../prompts.js";
import { objectSalvager } from "../repair.js";
import { readerAnswer } from "../schemas.js";
import { EXPECTED_TOKENS_OUT, type BuildQuestion, type ReaderAnswer } from "../types.js";
import { tolerant, type StageContext } from "./context.js";

export const NOT_SPECIFIED = "NOT SPECIFIED";

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

/** A reader whose answer was invalid twice: not an answer (the question is then unjudged). */
export function lostAnswer(reader: number): ReaderAnswer {
  return { reader, answer: "", answered: false, quotes: [] };
}

/** A missing not_specified follows the answer (NOT SPECIFIED or not): one clear meaning. */
export const readerSalvage = objectSalvager(readerAnswer, (o, repairs) => {
  if (o["not_specified"] === undefined && typeof o["answer"] === "string") {
    o["not_specified"] = o["answer"].trim().toUpperCase() === NOT_SPECIFIED;
    repairs.push(`not_specified missing; ${String(o["not_specified"])} from the answer`);
  }
  if (o["quotes"] === undefined && o["not_specified"] === true) {
    o["quotes"] = [];
    repairs.push("quotes missing with NOT SPECIFIED; none");
  }
});

/**
 * The readers' answers to one question, each from its own prompt: the question and the
 * sections it needs, never another reader's answer. Undefined entries are lost answers.
 */
export async function readQuestion(
  ctx: StageContext,
  q: BuildQuestion,
  citedKeys: string[],
  quote: string,
): Promise<Array<ReaderAnswer | undefined>> {
  const context = readerContext(ctx.corpus, citedKeys, q.text, quote);
  return Promise.all(
    Array.from({ length: ctx.readers }, (_, i) => {
      const reader = i + 1;
      return tolerant(ctx, "readers", async () => {
        const { value } = await ctx.runner.run({
          stage: "readers",
          role: ctx.roles.reader,
          system: SYSTEM.reader,
          prompt: readerPrompt(reader, ctx.readers, q.text, context),
          schemaName: "reader_answer",
          schema: readerAnswer,
          salvage: readerSalvage,
          expectedTokensOut: EXPECTED_TOKENS_OUT.readers,
        });
        return readerAnswerOf(ctx.corpus, reader, value);
      });
    }),
  );
}
