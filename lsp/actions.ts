/**
 * Code actions on findings and the commands behind them. The edits come from core
 * (core/lint/fixes.ts), so the Action and the dashboard offer the same ones:
 * - a missing required section: its heading and the template's prompt, where the
 *   profile's order puts it; a missing frontmatter key: the key;
 * - a template placeholder: "Show the placeholder" (window/showDocument on its range);
 * - with a service configured, "Request a waiver…": the dashboard at that finding, once
 *   the buffer is what the service holds (else the request is refused, saying why).
 */
import { basename } from "node:path";
import {
  CodeActionKind,
  type CodeAction,
  type Diagnostic,
  type Range,
  type ShowDocumentParams,
  type ShowDocumentResult,
  type TextEdit,
} from "vscode-languageserver/node";
import { findingFix } from "../core/lint/fixes.js";
import type { Finding } from "../core/lint/types.js";
import { findingDiagnostics, findingRange, type FindingData } from "./diagnostics.js";
import { rangeOf, type Encoding } from "./positions.js";
import { serviceClient, ServiceError } from "./service.js";
import type { LintedDoc, Settings } from "./workspace.js";

export const COMMANDS = {
  showRange: "specReview.showRange",
  requestWaiver: "specReview.requestWaiver",
} as const;

const overlaps = (a: Range, b: Range) =>
  !(
    a.end.line < b.start.line ||
    (a.end.line === b.start.line && a.end.character < b.start.character) ||
    b.end.line < a.start.line ||
    (b.end.line === a.start.line && b.end.character < a.start.character)
  );

/** The findings a code action request is about: those of its diagnostics, else those its range touches. */
function findingsAsked(linted: LintedDoc, range: Range, diagnostics: readonly Diagnostic[], enc: Encoding) {
  const ids = new Set(
    diagnostics.map((d) => (d.data as FindingData | undefined)?.id).filter((id): id is string => !!id),
  );
  return linted.lint.result.findings.filter((f) =>
    ids.size > 0 ? ids.has(f.id) : overlaps(findingRange(linted, f, enc), range),
  );
}

export function codeActions(
  linted: LintedDoc,
  range: Range,
  diagnostics: readonly Diagnostic[],
  enc: Encoding,
  settings: Settings,
): CodeAction[] {
  const all = findingDiagnostics(linted, enc, settings);
  const diagnosticOf = (f: Finding) => all.find((d) => (d.data as FindingData).id === f.id)!;
  const index = linted.doc.index;
  const actions: CodeAction[] = [];
  for (const f of findingsAsked(linted, range, diagnostics, enc)) {
    const fix = findingFix(linted.doc, linted.profile, f);
    if (fix?.kind === "edit") {
      const edits: TextEdit[] = fix.edits.map((e) => ({
        range: rangeOf(index, e.charStart, e.charEnd, enc),
        newText: e.text,
      }));
      actions.push({
        title: fix.title,
        kind: CodeActionKind.QuickFix,
        diagnostics: [diagnosticOf(f)],
        isPreferred: true,
        edit: { changes: { [linted.uri]: edits } },
      });
    } else if (fix?.kind === "show") {
      actions.push({
        title: fix.title,
        kind: CodeActionKind.QuickFix,
        diagnostics: [diagnosticOf(f)],
        command: {
          title: fix.title,
          command: COMMANDS.showRange,
          arguments: [linted.uri, rangeOf(index, fix.charStart, fix.charEnd, enc)],
        },
      });
    }
    if (settings.serviceUrl)
      actions.push({
        title: `Request a waiver… (${f.check})`,
        kind: CodeActionKind.QuickFix,
        diagnostics: [diagnosticOf(f)],
        command: {
          title: "Request a waiver…",
          command: COMMANDS.requestWaiver,
          arguments: [linted.uri, f.id],
        },
      });
  }
  return actions;
}

/** What a command needs of the connection. */
export interface CommandHost {
  showDocument(params: ShowDocumentParams): Promise<ShowDocumentResult>;
  showMessage(kind: "info" | "warning" | "error", message: string): void;
  linted(uri: string): LintedDoc | undefined;
  settings: Settings;
  fetch?: typeof fetch;
}

export async function executeCommand(host: CommandHost, command: string, args: unknown[]): Promise<unknown> {
  if (command === COMMANDS.showRange) {
    const [uri, selection] = args as [string, Range];
    return host.showDocument({ uri, selection, takeFocus: true });
  }
  if (command === COMMANDS.requestWaiver) {
    const [uri, findingId] = args as [string, string];
    return requestWaiver(host, uri, findingId);
  }
  host.showMessage("error", `spec-review: unknown command ${command}`);
  return undefined;
}

/** Open the dashboard at the finding, when the service holds exactly this buffer. */
async function requestWaiver(host: CommandHost, uri: string, findingId: string): Promise<unknown> {
  const client = serviceClient(host.settings, host.fetch);
  if (!client) {
    host.showMessage(
      "warning",
      "No spec-review service is configured (specReview.serviceUrl or SPEC_REVIEW_URL).",
    );
    return undefined;
  }
  const linted = host.linted(uri);
  if (!linted || !linted.lint.result.findings.some((f) => f.id === findingId)) {
    host.showMessage("warning", "That finding is gone from the doc; nothing to waive.");
    return undefined;
  }
  const path = basename(linted.path);
  try {
    const doc = await client.findDoc(linted.slug, path);
    if (!doc) {
      host.showMessage(
        "warning",
        `The service at ${client.url} holds no doc '${path}' of bundle '${linted.slug}': a waiver is asked for on a doc the service reviews.`,
      );
      return undefined;
    }
    const served = await client.content(doc.docId, doc.path);
    if (served !== linted.doc.text) {
      host.showMessage(
        "warning",
        `This buffer differs from the service's version of '${doc.slug}': save it and let the service take the change (or pull its version) first, so the waiver names the finding you see.`,
      );
      return undefined;
    }
    return host.showDocument({ uri: client.findingPage(doc.docId, findingId), external: true });
  } catch (err) {
    host.showMessage("error", err instanceof ServiceError ? err.message : `spec-review: ${String(err)}`);
    return undefined;
  }
}
