/** section-order: sections that exist appear in the given order. */
import { z } from "zod";
import { headingRange, matchesHeadingPattern, parseHeadingPattern } from "../helpers.js";
import { defineCheck } from "./define.js";
import type { Finding } from "../types.js";

export const options = z.strictObject({
  order: z
    .array(z.string().min(1))
    .min(2)
    .describe("Heading patterns in the order their sections must appear"),
});

export const sectionOrder = defineCheck({
  kind: "section-order",
  description: "Sections that exist appear in the given order (missing ones are required-section's business)",
  options,
  defaultMessage: "Section '{section}' {detail}",
  check(ctx) {
    const { doc, params } = ctx;
    const patterns = params.order.map(parseHeadingPattern);
    const findings: Finding[] = [];
    // First section matching each pattern, in the pattern order.
    let lastIndex = -1;
    let lastName = "";
    patterns.forEach((pattern) => {
      const section = doc.sections.find((s) => s.level > 0 && matchesHeadingPattern(s, pattern));
      if (!section) return;
      if (section.index < lastIndex) {
        const [s, e] = headingRange(doc, section);
        findings.push(
          ctx.finding({
            charStart: s,
            charEnd: e,
            detail: `should come after '${lastName}'`,
            vars: { section: section.title },
          }),
        );
        return;
      }
      lastIndex = section.index;
      lastName = section.title;
    });
    return findings;
  },
});
