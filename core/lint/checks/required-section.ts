/** required-section: a section must exist (by heading pattern) and hold enough content. */
import { z } from "zod";
import { blocksIn, contentWords, docAnchorRange, headingRange, sectionsMatching } from "../helpers.js";
import { defineCheck } from "./define.js";

export const options = z.strictObject({
  section: z
    .string()
    .min(1)
    .describe('Heading pattern: end of the heading path, levels joined by ">", alternatives by "|"'),
  min_words: z
    .number()
    .int()
    .min(0)
    .default(1)
    .describe("Words of content the section needs, its subsections included; 0 only needs the heading"),
});

export const requiredSection = defineCheck({
  kind: "required-section",
  description: "A section must exist and hold at least min_words words of content",
  options,
  defaultMessage: "Section '{section}' {detail}",
  check(ctx) {
    const { doc, params } = ctx;
    const found = sectionsMatching(doc, params.section);
    const shown = params.section
      .split(">")
      .map((p) => p.split("|")[0]!.trim())
      .join(" > ");
    if (found.length === 0) {
      const [s, e] = docAnchorRange(doc);
      return [ctx.finding({ charStart: s, charEnd: e, detail: "is missing", vars: { section: shown } })];
    }
    if (params.min_words === 0) return [];
    let best = 0;
    for (const section of found) {
      let words = 0;
      for (const b of blocksIn(doc, section)) {
        words += contentWords(b);
        if (words >= params.min_words) return [];
      }
      best = Math.max(best, words);
    }
    const [s, e] = headingRange(doc, found[0]!);
    return [
      ctx.finding({
        charStart: s,
        charEnd: e,
        detail: `has ${best} word${best === 1 ? "" : "s"} of content; it needs at least ${params.min_words}`,
        vars: { section: found[0]!.title },
      }),
    ];
  },
});
