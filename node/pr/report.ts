/**
 * What the Action says, as markdown and annotations: one table per run (the same in the
 * check run, the sticky comment and the job summary), the check's title and conclusion.
 * Pure: results in, text out.
 */
import type { Level } from "../../core/lint/types.js";
import type { Annotation, AnnotationLevel, Conclusion } from "./checks.js";
import type { BundleResult } from "./lint.js";

export type FailOn = "not_build_ready" | "never";

export const ANNOTATION_LEVEL: Record<Level, AnnotationLevel> = {
  MUST: "failure",
  SHOULD: "warning",
  INFO: "notice",
};

/** GitHub caps a check run's summary and text, and a comment's body, at 65535 characters. */
export const MAX_BODY = 65_535;

export function isReady(results: readonly BundleResult[]): boolean {
  return results.every((r) => r.result === "build_ready");
}

export function verdictLabel(r: BundleResult): string {
  if (r.problem !== undefined) return "❌ Not a valid bundle";
  return r.result === "build_ready" ? "✅ Build Ready" : "❌ Not Build Ready";
}

const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\r?\n/g, " ");

/** Where links to files point: the repository at a commit. */
export interface LinkBase {
  serverUrl: string;
  owner: string;
  repo: string;
  sha: string;
}

function fileLink(path: string, base: LinkBase | undefined): string {
  const code = `\`${cell(path)}\``;
  if (!base || !base.owner) return code;
  const url = `${base.serverUrl}/${base.owner}/${base.repo}/blob/${base.sha}/${path.split("/").map(encodeURIComponent).join("/")}`;
  return `[${code}](${url})`;
}

/** The table: one row per spec doc (or invalid folder), with verdict, score and counts. */
export function renderTable(results: readonly BundleResult[], base?: LinkBase): string {
  const rows = results.map((r) => {
    const profile = r.profile ? `${r.profile}/${r.size ?? ""}` : "—";
    const score = r.score === null ? "—" : String(r.score);
    return `| ${fileLink(r.doc, base)} | ${cell(profile)} | ${verdictLabel(r)} | ${score} | ${r.must} | ${r.should} | ${r.info} |`;
  });
  return [
    "| Spec doc | Profile | Verdict | Score | MUST | SHOULD | INFO |",
    "| --- | --- | --- | ---: | ---: | ---: | ---: |",
    ...rows,
  ].join("\n");
}

/** One line: how many docs, how many Build Ready. */
export function headline(results: readonly BundleResult[]): string {
  if (results.length === 0) return "No spec bundles to lint";
  const ready = results.filter((r) => r.result === "build_ready").length;
  const n = results.length;
  const docs = `${n} spec doc${n === 1 ? "" : "s"}`;
  if (ready === n) return `${docs}: all Build Ready`;
  return `${docs}: ${n - ready} Not Build Ready, ${ready} Build Ready`;
}

export function conclusionOf(results: readonly BundleResult[], failOn: FailOn): Conclusion {
  if (isReady(results)) return "success";
  return failOn === "never" ? "neutral" : "failure";
}

/** The invalid folders (they carry no annotation when they are folders) and the notes. */
function problemsText(results: readonly BundleResult[]): string[] {
  return results.filter((r) => r.problem !== undefined).map((r) => `- \`${cell(r.doc)}\`: ${r.problem}`);
}

function truncate(text: string, max = MAX_BODY): string {
  if (text.length <= max) return text;
  const note = "\n\n… (cut: GitHub takes at most 65535 characters here)";
  return text.slice(0, max - note.length) + note;
}

export interface ReportContext {
  /** What was linted, in words ("the bundles this pull request touches"). */
  scope: string;
  /** What was done to it, in the past tense (default "Linted"; the App's full review says so). */
  action?: string;
  /** Where the profiles came from. */
  profiles: string;
  /** Things that went wrong or were left out, one sentence each. */
  notes: readonly string[];
  base?: LinkBase;
}

function body(results: readonly BundleResult[], ctx: ReportContext): string[] {
  const out: string[] = [];
  out.push(
    results.length === 0
      ? `No spec bundles found in ${ctx.scope}.`
      : `${ctx.action ?? "Linted"} ${ctx.scope} with ${ctx.profiles} profiles.`,
  );
  if (results.length > 0) out.push("", renderTable(results, ctx.base));
  const problems = problemsText(results);
  if (problems.length > 0)
    out.push("", "Folders that are not valid bundles (a bundle holds exactly one spec doc):", ...problems);
  // What adoption did, per doc, so a relaxed verdict is never silent.
  const adopted = results.filter((r) => r.adoption);
  if (adopted.length > 0) out.push("", ...adopted.map((r) => `- \`${r.doc}\`: ${cell(r.adoption!)}`));
  if (ctx.notes.length > 0) out.push("", ...ctx.notes.map((n) => `> [!WARNING]\n> ${n}`));
  return out;
}

/** The check run's summary. */
export function checkSummary(results: readonly BundleResult[], ctx: ReportContext): string {
  return truncate(body(results, { ...ctx, notes: [] }).join("\n"));
}

/** At most this many findings per doc are listed in the job summary. */
export const SUMMARY_FINDINGS = 100;

const html = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** The findings of each doc that has some, folded: `line:column LEVEL check message`. */
export function findingsDetails(results: readonly BundleResult[]): string[] {
  const out: string[] = [];
  for (const r of results) {
    if (r.findings.length === 0) continue;
    const n = r.findings.length;
    out.push(
      "",
      `<details><summary><code>${html(r.doc)}</code>: ${n} finding${n === 1 ? "" : "s"}</summary>`,
      "",
    );
    for (const f of r.findings.slice(0, SUMMARY_FINDINGS))
      out.push(
        `- ${f.line}:${f.column} **${f.level}** \`${f.check}\` ${cell(f.message)}${f.relaxed ? " (relaxed)" : ""}`,
      );
    if (n > SUMMARY_FINDINGS) out.push(`- … and ${n - SUMMARY_FINDINGS} more (see the SARIF file)`);
    out.push("", "</details>");
  }
  return out;
}

/**
 * The waivers of sidecar files: the Action has no key to check their signatures, so each is
 * unverified, and counted only when the workflow trusts sidecar waivers.
 */
export function sidecarDetails(results: readonly BundleResult[]): string[] {
  const out: string[] = [];
  for (const r of results) {
    const list = r.sidecar_waivers ?? [];
    if (list.length === 0) continue;
    const counted = list.some((w) => w.counted);
    out.push(
      "",
      `**Sidecar waivers of \`${html(r.doc)}\`** (unverified: only spec-review can check their signatures; ${
        counted ? "counted, as this workflow sets `trust-sidecar-waivers`" : "not counted"
      }):`,
      "",
    );
    for (const w of list)
      out.push(
        `- \`${w.check || "?"}\` (${w.findings} finding${w.findings === 1 ? "" : "s"})${
          w.requested_by ? ` asked by ${cell(w.requested_by)}` : ""
        }: ${cell(w.reason)}${w.problem ? ` (${cell(w.problem)})` : ""}`,
      );
  }
  return out;
}

/** The job summary: the table, then each doc's findings folded, then the sidecar waivers. */
export function jobSummary(results: readonly BundleResult[], ctx: ReportContext, checkName: string): string {
  const lines = [
    `## ${checkName}: ${headline(results)}`,
    "",
    ...body(results, ctx),
    ...findingsDetails(results),
    ...sidecarDetails(results),
  ];
  return truncate(`${lines.join("\n")}\n`);
}

/** The sticky comment: marker, headline, table, links. */
export function commentBody(
  results: readonly BundleResult[],
  ctx: ReportContext,
  opts: { marker: string; checkName: string; checkRunUrl?: string; runUrl?: string },
): string {
  const links: string[] = [];
  if (opts.checkRunUrl)
    links.push(`[Check run \`${opts.checkName}\`](${opts.checkRunUrl}) with the findings on each line`);
  if (opts.runUrl) links.push(`[workflow run](${opts.runUrl})`);
  const sha = ctx.base?.sha ? ` at ${ctx.base.sha.slice(0, 7)}` : "";
  return truncate(
    [
      opts.marker,
      `### ${results.length > 0 && isReady(results) ? "✅" : results.length === 0 ? "ℹ️" : "❌"} ${opts.checkName}: ${headline(results)}${sha}`,
      "",
      ...body(results, ctx),
      ...(links.length > 0 ? ["", links.join(" · ")] : []),
    ].join("\n"),
  );
}

/** One annotation per finding, on its file and line: MUST failure, SHOULD warning, INFO notice. */
export function annotationsOf(results: readonly BundleResult[]): Annotation[] {
  const out: Annotation[] = [];
  for (const r of results)
    for (const f of r.findings) {
      const a: Annotation = {
        path: f.file,
        start_line: f.line,
        end_line: Math.max(f.line, f.endLine),
        annotation_level: ANNOTATION_LEVEL[f.level],
        message: f.message,
        title: `${f.level} ${f.check}${f.relaxed ? " (relaxed)" : ""}`,
      };
      // Columns only count on a single line.
      if (a.end_line === a.start_line) {
        a.start_column = f.column;
        a.end_column = Math.max(f.column, f.endColumn);
      }
      out.push(a);
    }
  return out;
}

/** The `verdicts` output: one object per row of the table. */
export function verdictsJson(results: readonly BundleResult[]): string {
  return JSON.stringify(
    results.map((r) => ({
      bundle: r.bundle,
      doc: r.doc,
      profile: r.profile,
      size: r.size,
      result: r.result,
      score: r.score,
      must: r.must,
      should: r.should,
      info: r.info,
      ...(r.problem !== undefined ? { problem: r.problem } : {}),
    })),
  );
}
