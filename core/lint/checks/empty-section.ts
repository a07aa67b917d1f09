/** empty-section: a heading with nothing under it (no content and no subsections). */
import { z } from "zod";
import {
  blocksIn,
  contentWords,
  headingRange,
  matchesHeadingPattern,
  parseHeadingPattern,
} from "../helpers.js";
import { defineCheck } from "./define.js";
import type { Finding } from "../types.js";

export const options = z.strictObject({
  min_words: z.number().int().min(1).default(1).describe("Words a section without subsections needs"),
  ignore: z.array(z.string().min(1)).default([]).describe("Heading patterns of sections allowed to be empty"),
});

export const emptySection = defineCheck({
  kind: "empty-section",
  description: "A section without subsections holds at least min_words words (HTML comments do not count)",
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
      let words = 0;
      for (const b of blocksIn(doc, section, true)) {
        words += contentWords(b);
        if (words >= params.min_words) break;
      }
      if (words >= params.min_words) continue;
      const [s, e] = headingRange(doc, section);
      findings.push(
        ctx.finding({
          charStart: s,
          charEnd: e,
          detail: words === 0 ? "is empty" : `has only ${words} word${words === 1 ? "" : "s"}`,
          vars: { section: section.title },
        }),
      );
    }
    return findings;
  },
});
