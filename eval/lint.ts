/**
 * npm run eval:lint -- <folder> [--profile KEY] [--json]
 *
 * The lint eval (docs/eval.md). Lints every markdown doc under a folder of accepted
 * specs, as they are, and prints findings and MUST findings per doc by check. Then, for
 * each doc, applies known defects one at a time and lints again:
 *
 * - delete-design: delete every section answering to the profile's main section (its
 *   first MUST required-section check), so the doc has no design content under any name;
 * - tbd-in-requirement: put "TBD" into a paragraph where the profile's MUST undecided
 *   check looks;
 * - break-link: point a relative link (else a #fragment) at something that is not there;
 * - strip-numbers: take the numbers (and their units) out of a constraint the profile's
 *   measurable check reads;
 * - duplicate-id: give a requirement the trace ID of an earlier one;
 * - empty-section: delete the content of a section another required-section check asks for;
 * - placeholder: leave a placeholder of the profile's own template in the main section;
 * - contradict: restate a constraint with a number right after it, with another value.
 *
 * A defect is caught when a finding that was not there before sits at the defect (its
 * anchor overlaps the changed text; for a deleted section, the doc's first line where
 * missing sections are reported) at the level the profile gives the responsible check
 * (MUST where it says MUST). Findings that appear elsewhere are counted as new findings
 * elsewhere. A defect the profile has no check for, or that a doc offers no place for,
 * is "n/a" for that doc. Prints recall per defect kind and the figures against targets;
 * exits 1 when a target is missed.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { fsProfileSource, walkFiles } from "../cli/lint-fs.js";
import { lintBundle, type LintResult } from "../core/lint/engine.js";
import { LEVELS, type Finding, type Level } from "../core/lint/types.js";
import { parseMarkdown, type MarkdownDoc } from "../core/markdown/document.js";
import { loadProfiles } from "../core/profile/load.js";
import type { Profile } from "../core/profile/schema.js";
import { packageRoot } from "../server/paths.js";
import { DEFECT_KINDS, mutations, type DefectKind, type Mutation } from "./lint-mutations.js";

export { DEFECT_KINDS, mutations, type DefectKind, type Mutation };

export interface Judgement {
  caught: boolean;
  /** Highest level among new findings at the defect. */
  level?: Level;
  /** New findings not at the defect. */
  elsewhere: Finding[];
}

const rank = (l: Level) => LEVELS.length - LEVELS.indexOf(l);

const keyOf = (f: Finding) => `${f.check}\u0000${f.message}\u0000${f.anchor.quote}`;

/** Compare the lint of a mutated doc with the doc's own: was the defect caught, and what else appeared? */
export function judge(before: LintResult, after: LintResult, mutated: MarkdownDoc, m: Mutation): Judgement {
  const seen = new Map<string, number>();
  for (const f of before.findings) seen.set(keyOf(f), (seen.get(keyOf(f)) ?? 0) + 1);
  const fresh: Finding[] = [];
  for (const f of after.findings) {
    const n = seen.get(keyOf(f)) ?? 0;
    if (n > 0) seen.set(keyOf(f), n - 1);
    else fresh.push(f);
  }
  const s = mutated.index.byteOf(m.site[0]);
  const e = mutated.index.byteOf(m.site[1]);
  const at = (f: Finding) => f.anchor.start <= e && f.anchor.end >= s;
  let level: Level | undefined;
  const elsewhere: Finding[] = [];
  for (const f of fresh) {
    if (!at(f)) {
      elsewhere.push(f);
      continue;
    }
    if (!level || rank(f.level) > rank(level)) level = f.level;
  }
  return {
    caught: level !== undefined && rank(level) >= rank(m.expected),
    ...(level ? { level } : {}),
    elsewhere,
  };
}

export interface DocReport {
  path: string;
  profile_key: string;
  size: string;
  adopted: boolean;
  findings: number;
  must: number;
  byCheck: Record<string, number>;
  mutations: {
    kind: DefectKind;
    check: string;
    expected: Level;
    caught: boolean;
    level?: Level;
    elsewhere: string[];
    note: string;
  }[];
}

export interface KindReport {
  kind: DefectKind;
  applied: number;
  caught: number;
  recall: number;
  elsewhere: number;
  missed: string[];
}

export interface EvalReport {
  folder: string;
  docs: DocReport[];
  kinds: KindReport[];
  mustPerDoc: number;
  findingsPerDoc: number;
  targets: { recall: number; mustPerDoc: number; met: boolean };
}

const toPosix = (p: string) => (sep === "/" ? p : p.split(sep).join("/"));

/** Lint and mutate every markdown doc under `folder` (each doc's bundle is its folder; the folder is the repository). */
export function runEval(
  folder: string,
  options: { profile?: string; profiles?: readonly Profile[] } = {},
): EvalReport {
  const root = resolve(folder);
  const profiles =
    options.profiles ?? loadProfiles(fsProfileSource(join(packageRoot(), "profiles"))).profiles;
  const forced = options.profile ? profiles.find((p) => p.key === options.profile) : undefined;
  if (options.profile && !forced)
    throw new Error(`unknown profile '${options.profile}' (${profiles.map((p) => p.key).join(", ")})`);
  const docs: DocReport[] = [];
  const all = walkFiles(root).filter((f) => /\.(md|markdown)$/i.test(f));
  const bundleCache = new Map<string, Map<string, Uint8Array>>();
  for (const rel of all) {
    const bundleDir = dirname(rel) === "." ? "" : dirname(rel);
    let files = bundleCache.get(bundleDir);
    if (!files) {
      const abs = join(root, bundleDir);
      files = new Map(walkFiles(abs).map((f) => [f, readFileSync(join(abs, f))]));
      bundleCache.set(bundleDir, files);
    }
    const main = toPosix(relative(join(root, bundleDir), join(root, rel)));
    const repo = { bundlePath: toPosix(bundleDir), exists: (p: string) => existsSync(join(root, p)) };
    const lint = (text?: string) => {
      const map = text === undefined ? files : new Map([...files, [main, new TextEncoder().encode(text)]]);
      return lintBundle({
        files: map,
        mainPath: main,
        profiles,
        repo,
        ...(forced ? { profile: forced } : {}),
      });
    };
    const base = lint();
    const profile = profiles.find((p) => p.key === base.profile_key)!;
    const doc = parseMarkdown(new TextDecoder().decode(files.get(main)));
    const adopting = base.adopt !== undefined;
    const byCheck: Record<string, number> = {};
    for (const f of base.findings)
      byCheck[`${f.level} ${f.check}`] = (byCheck[`${f.level} ${f.check}`] ?? 0) + 1;
    const report: DocReport = {
      path: toPosix(rel),
      profile_key: base.profile_key,
      size: base.size,
      adopted: adopting,
      findings: base.findings.length,
      must: base.findings.filter((f) => f.level === "MUST").length,
      byCheck,
      mutations: [],
    };
    for (const m of mutations(doc, main, profile, adopting)) {
      const after = lint(m.text);
      const j = judge(base, after, parseMarkdown(m.text), m);
      report.mutations.push({
        kind: m.kind,
        check: m.check,
        expected: m.expected,
        caught: j.caught,
        ...(j.level ? { level: j.level } : {}),
        elsewhere: j.elsewhere.map((f) => `${f.level} ${f.check}: ${f.message}`),
        note: m.note,
      });
    }
    docs.push(report);
  }
  const kinds = DEFECT_KINDS.map((kind): KindReport => {
    const runs = docs.flatMap((d) => d.mutations.filter((m) => m.kind === kind).map((m) => ({ d, m })));
    const caught = runs.filter((r) => r.m.caught).length;
    return {
      kind,
      applied: runs.length,
      caught,
      recall: runs.length === 0 ? NaN : caught / runs.length,
      elsewhere: runs.reduce((n, r) => n + r.m.elsewhere.length, 0),
      missed: runs
        .filter((r) => !r.m.caught)
        .map(
          (r) =>
            `${r.d.path}: ${r.m.note}${r.m.level ? ` (seen at ${r.m.level}, needs ${r.m.expected})` : ""}`,
        ),
    };
  });
  const n = Math.max(1, docs.length);
  const mustPerDoc = docs.reduce((s, d) => s + d.must, 0) / n;
  const findingsPerDoc = docs.reduce((s, d) => s + d.findings, 0) / n;
  const recallTarget = 0.95;
  const met = kinds.every((k) => k.applied === 0 || k.recall >= recallTarget) && mustPerDoc <= 1;
  return {
    folder: root,
    docs,
    kinds,
    mustPerDoc,
    findingsPerDoc,
    targets: { recall: recallTarget, mustPerDoc: 1, met },
  };
}

const pct = (x: number) => (Number.isNaN(x) ? "n/a" : `${(x * 100).toFixed(1)}%`);

/** The report as the terminal shows it. */
export function formatReport(r: EvalReport): string {
  const lines: string[] = [];
  lines.push(`Lint eval over ${r.docs.length} docs in ${r.folder}`, "");
  lines.push("Accepted specs as they are:");
  const w = Math.max(4, ...r.docs.map((d) => d.path.length));
  lines.push(`  ${"doc".padEnd(w)}  profile/size         findings  MUST  by check`);
  for (const d of r.docs) {
    const checks = Object.entries(d.byCheck)
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .map(([k, v]) => `${k}×${v}`)
      .join(", ");
    const ps = `${d.profile_key}/${d.size}${d.adopted ? " (adopted)" : ""}`;
    lines.push(
      `  ${d.path.padEnd(w)}  ${ps.padEnd(19)}  ${String(d.findings).padStart(8)}  ${String(d.must).padStart(4)}  ${checks || "-"}`,
    );
  }
  lines.push(
    "",
    `  ${r.findingsPerDoc.toFixed(2)} findings per doc; ${r.mustPerDoc.toFixed(2)} MUST findings per doc (target <= ${r.targets.mustPerDoc})`,
    "",
    "Known defects, one at a time:",
    `  ${"defect".padEnd(20)}  applied  caught  recall   new findings elsewhere`,
  );
  for (const k of r.kinds)
    lines.push(
      `  ${k.kind.padEnd(20)}  ${String(k.applied).padStart(7)}  ${String(k.caught).padStart(6)}  ${pct(k.recall).padStart(6)}   ${k.elsewhere}`,
    );
  const missed = r.kinds.flatMap((k) => k.missed.map((m) => `  ${k.kind}: ${m}`));
  if (missed.length > 0) lines.push("", "Missed:", ...missed);
  const elsewhere = r.docs.flatMap((d) =>
    d.mutations.flatMap((m) => m.elsewhere.map((e) => `  ${d.path} [${m.kind}]: ${e}`)),
  );
  if (elsewhere.length > 0) lines.push("", "New findings elsewhere:", ...elsewhere);
  const worst = r.kinds.filter((k) => k.applied > 0).reduce((a, k) => Math.min(a, k.recall), 1);
  lines.push(
    "",
    `Targets: recall >= ${pct(r.targets.recall)} for each defect kind (lowest: ${pct(worst)}); <= ${r.targets.mustPerDoc} MUST per accepted doc (${r.mustPerDoc.toFixed(2)}): ${r.targets.met ? "met" : "NOT met"}`,
  );
  return `${lines.join("\n")}\n`;
}

function main(): void {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { profile: { type: "string" }, json: { type: "boolean", default: false } },
  });
  const folder = positionals[0];
  if (!folder) {
    process.stderr.write("usage: npm run eval:lint -- <folder> [--profile KEY] [--json]\n");
    process.exit(2);
  }
  const report = runEval(folder, values.profile ? { profile: values.profile } : {});
  process.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
  process.exitCode = report.targets.met ? 0 : 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) main();
