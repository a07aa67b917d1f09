/**
 * measurable: a statement that speaks of a quantity (a latency, a limit, "within",
 * "at most") gives a number. "Responses MUST return within 200 ms" passes; "Responses
 * MUST return quickly" and "within a short time" do not. Statements with no quantity
 * word at all ("The service MUST be stateless") are not this check's business.
 */
import { z } from "zod";
import { escapeRegExp, firstLineRange, maskInline, sectionScope, statementsIn } from "../helpers.js";
import { defineCheck } from "./define.js";
import { vagueQuantities } from "./vague-quantity.js";
import type { Finding } from "../types.js";

export const QUANTITY_WORDS = [
  "within",
  "under",
  "below",
  "above",
  "over",
  "less than",
  "more than",
  "fewer than",
  "at most",
  "at least",
  "up to",
  "no more than",
  "no less than",
  "latency",
  "throughput",
  "timeout",
  "availability",
  "uptime",
  "percentile",
  "per second",
  "per minute",
  "per hour",
  "per day",
  "per request",
  "rate",
  "budget",
  "limit",
  "capacity",
  "size",
  "duration",
  "retention",
  "fast",
  "quickly",
  "slow",
  "low",
  "high",
];

export const options = z.strictObject({
  sections: z
    .array(z.string().min(1))
    .min(1)
    .describe("Heading patterns of the sections where constraints live (NFRs, SLOs, limits)"),
  quantity_words: z
    .array(z.string().min(1))
    .default(QUANTITY_WORDS)
    .describe("Words that make a statement about a quantity"),
  number: z
    .string()
    .default(
      "(?<![\\p{L}\\p{N}_.-])\\d[\\d,.]*(?:%|(?:st|nd|rd|th|ms|s|m|h|d|k|K|M|G|[KMGT]i?B|x)?(?![\\p{L}\\p{N}]))|\\b(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|twice|once|half|double)\\b",
    )
    .describe(
      "Regular expression of what counts as a number (digits inside names such as p99, REQ-001 or 2xx do not)",
    ),
});

export const measurable = defineCheck({
  kind: "measurable",
  description: "A constraint that speaks of a quantity (latency, limit, 'within', 'at most') gives a number",
  options,
  defaultMessage: "Constraint {detail}",
  check(ctx) {
    const { doc, params } = ctx;
    const words = new RegExp(
      `(?<![\\p{L}\\p{N}])(?:${params.quantity_words.map(escapeRegExp).join("|")})(?![\\p{L}\\p{N}])`,
      "iu",
    );
    let number: RegExp;
    try {
      number = new RegExp(params.number, "iu");
    } catch {
      number = /\d/;
    }
    const findings: Finding[] = [];
    // A vague quantity ("within a reasonable time") is reported at its words by the
    // profile's vague-quantity check: one defect, one finding.
    const vague = ctx.profile.checks.some((c) => c.kind === "vague-quantity");
    for (const st of statementsIn(doc, sectionScope(doc, params.sections))) {
      const source = maskInline(st.source);
      const w = words.exec(source);
      if (!w || number.test(source)) continue;
      if (vague && vagueQuantities(source).length > 0) continue;
      const [s, e] = firstLineRange(doc.text, st.charStart, st.charEnd);
      findings.push(
        ctx.finding({
          charStart: s,
          charEnd: e,
          detail: `speaks of a quantity ('${w[0]}') but gives no number: say how much, how fast or how many`,
        }),
      );
    }
    return findings;
  },
});
