/**
 * npm run eval:lint -- <folder> [--profile KEY] [--infer [--seed N] [--extends KEY] [--key KEY]]
 *                     [--dump-must FILE] [--dump-check SLUG[=FILE]]... [--json]
 * npm run eval:lint -- --tally <judged dump>...
 *
 * The lint eval (docs/eval.md). Lints every markdown doc under a folder of accepted
 * specs, as they are: findings, MUST findings, Build Ready docs and vague-quantity
 * findings per doc. Then, for each doc, applies the known defects of `DEFECTS`
 * (eval/lint-mutations.ts) one at a time and lints again. A defect is caught when a
 * finding that was not there before sits at the defect (its anchor overlaps the changed
 * text; for a deleted design, a finding of the design check anywhere) at the level the
 * table names for its kind: MUST, any level, or the level the profile gives the check.
 *
 * With `--infer`, the docs are split in halves by a seeded shuffle; a profile is inferred
 * from one half (core/profile/infer.ts) and the other half is measured with it.
 *
 * `--dump-must` / `--dump-check` write every MUST finding (or every finding of a check)
 * with its doc, line and paragraph, and a verdict to fill; `--tally` counts the filled
 * verdicts (precision per check). Prints the figures against issue 29's targets and exits
 * 1 when one is missed.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { builtinProfilesDir, fsProfileSource, walkFiles } from "../cli/lint-fs.js";
import { lintBundle, type LintResult } from "../core/lint/engine.js";
import { LEVELS, type Finding, type Level } from "../core/lint/types.js";
import { parseMarkdown, type MarkdownDoc } from "../core/markdown/document.js";
import {
  inferProfile,
  type InferDoc,
  type InferOptions,
  type InferredProfile,
} from "../core/profile/infer.js";
import { loadProfiles } from "../core/profile/load.js";
import type { Profile } from "../core/profile/schema.js";
import { loadProfileLayers } from "../node/profiles.js";
import { packageRoot } from "../server/paths.js";
import { rng } from "../bench/lib/corpus.js";
import {
  DEFECTS,
  DEFECT_KINDS,
  inactiveStatus,
  mutations,
  type DefectKind,
  type Mutation,
} from "./lint-mutations.js";

export { DEFECTS, DEFECT_KINDS, mutations, type DefectKind, type Mutation };

/** Issue 29's targets, with a built-in profile forced and with one inferred from the other half. */
export const TARGETS = {
  "built-in": { mustPerDoc: 0.5, buildReady: 0.85, vaguePerDoc: 0.3 },
  inferred: { mustPerDoc: 0.1, buildReady: 0.9, vaguePerDoc: 0.3 },
} as const;
export type EvalMode = keyof typeof TARGETS;

export interface Judgement {
  caught: boolean;
  /** Highest level among new findings at the defect. */
  level?: Level;
  /** Checks of the new findings at the defect. */
  by: string[];
  /** New findings not at the defect. */
  elsewhere: Finding[];
}

const rank = (l: Level) => LEVELS.length - LEVELS.indexOf(l);

const keyOf = (f: Finding) => `${f.check}\u0000${f.message}\u0000${f.anchor.quote}`;
const contextKey = (f: Finding) => `${keyOf(f)}\u0000${f.anchor.prefix}\u0000${f.anchor.suffix}`;

/** Compare the lint of a mutated doc with the doc's own: was the defect caught, and what else appeared? */
export function judge(before: LintResult, after: LintResult, mutated: MarkdownDoc, m: Mutation): Judgement {
  const s = mutated.index.byteOf(m.site[0]);
  const e = mutated.index.byteOf(m.site[1]);
  const at = (f: Finding) =>
    (f.anchor.start <= e && f.anchor.end >= s) || (m.checks?.includes(f.check) ?? false);
  // A finding of the doc as it was is one of the mutated doc's with the same check, message
  // and quote: first one with the same context around it, then any such one away from the
  // defect (so a "TBD" planted beside an old "TBD" is the new one).
  const fresh = [...after.findings];
  const rest: Finding[] = [];
  for (const f of before.findings) {
    const i = fresh.findIndex((g) => contextKey(g) === contextKey(f));
    if (i >= 0) fresh.splice(i, 1);
    else rest.push(f);
  }
  for (const f of rest) {
    const same = fresh.filter((g) => keyOf(g) === keyOf(f));
    const match = same.find((g) => !at(g)) ?? same[0];
    if (match) fresh.splice(fresh.indexOf(match), 1);
  }
  let level: Level | undefined;
  const by = new Set<string>();
  const elsewhere: Finding[] = [];
  for (const f of fresh) {
    if (!at(f)) {
      elsewhere.push(f);
      continue;
    }
    by.add(f.check);
    if (!level || rank(f.level) > rank(level)) level = f.level;
  }
  return {
    caught: level !== undefined && (m.expected === "any" || rank(level) >= rank(m.expected)),
    ...(level ? { level } : {}),
    by: [...by],
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
  /** No MUST finding: the lint verdict is Build Ready. */
  buildReady: boolean;
  /** Findings of the profile's vague-quantity checks. */
  vague: number;
  byCheck: Record<string, number>;
  /** The doc's status when it is no longer in force (superseded, withdrawn, ...): no defect is planted into it. */
  inactive?: string;
  mutations: {
    kind: DefectKind;
    check: string;
    expected: Level | "any";
    caught: boolean;
    level?: Level;
    by: string[];
    elsewhere: string[];
    note: string;
  }[];
}

export interface KindReport {
  kind: DefectKind;
  /** The level it is judged at, as the table says ("profile": the profile's level for its check). */
  judged: string;
  target: number;
  applied: number;
  caught: number;
  recall: number;
  elsewhere: number;
  missed: string[];
}

/** One finding to judge by hand, in place. */
export interface DumpRow {
  doc: string;
  line: number;
  level: Level;
  check: string;
  message: string;
  quote: string;
  /** The paragraph (list item, table, heading) the finding sits in. */
  paragraph: string;
}

export interface Figure {
  name: string;
  value: number;
  target: number;
  /** "max": the value must not exceed the target; "min": it must reach it. */
  bound: "max" | "min";
  met: boolean;
}

export interface EvalReport {
  folder: string;
  mode: EvalMode;
  docs: DocReport[];
  kinds: KindReport[];
  mustPerDoc: number;
  findingsPerDoc: number;
  buildReadyShare: number;
  vaguePerDoc: number;
  /** Slugs counted as vague-quantity findings (checks of a kind or slug naming "vague"). */
  vagueChecks: string[];
  figures: Figure[];
  /** MUST findings (with `dump.must`) and findings of `dump.checks`, to judge by hand. */
  dump: { must: DumpRow[]; checks: Record<string, DumpRow[]> };
  infer?: InferSummary;
  targets: { met: boolean };
}

export interface InferSummary {
  seed: number;
  key: string;
  extends?: string;
  learnedFrom: number;
  measuredOn: number;
  elements: InferredProfile["elements"];
  misfits: InferredProfile["misfits"];
}

export interface EvalOptions {
  /** Force this profile on every doc. */
  profile?: string;
  profiles?: readonly Profile[];
  /** Only these docs (paths relative to the folder, posix) are measured; the rest stay in the repository. */
  only?: ReadonlySet<string>;
  /** Which targets apply (default "built-in"). */
  mode?: EvalMode;
  /** Collect every MUST finding, and every finding of these checks, for judging by hand. */
  dump?: { must?: boolean; checks?: readonly string[] };
}

const toPosix = (p: string) => (sep === "/" ? p : p.split(sep).join("/"));

const isVagueCheck = (c: { kind: string; slug: string }) => /vague/i.test(c.kind) || /vague/i.test(c.slug);

/** A folder's template or index, not a spec a team accepted: `template.md`, `0000-template.md`, `index.md`. */
export const NOT_A_SPEC = /(?:^|\/)(?:[^/]*[-_.])?(?:template|index|_index)\.(?:md|markdown)$/i;

/** Markdown docs under a folder (posix paths relative to it), sorted; templates and indexes left out. */
export function markdownDocs(root: string): string[] {
  return walkFiles(root)
    .map(toPosix)
    .filter((f) => /\.(md|markdown)$/i.test(f) && !NOT_A_SPEC.test(f))
    .sort();
}

/** The finding's line (1-based) and the innermost block holding it, as written. */
function placeOf(doc: MarkdownDoc, f: Finding): { line: number; paragraph: string } {
  const c = doc.index.charOf(f.anchor.start);
  const line = doc.index.lineOfChar(c) + 1;
  let block: (typeof doc.blocks)[number] | undefined;
  for (const b of doc.blocks) {
    if (b.charStart > c) break;
    if (c < b.charEnd || (c === b.charStart && b.charEnd === b.charStart)) block = b;
  }
  let [s, e] = block
    ? [block.charStart, block.charEnd]
    : [doc.index.charOfLine(line - 1), doc.index.charOfLine(line) - 1];
  // A heading alone says little: add what follows it, up to the next blank line.
  if (block?.kind === "heading") {
    const next = doc.blocks[doc.blocks.indexOf(block) + 1];
    if (next) e = next.charEnd;
  }
  if (s < 0) s = 0;
  let paragraph = doc.text.slice(s, Math.max(s, e)).replace(/\r\n/g, "\n").trim();
  if (paragraph.length > 1200) paragraph = `${paragraph.slice(0, 1200)}…`;
  return { line, paragraph };
}

/** Lint and mutate every markdown doc under `folder` (each doc's bundle is its folder; the folder is the repository). */
export function runEval(folder: string, options: EvalOptions = {}): EvalReport {
  const root = resolve(folder);
  const rootIsRepository = existsSync(join(root, ".git"));
  const mode = options.mode ?? "built-in";
  const profiles =
    options.profiles ?? loadProfiles(fsProfileSource(join(packageRoot(), "profiles"))).profiles;
  const forced = options.profile ? profiles.find((p) => p.key === options.profile) : undefined;
  if (options.profile && !forced)
    throw new Error(`unknown profile '${options.profile}' (${profiles.map((p) => p.key).join(", ")})`);
  const docs: DocReport[] = [];
  const dump: EvalReport["dump"] = { must: [], checks: {} };
  for (const slug of options.dump?.checks ?? []) dump.checks[slug] = [];
  const vagueChecks = new Set<string>();
  const all = markdownDocs(root).filter((f) => !options.only || options.only.has(f));
  const bundleCache = new Map<string, Map<string, Uint8Array>>();
  for (const rel of all) {
    const bundleDir = dirname(rel) === "." ? "" : dirname(rel);
    let files = bundleCache.get(bundleDir);
    if (!files) {
      const abs = join(root, bundleDir);
      files = new Map(walkFiles(abs).map((f) => [toPosix(f), readFileSync(join(abs, f))]));
      bundleCache.set(bundleDir, files);
    }
    const main = toPosix(relative(join(root, bundleDir), join(root, rel)));
    const repo = {
      bundlePath: toPosix(bundleDir),
      exists: (p: string) => existsSync(join(root, p)),
      // A folder copied out of a repository: its root-absolute links may name files left behind.
      rootKnown: rootIsRepository,
    };
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
    const vagueHere = new Set(profile.checks.filter(isVagueCheck).map((c) => c.slug));
    for (const v of vagueHere) vagueChecks.add(v);
    const doc = parseMarkdown(new TextDecoder().decode(files.get(main)));
    const adopting = base.adopt !== undefined;
    const byCheck: Record<string, number> = {};
    for (const f of base.findings)
      byCheck[`${f.level} ${f.check}`] = (byCheck[`${f.level} ${f.check}`] ?? 0) + 1;
    const must = base.findings.filter((f) => f.level === "MUST").length;
    for (const f of base.findings) {
      const wantMust = options.dump?.must && f.level === "MUST";
      const wantCheck = dump.checks[f.check];
      if (!wantMust && !wantCheck) continue;
      const row: DumpRow = {
        doc: toPosix(rel),
        ...placeOf(doc, f),
        level: f.level,
        check: f.check,
        message: f.message,
        quote: f.anchor.quote,
      };
      if (wantMust) dump.must.push(row);
      if (wantCheck) wantCheck.push(row);
    }
    const report: DocReport = {
      path: toPosix(rel),
      profile_key: base.profile_key,
      size: base.size,
      adopted: adopting,
      findings: base.findings.length,
      must,
      buildReady: must === 0,
      vague: base.findings.filter((f) => vagueHere.has(f.check)).length,
      byCheck,
      mutations: [],
    };
    const metadata = [...files.entries()]
      .filter(([f]) => !f.includes("/") && /\.ya?ml$/i.test(f))
      .map(([, b]) => new TextDecoder().decode(b));
    const inactive = inactiveStatus(doc, metadata);
    if (inactive !== undefined) report.inactive = inactive;
    for (const m of inactive !== undefined ? [] : mutations(doc, main, profile, adopting)) {
      const after = lint(m.text);
      const j = judge(base, after, parseMarkdown(m.text), m);
      report.mutations.push({
        kind: m.kind,
        check: m.check,
        expected: m.expected,
        caught: j.caught,
        ...(j.level ? { level: j.level } : {}),
        by: j.by,
        elsewhere: j.elsewhere.map((f) => `${f.level} ${f.check}: ${f.message}`),
        note: m.note,
      });
    }
    docs.push(report);
  }
  const kinds = DEFECTS.map((spec): KindReport => {
    const runs = docs.flatMap((d) => d.mutations.filter((m) => m.kind === spec.kind).map((m) => ({ d, m })));
    const caught = runs.filter((r) => r.m.caught).length;
    return {
      kind: spec.kind,
      judged: spec.level,
      target: spec.target,
      applied: runs.length,
      caught,
      recall: runs.length === 0 ? NaN : caught / runs.length,
      elsewhere: runs.reduce((n, r) => n + r.m.elsewhere.length, 0),
      missed: runs
        .filter((r) => !r.m.caught)
        .map(
          (r) =>
            `${r.d.path}: ${r.m.note}${r.m.level ? ` (seen at ${r.m.level} by ${r.m.by.join(", ")}, needs ${r.m.expected})` : ""}`,
        ),
    };
  });
  const n = Math.max(1, docs.length);
  const mustPerDoc = docs.reduce((s, d) => s + d.must, 0) / n;
  const findingsPerDoc = docs.reduce((s, d) => s + d.findings, 0) / n;
  const buildReadyShare = docs.length === 0 ? NaN : docs.filter((d) => d.buildReady).length / docs.length;
  const vaguePerDoc = docs.reduce((s, d) => s + d.vague, 0) / n;
  const figures = computeFigures(mode, { mustPerDoc, buildReadyShare, vaguePerDoc }, kinds);
  return {
    folder: root,
    mode,
    docs,
    kinds,
    mustPerDoc,
    findingsPerDoc,
    buildReadyShare,
    vaguePerDoc,
    vagueChecks: [...vagueChecks].sort(),
    figures,
    dump,
    targets: { met: figures.every((f) => f.met) },
  };
}

/** The figures against the issue's targets: per doc figures of the mode, and recall per applied kind. */
export function computeFigures(
  mode: EvalMode,
  asIs: { mustPerDoc: number; buildReadyShare: number; vaguePerDoc: number },
  kinds: readonly Pick<KindReport, "kind" | "applied" | "recall" | "target" | "judged">[],
): Figure[] {
  const t = TARGETS[mode];
  const fig = (name: string, value: number, target: number, bound: "max" | "min"): Figure => ({
    name,
    value,
    target,
    bound,
    met: Number.isNaN(value) ? false : bound === "max" ? value <= target : value >= target,
  });
  return [
    fig("MUST findings per accepted doc", asIs.mustPerDoc, t.mustPerDoc, "max"),
    fig("accepted docs Build Ready", asIs.buildReadyShare, t.buildReady, "min"),
    fig("vague-quantity findings per accepted doc", asIs.vaguePerDoc, t.vaguePerDoc, "max"),
    ...kinds
      .filter((k) => k.applied > 0)
      .map((k) =>
        fig(
          `recall ${k.kind} (${k.judged === "profile" ? "profile's level" : k.judged === "any" ? "any level" : k.judged})`,
          k.recall,
          k.target,
          "min",
        ),
      ),
  ];
}

/** Split paths in halves by a seeded shuffle: `learn` (the larger half when odd) and `measure`. */
export function seededSplit(paths: readonly string[], seed: number): { learn: string[]; measure: string[] } {
  const xs = [...paths].sort();
  const rnd = rng(seed); // mulberry32: the same seed gives the same split on every machine
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [xs[i], xs[j]] = [xs[j]!, xs[i]!];
  }
  const half = Math.ceil(xs.length / 2);
  return { learn: xs.slice(0, half).sort(), measure: xs.slice(half).sort() };
}

export type Infer = (docs: readonly InferDoc[], opts: InferOptions) => InferredProfile;

export interface InferEvalOptions {
  seed?: number;
  key?: string;
  extends?: string;
  /** The inference (core/profile/infer.ts); a test hands in its own. */
  infer?: Infer;
  dump?: EvalOptions["dump"];
}

const METADATA_FILE = /\.(ya?ml|json)$/i;

/**
 * `--infer`: learn a profile from one half of the docs (a seeded shuffle) with their
 * metadata files, load it through the normal profile loader (built-ins below it, so
 * `extends:` resolves), and measure the other half with it.
 */
export function runInferEval(folder: string, options: InferEvalOptions = {}): EvalReport {
  const root = resolve(folder);
  const seed = options.seed ?? 1;
  const key = options.key ?? "inferred";
  const { learn, measure } = seededSplit(markdownDocs(root), seed);
  const learnSet = new Set(learn);
  const input: InferDoc[] = [];
  for (const f of walkFiles(root).map(toPosix).sort()) {
    if (/\.(md|markdown)$/i.test(f)) {
      if (learnSet.has(f)) input.push({ path: f, text: readFileSync(join(root, f), "utf8") });
    } else input.push({ path: f, text: METADATA_FILE.test(f) ? readFileSync(join(root, f), "utf8") : "" });
  }
  const builtinDir = builtinProfilesDir();
  const builtins = loadProfiles(fsProfileSource(builtinDir)).profiles;
  const parent = options.extends ? builtins.find((p) => p.key === options.extends) : undefined;
  if (options.extends && !parent)
    throw new Error(`unknown profile '${options.extends}' (${builtins.map((p) => p.key).join(", ")})`);
  const inferred = (options.infer ?? inferProfile)(input, {
    key,
    ...(options.extends ? { extends: options.extends } : {}),
    ...(parent ? { parent } : {}),
  });
  const dir = mkdtempSync(join(tmpdir(), "sr-infer-"));
  try {
    mkdirSync(join(dir, key));
    writeFileSync(join(dir, key, "profile.yaml"), inferred.yaml);
    writeFileSync(join(dir, key, "template.md"), inferred.template);
    const loaded = loadProfileLayers([
      { dir: builtinDir, origin: "built-in" },
      { dir, origin: "repository" },
    ]);
    const own = loaded.errors.filter((e) => e.file.startsWith(dir));
    if (own.length > 0)
      throw new Error(
        `the inferred profile does not load:\n${own.map((e) => `${key}/${basename(e.file)}:${e.line}:${e.column} ${e.message}`).join("\n")}`,
      );
    const report = runEval(root, {
      profile: key,
      profiles: loaded.profiles,
      only: new Set(measure),
      mode: "inferred",
      ...(options.dump ? { dump: options.dump } : {}),
    });
    report.infer = {
      seed,
      key,
      ...(options.extends ? { extends: options.extends } : {}),
      learnedFrom: learn.length,
      measuredOn: measure.length,
      elements: inferred.elements,
      misfits: inferred.misfits,
    };
    return report;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const oneLine = (s: string) => s.replace(/\s*\n\s*/g, " ⏎ ").replace(/\t/g, " ");

/**
 * The findings to judge, as a file a person fills in: TSV (for a `.tsv` path: one row per
 * finding, a last `verdict` column) or markdown (one entry per finding, with its paragraph
 * quoted and a `verdict:` line). Verdicts: `y` (a reviewer of the doc agrees it must be
 * fixed), `n` (does not), blank (not judged).
 */
export function formatDump(rows: readonly DumpRow[], file: string, title: string): string {
  if (file.toLowerCase().endsWith(".tsv")) {
    const head = ["n", "doc", "line", "level", "check", "message", "quote", "paragraph", "verdict"];
    return `${[
      head.join("\t"),
      ...rows.map((r, i) =>
        [String(i + 1), r.doc, String(r.line), r.level, r.check, r.message, r.quote, r.paragraph, ""]
          .map(oneLine)
          .join("\t"),
      ),
    ].join("\n")}\n`;
  }
  const out = [
    `# ${title}`,
    "",
    `${rows.length} findings. Read each in its doc and fill its verdict line with \`y\` (a reviewer of that doc agrees it must be fixed before anyone builds from it) or \`n\`; then \`npm run eval:lint -- --tally <this file>\`.`,
    "",
  ];
  rows.forEach((r, i) => {
    out.push(
      `## ${i + 1}. ${r.doc}:${r.line} ${r.level} ${r.check}`,
      "",
      `${r.message} (quote: \`${r.quote.replace(/`/g, "'").replace(/\s+/g, " ")}\`)`,
      "",
      ...r.paragraph.split("\n").map((l) => `> ${l}`.trimEnd()),
      "",
      "verdict: ",
      "",
    );
  });
  return out.join("\n");
}

export interface Tally {
  check: string;
  read: number;
  agreed: number;
  unjudged: number;
  precision: number;
}

const AGREE = /^(?:y|yes|agree|ok|right|1|true)$/i;
const DISAGREE = /^(?:n|no|disagree|wrong|0|false)$/i;

/** Count the verdicts of a filled dump (either format): per check and in total ("*"). */
export function tallyDump(text: string): Tally[] {
  const verdicts: { check: string; verdict: string }[] = [];
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  if (lines[0]?.startsWith("n\tdoc\t")) {
    const head = lines[0].split("\t");
    const [ci, vi] = [head.indexOf("check"), head.indexOf("verdict")];
    for (const l of lines.slice(1)) {
      if (l.trim() === "") continue;
      const cells = l.split("\t");
      verdicts.push({ check: cells[ci] ?? "?", verdict: (cells[vi] ?? "").trim() });
    }
  } else {
    let check: string | undefined;
    for (const l of lines) {
      const h = /^## \d+\. \S+ (?:MUST|SHOULD|INFO) (\S+)/.exec(l);
      if (h) check = h[1];
      const v = /^verdict:(.*)$/i.exec(l);
      if (v && check !== undefined) {
        verdicts.push({ check, verdict: v[1]!.trim() });
        check = undefined;
      }
    }
  }
  const by = new Map<string, Tally>();
  const add = (check: string, verdict: string) => {
    const t = by.get(check) ?? { check, read: 0, agreed: 0, unjudged: 0, precision: NaN };
    if (AGREE.test(verdict)) {
      t.read++;
      t.agreed++;
    } else if (DISAGREE.test(verdict)) t.read++;
    else t.unjudged++;
    t.precision = t.read === 0 ? NaN : t.agreed / t.read;
    by.set(check, t);
  };
  for (const v of verdicts) {
    add(v.check, v.verdict);
    add("*", v.verdict);
  }
  return [...by.values()].sort((a, b) =>
    a.check === "*" ? 1 : b.check === "*" ? -1 : a.check.localeCompare(b.check),
  );
}

const pct = (x: number) => (Number.isNaN(x) ? "n/a" : `${(x * 100).toFixed(1)}%`);

/** The report as the terminal shows it. */
export function formatReport(r: EvalReport): string {
  const lines: string[] = [];
  lines.push(`Lint eval over ${r.docs.length} docs in ${r.folder} (${r.mode} profile)`);
  if (r.infer) {
    lines.push(
      `  profile '${r.infer.key}'${r.infer.extends ? ` (extends ${r.infer.extends})` : ""} inferred from ${r.infer.learnedFrom} docs (seed ${r.infer.seed}), measured on the other ${r.infer.measuredOn}`,
    );
    for (const e of r.infer.elements)
      lines.push(`    ${e.kind.padEnd(14)} ${e.name}  ${pct(e.share)}${e.detail ? `  ${e.detail}` : ""}`);
    if (r.infer.misfits.length > 0) {
      lines.push(`  ${r.infer.misfits.length} docs did not fit:`);
      for (const m of r.infer.misfits) lines.push(`    ${m.path}: ${m.why}`);
    }
  }
  lines.push("", "Accepted specs as they are:");
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
  const mustBy = new Map<string, number>();
  for (const d of r.docs)
    for (const [k, v] of Object.entries(d.byCheck))
      if (k.startsWith("MUST ")) mustBy.set(k.slice(5), (mustBy.get(k.slice(5)) ?? 0) + v);
  lines.push(
    "",
    `  ${r.findingsPerDoc.toFixed(2)} findings per doc; ${r.mustPerDoc.toFixed(2)} MUST findings per doc; ${pct(r.buildReadyShare)} Build Ready; ${r.vaguePerDoc.toFixed(2)} vague-quantity findings per doc (${r.vagueChecks.join(", ") || "no vague-quantity check in the profile"})`,
    `  MUST findings by check: ${
      [...mustBy.entries()]
        .sort((a, b) => b[1] - a[1])
        .map(([k, v]) => `${k} ${v}`)
        .join(", ") || "none"
    }`,
    "",
    `Known defects, one at a time${
      r.docs.some((d) => d.inactive !== undefined)
        ? ` (not planted into the ${r.docs.filter((d) => d.inactive !== undefined).length} docs no longer in force: superseded, withdrawn, rejected, ...)`
        : ""
    }:`,
    `  ${"defect".padEnd(22)}  ${"judged at".padEnd(9)}  applied  caught  recall  target   caught by            new findings elsewhere`,
  );
  for (const k of r.kinds) {
    const by = new Map<string, number>();
    for (const d of r.docs)
      for (const m of d.mutations)
        if (m.kind === k.kind && m.caught) for (const c of m.by) by.set(c, (by.get(c) ?? 0) + 1);
    const byText = [...by.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([c, v]) => `${c} ${v}`)
      .join(", ");
    lines.push(
      `  ${k.kind.padEnd(22)}  ${k.judged.padEnd(9)}  ${String(k.applied).padStart(7)}  ${String(k.caught).padStart(6)}  ${pct(k.recall).padStart(6)}  ${pct(k.target).padStart(6)}   ${(byText || "-").padEnd(20)} ${k.elsewhere}`,
    );
  }
  const missed = r.kinds.flatMap((k) => k.missed.map((m) => `  ${k.kind}: ${m}`));
  if (missed.length > 0) lines.push("", "Missed:", ...missed);
  const elsewhere = r.docs.flatMap((d) =>
    d.mutations.flatMap((m) => m.elsewhere.map((e) => `  ${d.path} [${m.kind}]: ${e}`)),
  );
  if (elsewhere.length > 0) lines.push("", "New findings elsewhere:", ...elsewhere);
  lines.push("", `Targets (issue 29, ${r.mode} profile):`);
  for (const f of r.figures) {
    const v =
      f.name.startsWith("recall") || f.name.includes("Build Ready") ? pct(f.value) : f.value.toFixed(2);
    const t =
      f.name.startsWith("recall") || f.name.includes("Build Ready") ? pct(f.target) : String(f.target);
    lines.push(
      `  ${f.name.padEnd(52)} ${v.padStart(7)}  ${f.bound === "max" ? "<=" : ">="} ${t.padEnd(6)}  ${f.met ? "met" : "NOT met"}`,
    );
  }
  lines.push(`Targets: ${r.targets.met ? "met" : "NOT met"}`);
  return `${lines.join("\n")}\n`;
}

/** Write the dumps a run asked for; returns what was written, for the terminal. */
function writeDumps(r: EvalReport, must: string | undefined, checks: readonly [string, string][]): string[] {
  const written: string[] = [];
  const write = (file: string, rows: readonly DumpRow[], title: string) => {
    mkdirSync(dirname(resolve(file)), { recursive: true });
    writeFileSync(file, formatDump(rows, file, title));
    written.push(`${rows.length} findings to judge in ${file}`);
  };
  if (must) write(must, r.dump.must, `MUST findings on ${r.folder} (${r.mode} profile)`);
  for (const [slug, file] of checks)
    write(file, r.dump.checks[slug] ?? [], `Findings of '${slug}' on ${r.folder} (${r.mode} profile)`);
  return written;
}

const USAGE = `usage: npm run eval:lint -- <folder> [--profile KEY | --infer [--seed N] [--extends KEY] [--key KEY]]
                           [--dump-must FILE] [--dump-check SLUG[=FILE]]... [--json]
       npm run eval:lint -- --tally <filled dump>...
`;

function main(): void {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: {
        profile: { type: "string" },
        json: { type: "boolean", default: false },
        infer: { type: "boolean", default: false },
        seed: { type: "string" },
        extends: { type: "string" },
        key: { type: "string" },
        "dump-must": { type: "string" },
        "dump-check": { type: "string", multiple: true },
        tally: { type: "boolean", default: false },
      },
    });
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  const { values, positionals } = parsed;
  if (values.tally) {
    if (positionals.length === 0) {
      process.stderr.write(USAGE);
      process.exit(2);
    }
    for (const file of positionals) {
      process.stdout.write(`${file}:\n`);
      for (const t of tallyDump(readFileSync(file, "utf8")))
        process.stdout.write(
          `  ${(t.check === "*" ? "all checks" : t.check).padEnd(24)} ${pct(t.precision).padStart(6)} agreed (${t.agreed}/${t.read} read${t.unjudged > 0 ? `, ${t.unjudged} not judged` : ""})\n`,
        );
    }
    return;
  }
  const folder = positionals[0];
  const seed = values.seed === undefined ? 1 : Number(values.seed);
  if (!folder || !Number.isInteger(seed) || (values.infer && values.profile)) {
    process.stderr.write(USAGE);
    process.exit(2);
  }
  const checks = (values["dump-check"] ?? []).map((s): [string, string] => {
    const [slug, file] = s.split("=", 2) as [string, string | undefined];
    return [slug, file ?? join("tmp", "eval", `lint-${slug}.md`)];
  });
  const dump = { must: values["dump-must"] !== undefined, checks: checks.map(([s]) => s) };
  const report = values.infer
    ? runInferEval(folder, {
        seed,
        ...(values.extends ? { extends: values.extends } : {}),
        ...(values.key ? { key: values.key } : {}),
        dump,
      })
    : runEval(folder, { ...(values.profile ? { profile: values.profile } : {}), dump });
  const written = writeDumps(report, values["dump-must"], checks);
  process.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
  for (const w of written) process.stderr.write(`${w}\n`);
  process.exitCode = report.targets.met ? 0 : 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) main();
