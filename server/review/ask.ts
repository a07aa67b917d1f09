/**
 * A question about bundles that are not saved (the App: `@spec-review ask …` on a pull
 * request, about the bundles it touches, read at its head). The reviewer role's model
 * answers from the sections of those bundles that share the most words with the question
 * (the corpus the review readers read), with sources: quotes found in that text (a quote
 * that is not there is dropped, never shown). The bundles' text and the question are
 * fenced as untrusted data (core/review/fence.ts).
 */
import { z } from "zod";
import { buildCorpus, contextFor, findQuote, sectionLabel, type Corpus } from "../../core/review/corpus.js";
import { fenceFor, FENCE_SYSTEM } from "../../core/review/fence.js";
import { textFiles } from "./bundle.js";
import { ReviewBase } from "./common.js";

const askAnswer = z.strictObject({
  answer: z.string().describe("the answer to the question, in short markdown"),
  quotes: z
    .array(z.string())
    .describe("verbatim quotes of the text the answer rests on, copied exactly from the sections given"),
});

const SYSTEM =
  "You answer a question about specifications, from their text only. Say so when the text does not " +
  `answer. ${FENCE_SYSTEM} Answer with JSON only.`;

/** One bundle asked about: its folder, files (by path inside it) and spec doc. */
export interface AskBundle {
  slug: string;
  files: ReadonlyMap<string, Uint8Array>;
  mainPath: string;
}

export interface AskAnswer {
  answer: string;
  /** Quotes found in the bundles' text, with the file they are in (from the repository's root). */
  sources: Array<{ file: string; quote: string }>;
}

const at = (slug: string, file: string) => (slug === "." || slug === "" ? file : `${slug}/${file}`);

export class FileQuestions extends ReviewBase {
  /**
   * The reviewer's answer. Throws `model_not_configured` (no model for the reviewer role),
   * `budget_exceeded` or `model_failed` as an ApiError.
   */
  async ask(bundles: readonly AskBundle[], question: string): Promise<AskAnswer> {
    const { reviewer } = await this.roles(["reviewer"]);
    const corpora: Array<{ slug: string; corpus: Corpus }> = bundles.map((b) => ({
      slug: b.slug,
      corpus: buildCorpus({ files: textFiles(b.files), mainPath: b.mainPath, linked: [] }),
    }));
    const per = Math.max(4_000, Math.floor(24_000 / Math.max(1, corpora.length)));
    const spec = corpora
      .flatMap(({ slug, corpus }) =>
        contextFor(corpus, [], question, { extra: 4, maxChars: per }).map(
          (s) => `=== ${at(slug, sectionLabel(s))} ===\n${s.text}`,
        ),
      )
      .join("\n\n");
    const f = fenceFor(spec, question);
    const value = await this.step({
      stage: "ask",
      role: { client: reviewer.client, model: reviewer.model },
      system: SYSTEM,
      prompt:
        `Someone asks about the specifications ${bundles.map((b) => b.slug).join(", ")}. ${f.rule}\n\n` +
        `Sections of the specifications:\n${f.wrap(spec || "(none found)", "spec")}\n\n` +
        `The question:\n${f.wrap(question, "question")}\n\n` +
        "Answer the question. Give the quotes of the sections above that your answer rests on.",
      schemaName: "ask_answer",
      schema: askAnswer,
      expectedTokensOut: 600,
    });
    const sources: AskAnswer["sources"] = [];
    for (const q of new Set(value.quotes.map((x) => x.trim())))
      for (const { slug, corpus } of corpora) {
        const hit = findQuote(corpus, q);
        if (hit) {
          sources.push({ file: at(slug, hit.file), quote: q });
          break;
        }
      }
    return { answer: value.answer, sources };
  }
}
