/**
 * The reports `spec-review lint` writes: text, json and sarif, and the formats other tools
 * read (core/report: codeclimate, junit, github, rdjson); and `--output`, which writes
 * the report to a file atomically. See docs/lint-cli.md.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type { DocReport, LintReport } from "../node/lint.js";
import type { LoadedProfiles, ProfileLayer } from "../node/profiles.js";
import { adoptionNote } from "../core/lint/adopt.js";

export const FORMATS = ["text", "json", "sarif", "codeclimate", "junit", "github", "rdjson"] as const;
export type Format = (typeof FORMATS)[number];

/** The report in `format`, as the text to write. `cwd` is where the docs' paths start (rdjson reads the docs). */
export async function renderReport(
  format: Format,
  report: LintReport & { loaded: LoadedProfiles },
  cwd: string,
): Promise<string> {
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  switch (format) {
    case "text":
      return textReport(report, report.loaded.origins);
    case "json":
      return json(jsonReport(report, report.loaded.origins));
    case "sarif":
      return json(await sarifReport(report, report.loaded));
    case "codeclimate":
      return json((await import("../core/report/codeclimate.js")).toCodeQuality(report));
    case "junit":
      return (await import("../core/report/junit.js")).toJunit(report);
    case "github":
      return (await import("../core/report/github.js")).toGithubCommands(report);
    case "rdjson":
      return json(await rdjsonReport(report, cwd));
  }
}

/**
 * reviewdog's format needs each doc's text: its columns are UTF-8 bytes, and a finding
 * whose check knows a fix (core/lint/fixes.ts) gets it as a suggestion.
 */
async function rdjsonReport(report: LintReport & { loaded: LoadedProfiles }, cwd: string) {
  const [{ toRdjson }, { decodeText }, { parseMarkdown }, { findingFix }] = await Promise.all([
    import("../core/report/rdjson.js"),
    import("../core/lint/engine.js"),
    import("../core/markdown/document.js"),
    import("../core/lint/fixes.js"),
  ]);
  const docs = report.docs.map((d) => {
    if (d.findings.length === 0) return d;
    let text: string;
    try {
      text = decodeText(readFileSync(resolve(cwd, d.path))).text;
    } catch {
      return d;
    }
    const md = parseMarkdown(text);
    const profile = report.loaded.profiles.find((p) => p.key === d.profile_key);
    const findings = d.findings.map((f) => {
      const fix = profile && findingFix(md, profile, f);
      if (fix?.kind !== "edit") return f;
      const fixes = fix.edits.map((e) => ({
        start: md.index.byteOf(e.charStart),
        end: md.index.byteOf(e.charEnd),
        text: e.text,
      }));
      return { ...f, fixes };
    });
    return { ...d, text: md.index, findings };
  });
  return toRdjson({ docs });
}

/** `--output FILE`: written beside itself under a temporary name, then renamed over FILE. */
export function writeReportFile(file: string, content: string): void {
  const target = resolve(file);
  mkdirSync(dirname(target), { recursive: true });
  const temp = join(
    dirname(target),
    `.${basename(target)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`,
  );
  try {
    writeFileSync(temp, content);
    renameSync(temp, target);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
}

/** `N docs: N Build Ready, N Not Build Ready[, N invalid bundle folders]`. */
export function summaryLine(report: LintReport): string {
  const ready = report.docs.filter((d) => d.verdict.result === "build_ready").length;
  return (
    `${report.docs.length} doc${report.docs.length === 1 ? "" : "s"}: ${ready} Build Ready, ${report.docs.length - ready} Not Build Ready` +
    (report.problems.length > 0
      ? `, ${report.problems.length} invalid bundle folder${report.problems.length === 1 ? "" : "s"}`
      : "")
  );
}

/** Compiler-style lines: `path:line:col LEVEL slug message`, then one verdict line per doc. */
export function textReport(report: LintReport, origins?: ReadonlyMap<string, ProfileLayer>): string {
  const out: string[] = [];
  for (const p of report.problems) out.push(`${p.path}:1:1 MUST bundle-invalid ${p.message}`);
  for (const d of report.docs)
    for (const f of d.findings)
      out.push(
        `${d.path}:${f.start.line}:${f.start.column} ${f.level} ${f.check} ${f.message}${f.relaxed ? " (relaxed)" : ""}`,
      );
  if (out.length > 0) out.push("");
  for (const d of report.docs) {
    out.push(verdictLine(d, origins?.get(d.profile_key)));
    // What adoption did (guessed type or size, findings lowered), so a relaxed verdict is never silent.
    const note = adoptionNote(d);
    if (note) out.push(`  ${note}`);
  }
  out.push(summaryLine(report));
  return `${out.join("\n")}\n`;
}

/** Where a profile came from, in words, when it is not a built-in. */
function originWords(layer: ProfileLayer | undefined): string {
  if (!layer || layer.origin === "built-in") return "";
  return layer.origin === "repository" ? " (repository profile)" : " (--profiles profile)";
}

function verdictLine(d: DocReport, layer?: ProfileLayer): string {
  const v = d.verdict;
  const state = v.result === "build_ready" ? "Build Ready" : "Not Build Ready";
  const adopt = d.adopt
    ? ` (adopting ${Object.entries(d.adopt)
        .map(([k, val]) => `${k}: ${val}`)
        .join(", ")})`
    : "";
  return `${d.path}: ${state} [${d.profile_key}/${d.size}] score ${v.score}, ${v.must} MUST, ${v.should} SHOULD, ${v.info} INFO${adopt}${originWords(layer)}`;
}

/** The JSON report: per doc its verdict (contract 2.4), adopt, findings with positions, assumptions. */
export function jsonReport(report: LintReport, origins?: ReadonlyMap<string, ProfileLayer>): unknown {
  return {
    docs: report.docs.map((d) => {
      const layer = origins?.get(d.profile_key);
      return layer ? { ...d, profile_source: layer.origin } : d;
    }),
    problems: report.problems,
    skipped: report.skipped,
    summary: {
      docs: report.docs.length,
      build_ready: report.docs.filter((d) => d.verdict.result === "build_ready").length,
      not_build_ready: report.docs.filter((d) => d.verdict.result !== "build_ready").length,
      problems: report.problems.length,
    },
  };
}

async function sarifReport(report: LintReport, loaded: LoadedProfiles): Promise<unknown> {
  const [{ toSarif }, { packageVersion }] = await Promise.all([
    import("../core/lint/sarif.js"),
    import("./version.js"),
  ]);
  return toSarif(
    report.docs.map((d) => ({
      uri: d.path,
      profile_key: d.profile_key,
      findings: d.findings,
      positions: d.findings.map((f) => ({ start: f.start, end: f.end })),
    })),
    { toolVersion: packageVersion(), profiles: loaded.profiles },
  );
}
