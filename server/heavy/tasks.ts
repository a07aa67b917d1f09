/**
 * The heavy operations a request may run on a large doc: render, HTML report, lint and
 * version diff. Each is a plain function of cloneable data, so the same code runs in
 * process (small inputs) or on a worker thread (large ones, see pool.ts).
 */
import {
  assumptions,
  lintBundle,
  decodeText,
  type LintInput,
  type LintResult,
} from "../../core/lint/index.js";
import { parseMarkdown } from "../../core/markdown/document.js";
import { renderMarkdown } from "../../core/render/html.js";
import { renderReport, type ReportFinding, type ReportInput } from "../../core/report/html.js";
import { asText, diffFiles, diffSections, type FileDiff, type SectionDiff } from "../routes/docs/diff.js";

/** The report of a doc: its title and assumptions are read from the text here, off the request loop. */
export interface ReportTask extends Omit<ReportInput, "title" | "assumptions" | "markdown" | "findings"> {
  /** The main doc's bytes. */
  bytes: Uint8Array;
  /** Title when the frontmatter names none. */
  fallbackTitle: string;
  /**
   * The findings as a JSON array. A large doc has tens of thousands: as objects, copying
   * them to a worker held the request loop; one string is copied in a few milliseconds
   * (the caller writes it in slices, `findingsJson`).
   */
  findingsJson: string;
}

export interface DiffResult {
  files: FileDiff[];
  sections: SectionDiff[];
}

export type HeavyTask =
  | { kind: "render"; markdown: string }
  | { kind: "report"; report: ReportTask }
  | { kind: "lint"; input: LintInput }
  | { kind: "diff"; from: Map<string, Uint8Array>; to: Map<string, Uint8Array>; mainDoc: string };

export type HeavyResult<T extends HeavyTask> = T extends { kind: "render" }
  ? string
  : T extends { kind: "report" }
    ? Uint8Array
    : T extends { kind: "lint" }
      ? LintResult
      : DiffResult;

/** Bytes of input a task reads: what decides whether it leaves the request loop. */
export function taskSize(task: HeavyTask): number {
  switch (task.kind) {
    case "render":
      return task.markdown.length;
    case "report":
      return task.report.bytes.length;
    case "lint": {
      const main = task.input.files.get(task.input.mainPath);
      return main === undefined ? 0 : main.length;
    }
    case "diff":
      return (task.from.get(task.mainDoc)?.length ?? 0) + (task.to.get(task.mainDoc)?.length ?? 0);
  }
}

/** The task as sent to a worker: lint reads only the main doc's bytes, the other files by name. */
export function forTransfer(task: HeavyTask): HeavyTask {
  if (task.kind !== "lint") return task;
  const empty = new Uint8Array();
  const files = new Map<string, Uint8Array | string>();
  for (const [path, content] of task.input.files)
    files.set(path, path === task.input.mainPath ? content : empty);
  return { kind: "lint", input: { ...task.input, files } };
}

const utf8 = new TextEncoder();

/** Findings as `ReportTask.findingsJson`, in slices of the request loop (server/slices.ts). */
export async function findingsJson(
  findings: readonly ReportFinding[],
  pause: () => Promise<void> | undefined,
): Promise<string> {
  const parts: string[] = [];
  for (const f of findings) {
    await pause();
    parts.push(JSON.stringify(f));
  }
  return `[${parts.join(",")}]`;
}

export function reportHtml(r: ReportTask): string {
  const { text } = decodeText(r.bytes);
  const doc = parseMarkdown(text);
  const named = doc.frontmatter.data["title"];
  const { bytes: _bytes, fallbackTitle, findingsJson, ...rest } = r;
  return renderReport({
    ...rest,
    findings: JSON.parse(findingsJson) as ReportFinding[],
    title: typeof named === "string" && named.trim() !== "" ? named : fallbackTitle,
    assumptions: assumptions(doc, r.path).map((a) => ({ text: a.text, heading_path: a.anchor.heading_path })),
    markdown: text,
  });
}

export function versionDiff(
  from: Map<string, Uint8Array>,
  to: Map<string, Uint8Array>,
  mainDoc: string,
): DiffResult {
  const ta = asText(from.get(mainDoc));
  const tb = asText(to.get(mainDoc));
  return {
    files: diffFiles(from, to),
    sections: ta !== null && tb !== null && ta !== tb ? diffSections(ta, tb) : [],
  };
}

/**
 * A result's findings beyond this many are sent ahead of it, this many a message, each
 * when the pool has read the one before: the request loop reads a message (and messages
 * that arrive together) in one go, and one of a 10 MB doc's 25,000 findings took it
 * 200 ms. The pool puts the parts back together in order.
 */
export const FINDINGS_PART = 1000;

export function runTask<T extends HeavyTask>(task: T): HeavyResult<T> {
  switch (task.kind) {
    case "render":
      return renderMarkdown(task.markdown) as HeavyResult<T>;
    case "report":
      // UTF-8 bytes, encoded here: a report of a large doc is tens of MB, and encoding it on
      // the request loop (to answer it) held the loop for half a second. From a worker the
      // bytes are transferred, not copied.
      return utf8.encode(reportHtml(task.report)) as HeavyResult<T>;
    case "lint":
      return lintBundle(task.input) as HeavyResult<T>;
    case "diff":
      return versionDiff(task.from, task.to, task.mainDoc) as HeavyResult<T>;
  }
}
