/**
 * required-section: a section with a given role exists (by any of its names, at any
 * depth) and says something: a sentence, a list, a table or a code block.
 */
import { z } from "zod";
import {
  docAnchorRange,
  headingRange,
  patternLabel,
  sectionContent,
  sectionHasContent,
  sectionsMatching,
} from "../helpers.js";
import { defineCheck } from "./define.js";

export const options = z.strictObject({
  section: z
    .string()
    .min(1)
    .describe(
      'Heading pattern: names of the role joined by "|" (a name, a "prefix*" or a "/regex/"), levels by ">"',
    ),
  min_words: z
    .number()
    .int()
    .min(0)
    .default(2)
    .describe(
      "Words of prose that count as content (a sentence); a list, table or code block always counts. 0 only needs the heading",
    ),
});

export const requiredSection = defineCheck({
  kind: "required-section",
  description:
    "A section with this role exists, at any depth, and holds content: a sentence, a list, a table or code",
  options,
  defaultMessage: "Section '{section}' {detail}",
  check(ctx) {
    const { doc, params } = ctx;
    const found = sectionsMatching(doc, params.section);
    if (found.length === 0) {
      const [s, e] = docAnchorRange(doc);
      return [
        ctx.finding({
          charStart: s,
          charEnd: e,
          detail: "is missing",
          vars: { section: patternLabel(params.section) },
        }),
      ];
    }
    if (params.min_words === 0) return [];
    if (found.some((section) => sectionHasContent(doc, section, params.min_words))) return [];
    let best = 0;
    for (const section of found)
      best = Math.max(best, sectionContent(doc, section, params.min_words).rawWords);
    const [s, e] = headingRange(doc, found[0]!);
    return [
      ctx.finding({
        charStart: s,
        charEnd: e,
        detail:
          best === 0
            ? "is empty: write a sentence or a list"
            : `has ${best} word${best === 1 ? "" : "s"} and no content yet: write a sentence or a list`,
        vars: { section: found[0]!.title },
      }),
    ];
  },
});
