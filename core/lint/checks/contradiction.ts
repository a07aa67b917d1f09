/**
 * contradiction: two requirement sentences that say the same thing with different
 * numbers ("p99 latency MUST be under 200 ms" and, later, "... under 500 ms"; "retain
 * logs for 30 days" and "for 90 days"), or one says MUST and the other MUST NOT of the
 * same action. Deterministic: sentences are compared by what they say with their
 * quantities taken out (core/lint/claims.ts), units converted (0.5 s is 500 ms).
 *
 * Precision before recall: only sentences that match word for word (articles aside)
 * are compared, examples and sentences about the past are not read, and sentences in
 * sibling subsections of one section (per stage, per tier, per environment: "### Beta",
 * "### GA") are parallel cases, not contradictions. One trace ID defined twice is the
 * trace-id check's business.
 */
import { z } from "zod";
import { claimsOf, type Claim } from "../claims.js";
import { sectionScope } from "../helpers.js";
import { searchScope } from "./forbidden-pattern.js";
import { defineCheck } from "./define.js";
import type { Finding } from "../types.js";
import type { MarkdownDoc } from "../../markdown/document.js";

/** Sections that describe what was not chosen, the past or examples: not requirements. */
export const NOT_REQUIREMENTS = [
  "Alternatives*",
  "Considered options|Options considered|Options|Pros and cons*|Rejected*",
  "Drawbacks|Prior art|Rationale and alternatives",
  "Unresolved questions|Open questions|Open issues|Future*",
  "Example*|Appendix*|History|Changelog|Version history|Implementation history|Glossary|References",
  "Current state|Status quo|Benchmarks|Results",
];

export const options = z.strictObject({
  sections: z
    .array(z.string().min(1))
    .default([])
    .describe(
      "Heading patterns of the sections where requirements live: every sentence there with a number is compared; elsewhere only sentences with must, shall, should, will or required",
    ),
  exclude_sections: z
    .array(z.string().min(1))
    .default(NOT_REQUIREMENTS)
    .describe("Heading patterns of sections not read (alternatives, history, examples, open questions)"),
});

function shown(text: string, c: Claim): string {
  return c.quantities.map((q) => text.slice(q.start, q.end)).join(", ");
}

/** Are two claims in parallel cases: different subsections of one section below the title? */
function parallel(doc: MarkdownDoc, a: number, b: number): boolean {
  if (a === b) return false;
  const ancestors = new Set<number>();
  for (let s = a; s >= 0; s = doc.sections[s]!.parent) ancestors.add(s);
  let common = b;
  while (common >= 0 && !ancestors.has(common)) common = doc.sections[common]!.parent;
  // A common ancestor at ## or deeper: the two are cases of one topic (Alpha/Beta, Free/Pro).
  return common >= 0 && doc.sections[common]!.level >= 2;
}

function differ(a: Claim, b: Claim): boolean {
  if (a.quantities.length !== b.quantities.length) return false;
  return a.quantities.some((q, i) => {
    const r = b.quantities[i]!;
    return (
      q.dim === r.dim && Math.abs(q.value - r.value) > 1e-9 * Math.max(Math.abs(q.value), Math.abs(r.value))
    );
  });
}

export const contradiction = defineCheck({
  kind: "contradiction",
  description:
    "Two requirement sentences say the same thing with different numbers or units, or MUST and MUST NOT of the same action",
  options,
  defaultMessage: "Contradiction: {detail}",
  check(ctx) {
    const { doc, params } = ctx;
    const scope = searchScope(doc, ["*"], params.exclude_sections);
    const requirements = params.sections.length > 0 ? sectionScope(doc, params.sections) : new Set<number>();
    const claims = claimsOf(doc, (s) => scope[s] === true, requirements);
    const findings: Finding[] = [];
    const byKey = new Map<string, Claim[]>();
    const byAction = new Map<string, Claim[]>();
    for (const c of claims) {
      const line = (x: Claim) => doc.index.lineOfChar(x.start) + 1;
      if (c.quantities.length > 0) {
        const earlier = (byKey.get(c.key) ?? []).find(
          (e) => !parallel(doc, e.section, c.section) && differ(e, c),
        );
        if (earlier) {
          const first = c.quantities[0]!;
          findings.push(
            ctx.finding({
              charStart: first.start,
              charEnd: c.quantities[c.quantities.length - 1]!.end,
              detail: `'${shown(doc.text, c)}' here, but '${shown(doc.text, earlier)}' at line ${line(earlier)} for the same requirement: say which one holds`,
              vars: { line: String(line(earlier)) },
            }),
          );
        }
        byKey.set(c.key, [...(byKey.get(c.key) ?? []), c]);
      }
      if (c.negated !== undefined) {
        const opposed = (byAction.get(c.actionKey) ?? []).find(
          (e) => e.negated !== c.negated && !parallel(doc, e.section, c.section),
        );
        if (opposed) {
          findings.push(
            ctx.finding({
              charStart: c.start,
              charEnd: c.end,
              detail: `${c.negated ? "NOT" : "required"} here, but ${opposed.negated ? "NOT" : "required"} at line ${line(opposed)} for the same action: say which one holds`,
              vars: { line: String(line(opposed)) },
            }),
          );
        }
        byAction.set(c.actionKey, [...(byAction.get(c.actionKey) ?? []), c]);
      }
    }
    return findings;
  },
});
