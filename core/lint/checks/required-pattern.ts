/**
 * required-pattern: something the doc must say somewhere, found by a pattern: a link to
 * the tracking issue in the header list, a "Status:" line, a sign-off. Anywhere in the
 * doc (frontmatter included), or only in given sections.
 */
import { z } from "zod";
import { docAnchorRange, escapeRegExp, headingRange, patternLabel, sectionsMatching } from "../helpers.js";
import { defineCheck } from "./define.js";

export const options = z
  .strictObject({
    patterns: z
      .array(z.string().min(1))
      .default([])
      .describe("Regular expressions (JavaScript syntax); one match of any of them is enough"),
    phrases: z.array(z.string().min(1)).default([]).describe("Literal phrases; one of them is enough"),
    case_sensitive: z.boolean().default(false),
    sections: z
      .array(z.string().min(1))
      .default([])
      .describe("Only look in these sections (heading patterns); empty: the whole file"),
    what: z
      .string()
      .min(1)
      .default("the required text")
      .describe('What is looked for, for the message ("a link to the tracking issue")'),
  })
  .refine((o) => o.phrases.length + o.patterns.length > 0, "give at least one phrase or pattern");

const compiled = new WeakMap<object, RegExp | Error>();

function compile(params: z.output<typeof options>): RegExp | Error {
  let re = compiled.get(params);
  if (!re) {
    try {
      const parts = [...params.phrases.map(escapeRegExp), ...params.patterns.map((p) => `(?:${p})`)];
      re = new RegExp(parts.join("|"), params.case_sensitive ? "mu" : "imu");
    } catch (err) {
      re = err instanceof Error ? err : new Error(String(err));
    }
    compiled.set(params, re);
  }
  return re;
}

export const requiredPattern = defineCheck({
  kind: "required-pattern",
  description: "Text matching a pattern appears in the doc, or in given sections (a tracking issue link)",
  options,
  defaultMessage: "The doc does not give {what}{detail}",
  check(ctx) {
    const { doc, params } = ctx;
    const re = compile(params);
    if (re instanceof Error) {
      const [s, e] = docAnchorRange(doc);
      return [
        ctx.finding({
          charStart: s,
          charEnd: e,
          detail: `: the pattern is invalid (${re.message})`,
          vars: { what: params.what },
        }),
      ];
    }
    if (params.sections.length === 0) {
      if (re.test(doc.text)) return [];
      const [s, e] = docAnchorRange(doc);
      return [ctx.finding({ charStart: s, charEnd: e, detail: "", vars: { what: params.what } })];
    }
    const found = params.sections.flatMap((p) => sectionsMatching(doc, p));
    for (const section of found)
      if (re.test(doc.text.slice(section.contentCharStart, section.charEnd))) return [];
    // A missing section is required-section's finding; here the doc's first line.
    const [s, e] = found.length > 0 ? headingRange(doc, found[0]!) : docAnchorRange(doc);
    return [
      ctx.finding({
        charStart: s,
        charEnd: e,
        detail:
          found.length > 0
            ? ` in section '${found[0]!.title}'`
            : ` (in '${patternLabel(params.sections[0]!)}')`,
        vars: { what: params.what },
      }),
    ];
  },
});
