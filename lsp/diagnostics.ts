/**
 * Findings as LSP diagnostics, and the errors of a profile file. A finding's level maps
 * to a severity (MUST: Error, SHOULD: Warning, INFO: Information), its check slug is the
 * code, and `codeDescription` links the page of the check's kind: the service's copy when
 * one is configured, else the page shipped in the npm package (docs/checks/<kind>.md).
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { DiagnosticSeverity, type Diagnostic } from "vscode-languageserver/node";
import { ENGINE_CHECKS } from "../core/lint/engine.js";
import type { Finding, Level } from "../core/lint/types.js";
import type { ProfileError } from "../core/profile/load.js";
import type { Profile } from "../core/profile/schema.js";
import { TextIndex } from "../core/markdown/text.js";
import { packageRoot } from "../node/package.js";
import { rangeOf, type Encoding } from "./positions.js";
import type { LintedDoc, Settings } from "./workspace.js";

export const SOURCE = "spec-review";

export const SEVERITY: Record<Level, DiagnosticSeverity> = {
  MUST: DiagnosticSeverity.Error,
  SHOULD: DiagnosticSeverity.Warning,
  INFO: DiagnosticSeverity.Information,
};

/** What a diagnostic carries back to code actions and commands. */
export interface FindingData {
  id: string;
  check: string;
}

/** The kind of the check a finding comes from; undefined for the engine's own findings. */
export function kindOf(profile: Profile, check: string): string | undefined {
  return profile.checks.find((c) => c.slug === check)?.kind;
}

/**
 * The page that explains a check kind: on the service when one is configured
 * (`<url>/help/checks/<kind>`), else the file in the installed package. Engine findings
 * (`frontmatter-invalid`, ...) link the findings page.
 */
export function checkDocHref(kind: string | undefined, settings: Pick<Settings, "serviceUrl">): string {
  const page = kind ? `checks/${kind}` : "findings";
  if (settings.serviceUrl) return `${settings.serviceUrl}/help/${page}`;
  return pathToFileURL(join(packageRoot(), "docs", `${page}.md`)).href;
}

/** The range of a finding in the client's encoding. */
export function findingRange(linted: LintedDoc, f: Finding, enc: Encoding) {
  const index = linted.doc.index;
  return rangeOf(index, index.charOf(f.anchor.start), index.charOf(f.anchor.end), enc);
}

export function findingDiagnostics(linted: LintedDoc, enc: Encoding, settings: Settings): Diagnostic[] {
  return linted.lint.result.findings.map((f) => {
    const engine = f.check in ENGINE_CHECKS;
    const kind = engine ? undefined : kindOf(linted.profile, f.check);
    const data: FindingData = { id: f.id, check: f.check };
    return {
      range: findingRange(linted, f, enc),
      severity: SEVERITY[f.level],
      code: f.check,
      codeDescription: { href: checkDocHref(kind, settings) },
      source: SOURCE,
      message: f.relaxed ? `${f.message} (relaxed: the doc names no type or size)` : f.message,
      data,
    };
  });
}

/** Errors of a profile file (1-based line and column) over its text. */
export function profileDiagnostics(
  errors: readonly ProfileError[],
  text: string,
  enc: Encoding,
): Diagnostic[] {
  const index = new TextIndex(text);
  return errors.map((e) => {
    const lineStart = index.charOfLine(e.line - 1);
    const lineEnd = e.line < index.lineCount ? index.charOfLine(e.line) : text.length;
    let end = lineEnd;
    while (end > lineStart && /\s/.test(text[end - 1]!)) end--;
    const start = Math.min(lineStart + Math.max(0, e.column - 1), end);
    return {
      range: rangeOf(index, start, Math.max(start, end), enc),
      severity: DiagnosticSeverity.Error,
      code: "profile-invalid",
      codeDescription: { href: pathToFileURL(join(packageRoot(), "docs", "profiles.md")).href },
      source: SOURCE,
      message: e.path ? `${e.message} (at ${e.path})` : e.message,
    };
  });
}
