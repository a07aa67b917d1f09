/** trace-id: trace IDs have the right format, are defined once, and every requirement carries one. */
import { z } from "zod";
import { escapeRegExp, firstLineRange, isProse, sectionScope, statementsIn, stripLead } from "../helpers.js";
import { defineCheck } from "./define.js";
import type { Finding } from "../types.js";
import type { MarkdownDoc } from "../../markdown/document.js";

export const options = z.strictObject({
  prefixes: z
    .array(z.string().regex(/^(?:[A-Z][A-Z0-9]*|\*)$/))
    .default([])
    .describe(
      'ID prefixes (REQ for REQ-001); "*" for any prefix of 2 to 10 capitals and digits (WH-001, REF-12); empty: the profile\'s verify_prefixes',
    ),
  format: z.string().default("\\d{3,}").describe("Regular expression for the part after 'PREFIX-'"),
  unique: z.boolean().default(true).describe("Report an ID defined (opening a statement) more than once"),
  require_ids: z
    .boolean()
    .default(true)
    .describe("With sections: report a statement there that does not open with an ID"),
  check_format: z
    .boolean()
    .default(true)
    .describe("Report IDs that do not have the format (off when another trace-id check already does)"),
  sections: z
    .array(z.string().min(1))
    .default([])
    .describe(
      "Heading patterns of the sections where requirements live; each statement there must open with an ID",
    ),
});

export interface TraceIdOccurrence {
  id: string;
  prefix: string;
  charStart: number;
  charEnd: number;
}

/** The prefixes as regex alternatives; "*" stands for any run of 2 to 10 capitals and digits. */
export function prefixAlternatives(prefixes: readonly string[]): string {
  return prefixes.map((p) => (p === "*" ? "[A-Z][A-Z0-9]{1,9}" : escapeRegExp(p))).join("|");
}

/** Every `PREFIX-xxx` token in the prose of the doc. */
export function traceIdsIn(doc: MarkdownDoc, prefixes: readonly string[]): TraceIdOccurrence[] {
  if (prefixes.length === 0) return [];
  const re = new RegExp(`(?<![\\p{L}\\p{N}_-])(${prefixAlternatives(prefixes)})-([\\p{L}\\p{N}_]+)`, "gu");
  const out: TraceIdOccurrence[] = [];
  for (const b of doc.blocks) {
    if (!isProse(b)) continue;
    const source = doc.text.slice(b.charStart, b.charEnd);
    re.lastIndex = 0;
    for (let m = re.exec(source); m; m = re.exec(source))
      out.push({
        id: m[0],
        prefix: m[1]!,
        charStart: b.charStart + m.index,
        charEnd: b.charStart + m.index + m[0].length,
      });
  }
  return out;
}

export const traceId = defineCheck({
  kind: "trace-id",
  description: "Trace IDs match the format, are defined once, and every requirement statement opens with one",
  options,
  defaultMessage: "{detail}",
  check(ctx) {
    const { doc, params } = ctx;
    const prefixes = params.prefixes.length > 0 ? params.prefixes : ctx.profile.verify_prefixes;
    if (prefixes.length === 0) return [];
    const findings: Finding[] = [];
    let format: RegExp;
    try {
      format = new RegExp(`^(?:${params.format})$`, "u");
    } catch {
      format = /^\d{3,}$/;
    }
    // "*" finds IDs where statements open; formats are checked for the named prefixes only
    // (UTF-8 or SHA-256 in prose are not trace IDs).
    const named = prefixes.filter((p) => p !== "*");
    const occurrences = traceIdsIn(
      doc,
      named.length > 0 || !prefixes.includes("*") ? named : ctx.profile.verify_prefixes,
    );
    const shown = `${named[0] ?? ctx.profile.verify_prefixes[0] ?? "REQ"}-${params.format === "\\d{3,}" ? "001" : params.format}`;
    for (const o of params.check_format ? occurrences : []) {
      if (!format.test(o.id.slice(o.prefix.length + 1)))
        findings.push(
          ctx.finding({
            charStart: o.charStart,
            charEnd: o.charEnd,
            detail: `Trace ID '${o.id}' does not have the format ${shown}`,
            vars: { id: o.id },
          }),
        );
    }

    const idStart = new RegExp(`^(?:${prefixAlternatives(prefixes)})-[\\p{L}\\p{N}_]+`, "u");
    const scope =
      params.sections.length > 0
        ? sectionScope(doc, params.sections)
        : new Set(doc.sections.map((s) => s.index));
    const statements = statementsIn(doc, scope, idStart);
    if (params.unique) {
      const firstLine = new Map<string, number>();
      for (const st of statements) {
        const lead = stripLead(st.source);
        const m = idStart.exec(lead);
        if (!m) continue;
        const at = st.charStart + st.source.indexOf(m[0]);
        const seen = firstLine.get(m[0]);
        if (seen === undefined) firstLine.set(m[0], doc.index.lineOfChar(at) + 1);
        else
          findings.push(
            ctx.finding({
              charStart: at,
              charEnd: at + m[0].length,
              detail: `Trace ID '${m[0]}' is already defined at line ${seen}`,
              vars: { id: m[0] },
            }),
          );
      }
    }
    if (params.sections.length > 0 && params.require_ids) {
      for (const st of statements) {
        if (idStart.test(stripLead(st.source))) continue;
        const [s, e] = firstLineRange(doc.text, st.charStart, st.charEnd);
        findings.push(
          ctx.finding({
            charStart: s,
            charEnd: e,
            detail: `Requirement has no trace ID: open it with one (${shown})`,
            vars: { id: "" },
          }),
        );
      }
    }
    return findings;
  },
});
