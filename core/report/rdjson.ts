/**
 * reviewdog's Diagnostic Format, as JSON (`reviewdog -f=rdjson`): one diagnostic per
 * finding with its range, the check as its code, and a suggestion for each edit that
 * fixes it. Positions are 1-based lines and UTF-8 byte columns, ends exclusive, as the
 * format defines them, so the doc's text is needed for any line holding non-ASCII text.
 * Pure.
 *
 * https://github.com/reviewdog/reviewdog/tree/master/proto/rdf (reviewdog.proto)
 */
import type { Level } from "../lint/types.js";
import { TextIndex } from "../markdown/text.js";
import { checkName, rangeEnd, worstLevel, type ReportDoc, type ReportEdit } from "./findings.js";

export type RdSeverity = "ERROR" | "WARNING" | "INFO";

export interface RdPosition {
  line: number;
  column: number;
}
export interface RdRange {
  start: RdPosition;
  end: RdPosition;
}

export interface RdDiagnostic {
  message: string;
  location: { path: string; range: RdRange };
  severity: RdSeverity;
  code: { value: string; url?: string };
  suggestions?: { range: RdRange; text: string }[];
  /** The finding as the text report prints it. */
  original_output: string;
}

export interface RdjsonResult {
  source: { name: string; url?: string };
  severity: RdSeverity;
  diagnostics: RdDiagnostic[];
}

export interface RdjsonDoc extends ReportDoc {
  /** The doc's text (or an index of it): UTF-8 columns and the suggestions' ranges come from it. */
  text?: string | TextIndex;
}

export interface RdjsonOptions {
  /** The page that explains a check, for `code.url`. */
  checkUrl?: (profileKey: string, check: string) => string | undefined;
  /** `source.url`. */
  sourceUrl?: string;
}

const SEVERITY: Record<Level, RdSeverity> = { MUST: "ERROR", SHOULD: "WARNING", INFO: "INFO" };

/** The UTF-8 position of a UTF-8 byte offset. */
function bytePosition(index: TextIndex, byte: number): RdPosition {
  const line = index.lineOfByte(byte);
  return { line: line + 1, column: byte - index.byteOfLine(line) + 1 };
}

function suggestion(index: TextIndex, edit: ReportEdit): { range: RdRange; text: string } {
  return {
    range: { start: bytePosition(index, edit.start), end: bytePosition(index, edit.end) },
    text: edit.text,
  };
}

export function toRdjson(input: { docs: readonly RdjsonDoc[] }, options: RdjsonOptions = {}): RdjsonResult {
  const diagnostics: RdDiagnostic[] = [];
  for (const doc of input.docs) {
    const index = typeof doc.text === "string" ? new TextIndex(doc.text) : doc.text;
    for (const f of doc.findings) {
      const code = checkName(doc.profile_key, f.check);
      const url = options.checkUrl?.(doc.profile_key, f.check);
      const d: RdDiagnostic = {
        message: `${f.message}${f.relaxed ? " (relaxed)" : ""}`,
        location: {
          path: doc.path,
          // From the anchor's byte offsets when the text is at hand; else the UTF-16 columns, equal on ASCII lines.
          range: index
            ? {
                start: bytePosition(index, f.anchor.start),
                end: bytePosition(index, Math.max(f.anchor.start, f.anchor.end)),
              }
            : { start: { ...f.start }, end: { ...rangeEnd(f) } },
        },
        severity: SEVERITY[f.level],
        code: url ? { value: code, url } : { value: code },
        original_output: `${doc.path}:${f.start.line}:${f.start.column} ${f.level} ${f.check} ${f.message}${f.relaxed ? " (relaxed)" : ""}`,
      };
      // Byte offsets need the text to become positions; without it a fix is not offered.
      if (index && f.fixes && f.fixes.length > 0) d.suggestions = f.fixes.map((e) => suggestion(index, e));
      diagnostics.push(d);
    }
  }
  const worst = worstLevel(input.docs.flatMap((d) => d.findings));
  return {
    source: options.sourceUrl ? { name: "spec-review", url: options.sourceUrl } : { name: "spec-review" },
    severity: worst ? SEVERITY[worst] : "INFO",
    diagnostics,
  };
}
