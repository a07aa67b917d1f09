/** forbidden-pattern: phrases or patterns that must not appear in the prose (TBD, TODO, "etc.", weasel words). */
import { z } from "zod";
import {
  escapeRegExp,
  isProse,
  maskedSource,
  matchesHeadingPattern,
  parseHeadingPattern,
} from "../helpers.js";
import type { MarkdownDoc } from "../../markdown/document.js";
import { defineCheck } from "./define.js";
import type { Finding } from "../types.js";

export const options = z
  .strictObject({
    phrases: z.array(z.string().min(1)).default([]).describe("Literal phrases, matched as whole words"),
    patterns: z
      .array(z.string().min(1))
      .default([])
      .describe("Regular expressions (JavaScript syntax, no flags)"),
    case_sensitive: z.boolean().default(false),
    sections: z
      .array(z.string().min(1))
      .default([])
      .describe(
        'Only look in these sections (heading patterns) and their subsections; empty or "*": the whole body',
      ),
    exclude_sections: z
      .array(z.string().min(1))
      .default([])
      .describe(
        "Leave out these sections (heading patterns) and their subsections, e.g. where open questions are expected; the innermost section named decides",
      ),
    include_code: z.boolean().default(false).describe("Also look inside code blocks and code spans"),
    max_per_doc: z.number().int().min(1).default(50).describe("Stop reporting after this many matches"),
  })
  .refine((o) => o.phrases.length + o.patterns.length > 0, "give at least one phrase or pattern");

const compiled = new WeakMap<object, RegExp>();

function compile(params: z.output<typeof options>): RegExp {
  let re = compiled.get(params);
  if (!re) {
    re = build(params);
    compiled.set(params, re);
  }
  return re;
}

function build(params: z.output<typeof options>): RegExp {
  const parts = params.phrases.map((p) => {
    const body = escapeRegExp(p);
    // Whole words: no letter or digit right before or after (a phrase may end in punctuation, like "etc.").
    return `(?<![\\p{L}\\p{N}_])${body}${/[\p{L}\p{N}_]$/u.test(p) ? "(?![\\p{L}\\p{N}_])" : ""}`;
  });
  for (const p of params.patterns) parts.push(`(?:${p})`);
  return new RegExp(parts.join("|"), params.case_sensitive ? "gu" : "giu");
}

/**
 * Which sections are searched. The innermost section named decides: a section named in
 * `exclude_sections` is left out with its subsections, unless a subsection is named in
 * `sections` again ("Design details" searched, its "Graduation criteria" not; or the
 * other way round). `sections` empty, or holding "*", starts from the whole doc.
 */
export function searchScope(
  doc: MarkdownDoc,
  sections: readonly string[],
  exclude: readonly string[],
): boolean[] {
  const include = sections.filter((p) => p.trim() !== "*").map(parseHeadingPattern);
  const leave = exclude.map(parseHeadingPattern);
  const all = sections.length === 0 || include.length < sections.length;
  const state: boolean[] = [];
  for (const s of doc.sections) {
    if (s.level === 0) state.push(all);
    else if (leave.some((p) => matchesHeadingPattern(s, p))) state.push(false);
    else if (include.some((p) => matchesHeadingPattern(s, p))) state.push(true);
    else state.push(state[s.parent] ?? all);
  }
  return state;
}

export const forbiddenPattern = defineCheck({
  kind: "forbidden-pattern",
  description: "Phrases or patterns that must not appear in the prose: TBD, TODO, etc., weasel words",
  options,
  defaultMessage: "'{match}' {detail}",
  check(ctx) {
    const { doc, params } = ctx;
    let re: RegExp;
    try {
      re = compile(params);
    } catch (err) {
      const [s, e] = [doc.bodyCharStart, doc.bodyCharStart];
      return [
        ctx.finding({
          charStart: s,
          charEnd: e,
          detail: `cannot be checked: invalid pattern (${err instanceof Error ? err.message : String(err)})`,
          vars: { match: "pattern" },
        }),
      ];
    }
    const scope = searchScope(doc, params.sections, params.exclude_sections);
    const findings: Finding[] = [];
    for (const b of doc.blocks) {
      if (!scope[b.section]) continue;
      if (!(isProse(b) || (params.include_code && b.kind === "code"))) continue;
      const source = params.include_code ? doc.text.slice(b.charStart, b.charEnd) : maskedSource(doc, b);
      re.lastIndex = 0;
      for (let m = re.exec(source); m; m = re.exec(source)) {
        if (m[0] === "") {
          re.lastIndex++;
          continue;
        }
        findings.push(
          ctx.finding({
            charStart: b.charStart + m.index,
            charEnd: b.charStart + m.index + m[0].length,
            detail: "is not allowed here",
            vars: { match: m[0] },
          }),
        );
        if (findings.length >= params.max_per_doc) return findings;
      }
    }
    return findings;
  },
});
