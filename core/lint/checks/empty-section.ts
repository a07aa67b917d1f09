/** empty-section: a heading with nothing under it (no content and no subsections). */
import { z } from "zod";
import {
  headingRange,
  matchesHeadingPattern,
  parseHeadingPattern,
  sectionContent,
  sectionHasContent,
} from "../helpers.js";
import { defineCheck } from "./define.js";
import type { Finding } from "../types.js";

export const options = z.strictObject({
  min_words: z
    .number()
    .int()
    .min(1)
    .default(1)
    .describe(
      "Words of prose a section without subsections needs; a list, table or code block always counts",
    ),
  ignore: z.array(z.string().min(1)).default([]).describe("Heading patterns of sections allowed to be empty"),
});

export const emptySection = defineCheck({
  kind: "empty-section",
  description:
    "A section without subsections holds content (HTML comments and placeholders such as TBD do not count)",
  options,
  defaultMessage: "Section '{section}' {detail}",
  check(ctx) {
    const { doc, params } = ctx;
    const ignore = params.ignore.map(parseHeadingPattern);
    const hasChild = new Set(doc.sections.map((s) => s.parent));
    const findings: Finding[] = [];
    for (const section of doc.sections) {
      if (section.level === 0 || hasChild.has(section.index)) continue;
      if (ignore.some((p) => matchesHeadingPattern(section, p))) continue;
      if (sectionHasContent(doc, section, params.min_words, true)) continue;
      const c = sectionContent(doc, section, params.min_words, true);
      const [s, e] = headingRange(doc, section);
      findings.push(
        ctx.finding({
          charStart: s,
          charEnd: e,
          detail:
            c.rawWords === 0
              ? "is empty"
              : `has only ${c.rawWords} word${c.rawWords === 1 ? "" : "s"} and no content yet`,
          vars: { section: section.title },
        }),
      );
    }
    return findings;
  },
});
