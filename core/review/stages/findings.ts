/**
 * Stage 6, findings (reviewer, one call per section): problems with a level, a category, a
 * message and a quote; a quote not found in the text anchors to the section's heading line.
 */
import { anchorQuote, mainSection, type CorpusSection } from "../corpus.js";
import { SYSTEM, findingsPrompt } from "../prompts.js";
import { listSalvager } from "../repair.js";
import { MAX_ITEMS, findingItem, findingsAnswer } from "../schemas.js";
import { EXPECTED_TOKENS_OUT } from "../types.js";
import type { StageContext } from "./context.js";

export function findingsStep(ctx: StageContext, s: CorpusSection) {
  const radar = ctx.profile.radar;
  return {
    stage: "findings",
    role: ctx.roles.reviewer,
    system: SYSTEM.findings,
    prompt: findingsPrompt(ctx.profile, s),
    schemaName: "findings",
    schema: findingsAnswer(radar),
    salvage: listSalvager("findings", findingItem(radar), MAX_ITEMS),
    expectedTokensOut: EXPECTED_TOKENS_OUT.findings,
  };
}

export async function findingsOf(ctx: StageContext, s: CorpusSection): Promise<void> {
  const { corpus } = ctx;
  const section = mainSection(corpus, s)!;
  const { value } = await ctx.runner.run(findingsStep(ctx, s));
  for (const raw of value.findings) {
    const { anchor, located } = anchorQuote(corpus, section, raw.quote);
    ctx.addFinding({
      id: ctx.ids.finding("ai-review", anchor),
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
