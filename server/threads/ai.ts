/**
 * The AI in a thread: the reviewer role's model answers the conversation from the bundle
 * and the main docs of its linked bundles (the same corpus the review readers read), with
 * `sources`: quotes it gives that are found in that text (checked like reader quotes,
 * whitespace and quote marks aside). A quote that is not there is dropped, never shown as
 * a source. Everything the model reads from the bundle and the thread is fenced as
 * untrusted data (core/review/fence.ts).
 */
import { z } from "zod";
import { buildCorpus, contextFor, findQuote, sectionLabel, type Corpus } from "../../core/review/corpus.js";
import { fenceFor, FENCE_SYSTEM } from "../../core/review/fence.js";
import { ApiError } from "../errors.js";
import { loadReviewBundle } from "../review/bundle.js";
import { ReviewBase } from "../review/common.js";
import type { MessageRow, ThreadRow } from "./views.js";

export const threadAnswer = z.strictObject({
  answer: z.string().describe("the answer to the last message, in short markdown"),
  quotes: z
    .array(z.string())
    .describe("verbatim quotes of the text the answer rests on, copied exactly from the sections given"),
});

const SYSTEM =
  "You answer questions about a specification in a review thread, from its text only. Say so when the " +
  `text does not answer. ${FENCE_SYSTEM} Answer with JSON only.`;

/** What the model says, with the quotes found in the corpus. */
export interface AiReply {
  body: string;
  sources: string[];
}

function anchorText(t: ThreadRow): string {
  const a = t.anchor;
  switch (t.anchorKind) {
    case "text":
      return `the text ${JSON.stringify(a.quote)} in ${String(a.file)}`;
    case "section":
      return `the section ${(a.heading_path as string[]).join(" › ")}`;
    case "finding":
      return `finding ${String(a.finding_id)} of check ${String(a.check_slug)}`;
    default:
      return `check ${String(a.check_slug)}`;
  }
}

export function threadPrompt(corpus: Corpus, t: ThreadRow, messages: readonly MessageRow[]): string {
  const talk = messages.map((m) => `${m.authorName} (${m.authorKind}): ${m.body}`).join("\n\n");
  const heading = t.anchorKind === "section" ? (t.anchor.heading_path as string[]).join(" ") : "";
  const quote = t.anchorKind === "text" ? String(t.anchor.quote) : "";
  const sections = contextFor(corpus, [], [t.title, heading, quote, talk].join("\n"), { extra: 4 });
  const spec = sections.map((s) => `=== ${sectionLabel(s)} ===\n${s.text}`).join("\n\n");
  const f = fenceFor(spec, talk, t.title);
  return (
    `A review thread titled ${JSON.stringify(t.title)} is about ${anchorText(t)}. ${f.rule}\n\n` +
    `Sections of the specification and its linked specifications:\n${f.wrap(spec || "(none found)", "spec")}\n\n` +
    `The thread so far:\n${f.wrap(talk, "thread")}\n\n` +
    `Answer the last message. Give the quotes of the sections above that your answer rests on.`
  );
}

export class ThreadAi extends ReviewBase {
  /**
   * The model's answer to the thread, from the bundle's current version. Throws
   * `model_not_configured` (no model for the reviewer role), `budget_exceeded` or
   * `model_failed` as an ApiError.
   */
  async answer(t: ThreadRow, messages: readonly MessageRow[]): Promise<AiReply> {
    const { reviewer } = await this.roles(["reviewer"]);
    if (!t.docId) throw new ApiError("not_found", "an AI thread needs a doc");
    const { store } = this.deps;
    const rec = await store.doc(t.docId);
    const files = await store.snapshot(rec.head.id);
    const bundle = await loadReviewBundle(this.db, store, {
      bundleId: rec.bundle.id,
      slug: rec.bundle.slug,
      mainPath: rec.doc.path,
      files,
    });
    const corpus = buildCorpus(bundle);
    const value = await this.step({
      stage: "thread",
      role: { client: reviewer.client, model: reviewer.model },
      system: SYSTEM,
      prompt: threadPrompt(corpus, t, messages),
      schemaName: "thread_answer",
      schema: threadAnswer,
      expectedTokensOut: 500,
    });
    const sources = [...new Set(value.quotes.map((q) => q.trim()))].filter(
      (q) => findQuote(corpus, q) !== undefined,
    );
    return { body: value.answer, sources };
  }
}
