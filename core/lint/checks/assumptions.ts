/**
 * assumptions: counts sentences opening with `Assumption:`. They are what the authors
 * took for granted; the review asks someone to confirm each. `findAssumptions` is also
 * the source of the assumptions list the API serves.
 */
import { z } from "zod";
import { isProse, maskInline } from "../helpers.js";
import { defineCheck } from "./define.js";
import type { Finding } from "../types.js";
import type { MarkdownDoc } from "../../markdown/document.js";

export const options = z.strictObject({
  max: z.number().int().min(0).optional().describe("Report when the doc holds more assumptions than this"),
  each: z.boolean().default(false).describe("Report every assumption (to be confirmed) as a finding"),
});

export interface AssumptionRange {
  /** The sentence without its `Assumption:` label and markup. */
  text: string;
  /** Range of the whole sentence, label included, in `doc.text`. */
  charStart: number;
  charEnd: number;
}

// The label opens a sentence: at the start of a block or line (after list markers,
// quote markers or emphasis), or after the end of a previous sentence.
const LABEL =
  /(^|\n|\|[ \t]*|[.!?]["')\]]*[ \t]+)([ \t]*(?:(?:[-*+]|\d+[.)])[ \t]+)?(?:>[ \t]*)?)([*_]{0,2}Assumption[*_]{0,2}:[*_]{0,2})/g;

/** Sentences opening with `Assumption:`, in document order. */
export function findAssumptions(doc: MarkdownDoc): AssumptionRange[] {
  const out: AssumptionRange[] = [];
  for (const b of doc.blocks) {
    if (!isProse(b) || b.kind === "heading") continue;
    const raw = doc.text.slice(b.charStart, b.charEnd);
    if (raw.indexOf("Assumption") < 0) continue;
    const source = maskInline(raw);
    LABEL.lastIndex = 0;
    for (let m = LABEL.exec(source); m; m = LABEL.exec(source)) {
      const start = m.index + m[1]!.length + m[2]!.length;
      const bodyFrom = m.index + m[0].length;
      // The sentence ends at . ! ? followed by a space or the end, at a blank line, or at a table cell end.
      const rest = source.slice(bodyFrom);
      const end = /[.!?](?=["')\]*_]*(?:\s|$))|\n\s*\n|\|/.exec(rest);
      let stop = end
        ? bodyFrom + end.index + (end[0] === "|" || end[0].startsWith("\n") ? 0 : 1)
        : source.length;
      while (stop > bodyFrom && /\s/.test(source[stop - 1]!)) stop--;
      const sentence = raw.slice(bodyFrom, stop).replace(/[*_`]/g, "").replace(/\s+/g, " ").trim();
      if (sentence === "") continue;
      out.push({ text: sentence, charStart: b.charStart + start, charEnd: b.charStart + stop });
      LABEL.lastIndex = Math.max(LABEL.lastIndex, stop);
    }
  }
  return out;
}

export const assumptions = defineCheck({
  kind: "assumptions",
  description: "Counts sentences opening with 'Assumption:'; reports too many, or each one to confirm",
  options,
  defaultMessage: "{detail}",
  check(ctx) {
    const { doc, params } = ctx;
    const found = findAssumptions(doc);
    const findings: Finding[] = [];
    if (params.each)
      for (const a of found)
        findings.push(
          ctx.finding({
            charStart: a.charStart,
            charEnd: a.charEnd,
            detail: `Assumption to confirm: ${a.text}`,
          }),
        );
    if (params.max !== undefined && found.length > params.max) {
      const first = found[params.max]!;
      findings.push(
        ctx.finding({
          charStart: first.charStart,
          charEnd: first.charEnd,
          detail: `The doc rests on ${found.length} assumptions (at most ${params.max}): confirm some and state them as facts`,
          vars: { count: String(found.length) },
        }),
      );
    }
    return findings;
  },
});
