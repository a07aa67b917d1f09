/**
 * Stage 5, claims (reviewer, one call per section): the section's factual claims, labelled
 * against the rest of the bundle. A label resting on quotes that are not in the bundle is
 * `unsupported`; a contradicted claim is a SHOULD finding.
 */
import { anchorQuote, contextFor, findQuote, mainSection, type CorpusSection } from "../corpus.js";
import { SYSTEM, claimsPrompt } from "../prompts.js";
import { listSalvager } from "../repair.js";
import { MAX_ITEMS, claimItem, claimsAnswer } from "../schemas.js";
import { EXPECTED_TOKENS_OUT, type Claim, type ClaimLabel, type ClaimSource } from "../types.js";
import type { StageContext } from "./context.js";

export function claimsStep(ctx: StageContext, s: CorpusSection) {
  const { corpus, profile } = ctx;
  const context = contextFor(corpus, [], s.text, { extra: 3 }).filter((c) => c.key !== s.key);
  return {
    stage: "claims",
    role: ctx.roles.reviewer,
    system: SYSTEM.claims,
    prompt: claimsPrompt(profile, s, context),
    schemaName: "claims",
    schema: claimsAnswer(profile.radar),
    salvage: listSalvager("claims", claimItem(profile.radar), MAX_ITEMS),
    expectedTokensOut: EXPECTED_TOKENS_OUT.claims,
  };
}

/**
 * The claims of one section, in the section's order. With grounding (a search connection),
 * each claim is searched and its web sources are added to its sources; they do not change
 * its label, which rests on the bundle's text.
 */
export async function claimsOf(ctx: StageContext, s: CorpusSection): Promise<Claim[]> {
  const { corpus } = ctx;
  const section = mainSection(corpus, s)!;
  const { value } = await ctx.runner.run(claimsStep(ctx, s));
  const claims = value.claims.map((raw) => {
    const { anchor } = anchorQuote(corpus, section, raw.quote);
    const sources: ClaimSource[] = raw.sources.map((text) => {
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
      id: ctx.ids.make(["claim", corpus.mainPath, anchor.heading_path.join(" > "), raw.text]),
      text: raw.text,
      label,
      category: raw.category,
      explanation,
      anchor,
      sources,
    };
    return claim;
  });
  const grounding = ctx.grounding;
  if (grounding)
    await Promise.all(claims.map(async (c) => c.sources.push(...(await grounding.sources(c.text)))));
  for (const claim of claims) {
    ctx.emit({ type: "claim", claim });
    if (claim.label === "contradicted")
      ctx.addFinding({
        id: ctx.ids.finding("claim-contradicted", claim.anchor),
        check: "claim-contradicted",
        level: "SHOULD",
        category: claim.category,
        message: `The text contradicts this claim: ${claim.text}`,
        anchor: claim.anchor,
        relaxed: false,
        stage: "claims",
      });
  }
  return claims;
}
