/** rfc2119: every requirement statement states its strength with an RFC 2119 keyword in capitals. */
import { z } from "zod";
import { escapeRegExp, firstLineRange, maskInline, sectionScope, statementsIn } from "../helpers.js";
import { defineCheck } from "./define.js";
import type { Finding } from "../types.js";
import type { Block, MarkdownDoc } from "../../markdown/document.js";

export const KEYWORDS = [
  "MUST",
  "MUST NOT",
  "REQUIRED",
  "SHALL",
  "SHALL NOT",
  "SHOULD",
  "SHOULD NOT",
  "RECOMMENDED",
  "MAY",
  "OPTIONAL",
];

export const options = z.strictObject({
  sections: z
    .array(z.string().min(1))
    .min(1)
    .describe("Heading patterns of the sections where requirements live"),
  keywords: z
    .array(z.string().min(1))
    .default(KEYWORDS)
    .describe("Keywords that count (matched in capitals)"),
});

/**
 * Starts of the top-level list items a lead-in covers: a paragraph right before the list
 * that holds a keyword and ends with a colon ("The client MUST:") binds every item of it.
 */
function coveredByLeadIn(doc: MarkdownDoc, keyword: RegExp): Set<number> {
  const covered = new Set<number>();
  let lead: Block | undefined;
  let leadBinds = false;
  for (const b of doc.blocks) {
    if (b.listDepth > 0) {
      if (b.kind === "list_item" && b.listDepth === 1 && leadBinds) covered.add(b.charStart);
      continue;
    }
    if (b.kind === "list_item") continue;
    lead = b.kind === "paragraph" ? b : undefined;
    leadBinds = lead !== undefined && /:\s*$/.test(lead.text) && keyword.test(maskInline(lead.text));
  }
  return covered;
}

export const rfc2119 = defineCheck({
  kind: "rfc2119",
  description: "Every requirement statement (list item, table row) carries an RFC 2119 keyword in capitals",
  options,
  defaultMessage: "Requirement {detail}",
  check(ctx) {
    const { doc, params, profile } = ctx;
    const words = params.keywords.map(escapeRegExp).join("|");
    const upper = new RegExp(`(?<![\\p{L}\\p{N}])(?:${words})(?![\\p{L}\\p{N}])`, "u");
    const lower = new RegExp(`(?<![\\p{L}\\p{N}])(?:${words})(?![\\p{L}\\p{N}])`, "iu");
    const idStart =
      profile.verify_prefixes.length > 0
        ? new RegExp(`^(?:${profile.verify_prefixes.map(escapeRegExp).join("|")})-[\\p{L}\\p{N}_]+`, "u")
        : undefined;
    const findings: Finding[] = [];
    const covered = coveredByLeadIn(doc, upper);
    for (const st of statementsIn(doc, sectionScope(doc, params.sections), idStart)) {
      const source = maskInline(st.source);
      if (upper.test(source) || (st.kind === "list_item" && covered.has(st.charStart))) continue;
      const low = lower.exec(source);
      const [s, e] = firstLineRange(doc.text, st.charStart, st.charEnd);
      findings.push(
        ctx.finding({
          charStart: s,
          charEnd: e,
          detail: low
            ? `says '${low[0]}' in lowercase: write ${low[0].toUpperCase()} when it is a requirement`
            : "has no RFC 2119 keyword (MUST, SHOULD, MAY…): say how binding it is",
        }),
      );
    }
    return findings;
  },
});
