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
 * - placeholder: leave a placeholder of the profile's own template in the main section.
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
import { searchScope } from "../core/lint/checks/forbidden-pattern.js";
import { prefixAlternatives } from "../core/lint/checks/trace-id.js";
import { lintBundle, type LintResult } from "../core/lint/engine.js";
import {
  docAnchorRange,
  firstLineRange,
  sectionContent,
  sectionScope,
  sectionsMatching,
  statementsIn,
  stripLead,
} from "../core/lint/helpers.js";
import { LEVELS, lowerLevel, type Finding, type Level } from "../core/lint/types.js";
import { parseMarkdown, type MarkdownDoc } from "../core/markdown/document.js";
import { loadProfiles } from "../core/profile/load.js";
import type { Profile, ProfileCheck } from "../core/profile/schema.js";
import { packageRoot } from "../server/paths.js";

export const DEFECT_KINDS = [
  "delete-design",
  "tbd-in-requirement",
  "break-link",
  "strip-numbers",
  "duplicate-id",
  "empty-section",
  "placeholder",
] as const;
export type DefectKind = (typeof DEFECT_KINDS)[number];

export interface Mutation {
  kind: DefectKind;
  /** The doc's text with the defect. */
  text: string;
  /** Char range of the defect in `text`. */
  site: [number, number];
  /** The level the profile gives the check that should catch it (after adoption). */
  expected: Level;
  /** The check expected to catch it, for reports. */
  check: string;
  /** What was changed, in words. */
  note: string;
}

export interface Judgement {
  caught: boolean;
  /** Highest level among new findings at the defect. */
  level?: Level;
  /** New findings not at the defect. */
  elsewhere: Finding[];
}

const rank = (l: Level) => LEVELS.length - LEVELS.indexOf(l);

/** The level an entry reports at for this doc. */
function effective(entry: ProfileCheck, adopting: boolean): Level {
  return adopting && entry.relaxed ? lowerLevel(entry.level) : entry.level;
}

function paramsOf<T>(entry: ProfileCheck): T {
  return (entry.params ?? {}) as T;
}

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
const NUMBER_WITH_UNIT =
  /(?<![\p{L}\p{N}_.-])\d[\d,.]*(?:st|nd|rd|th)?(?:\s?(?:%|ms|milliseconds?|seconds?|secs?|s|minutes?|mins?|hours?|h|days?|weeks?|months?|years?|[KMGT]i?B|bytes?|requests?|req\/s|rps|qps|times|x))?(?![\p{L}\p{N}])/gu;

function replaceRange(text: string, s: number, e: number, by: string): string {
  return text.slice(0, s) + by + text.slice(e);
}

/** Insert `words` at the end of the first line of the first paragraph of `blocks` that has a few words. */
function insertIntoParagraph(
  doc: MarkdownDoc,
  inScope: (section: number) => boolean,
  words: string,
): { text: string; site: [number, number] } | undefined {
  for (const b of doc.blocks) {
    if (b.kind !== "paragraph" || !inScope(b.section)) continue;
    if (sectionContent(doc, doc.sections[b.section]!, 1).words === 0) continue;
    const [, e] = firstLineRange(doc.text, b.charStart, b.charEnd);
    const insert = ` ${words}`;
    return { text: replaceRange(doc.text, e, e, insert), site: [e + 1, e + insert.length] };
  }
  return undefined;
}

/** The defects that can be applied to a doc under a profile, one per kind at most. */
export function mutations(doc: MarkdownDoc, file: string, profile: Profile, adopting: boolean): Mutation[] {
  const out: Mutation[] = [];
  const text = doc.text;
  const requiredSections = profile.checks.filter((c) => c.kind === "required-section");
  const main = requiredSections.find((c) => c.level === "MUST");
  const mainPattern = main ? paramsOf<{ section: string }>(main).section : undefined;

  // delete-design
  if (main && mainPattern) {
    const found = sectionsMatching(doc, mainPattern);
    const outer = found.filter(
      (s) => !found.some((o) => o !== s && o.charStart <= s.charStart && s.charEnd <= o.charEnd),
    );
    if (outer.length > 0) {
      let t = text;
      for (const s of [...outer].sort((a, b) => b.charStart - a.charStart))
        t = replaceRange(t, s.charStart, s.charEnd, "");
      out.push({
        kind: "delete-design",
        text: t,
        site: docAnchorRange(parseMarkdown(t)),
        expected: effective(main, adopting),
        check: main.slug,
        note: `deleted ${outer.map((s) => `'${s.title}'`).join(", ")}`,
      });
    }
  }

  // tbd-in-requirement
  const undecided = profile.checks.find(
    (c) =>
      c.kind === "forbidden-pattern" &&
      c.level === "MUST" &&
      paramsOf<{ phrases?: string[] }>(c).phrases?.some((p) => p.toUpperCase() === "TBD"),
  );
  if (undecided) {
    const p = paramsOf<{ sections?: string[]; exclude_sections?: string[] }>(undecided);
    const scope = searchScope(doc, p.sections ?? [], p.exclude_sections ?? []);
    const r = insertIntoParagraph(
      doc,
      (s) => scope[s] === true && doc.sections[s]!.level > 0,
      "The exact value is TBD.",
    );
    if (r)
      out.push({
        kind: "tbd-in-requirement",
        ...r,
        expected: effective(undecided, adopting),
        check: undecided.slug,
        note: "added 'The exact value is TBD.'",
      });
  }

  // break-link
  const links = profile.checks.find((c) => c.kind === "links-resolve");
  if (links) {
    const notes = new Set<string>();
    for (const m of text.matchAll(/^[ ]{0,3}\[\^[^\]\n]+\]:[ \t]*<?([^\s>]+)/gm)) notes.add(m[1]!);
    const candidates = doc.links.filter(
      (l) =>
        l.href !== "" &&
        !SCHEME.test(l.href) &&
        !l.href.startsWith("//") &&
        !notes.has(l.href) &&
        text.slice(l.charStart, l.charEnd) === l.href,
    );
    const file_ = candidates.find((l) => !l.href.startsWith("#"));
    const pick = file_ ?? candidates.find((l) => l.href.length > 1);
    if (pick) {
      const href = pick.href;
      let broken: string;
      if (href.startsWith("#")) broken = `${href}-renamed`;
      else {
        const [path, rest] = [href.replace(/[?#].*$/, ""), href.slice(href.replace(/[?#].*$/, "").length)];
        const dot = path.lastIndexOf(".");
        broken =
          dot > path.lastIndexOf("/")
            ? `${path.slice(0, dot)}-renamed${path.slice(dot)}${rest}`
            : `${path.replace(/\/$/, "")}-renamed${rest}`;
      }
      out.push({
        kind: "break-link",
        text: replaceRange(text, pick.charStart, pick.charEnd, broken),
        site: [pick.charStart, pick.charStart + broken.length],
        expected: effective(links, adopting),
        check: links.slug,
        note: `'${href}' -> '${broken}'`,
      });
    }
  }

  // strip-numbers
  const measurable = profile.checks.find((c) => c.kind === "measurable");
  if (measurable) {
    const scope = sectionScope(doc, paramsOf<{ sections: string[] }>(measurable).sections);
    for (const st of statementsIn(doc, scope)) {
      NUMBER_WITH_UNIT.lastIndex = 0;
      if (!NUMBER_WITH_UNIT.test(st.source)) continue;
      NUMBER_WITH_UNIT.lastIndex = 0;
      const stripped = st.source.replace(NUMBER_WITH_UNIT, "").replace(/[ \t]{2,}/g, " ");
      out.push({
        kind: "strip-numbers",
        text: replaceRange(text, st.charStart, st.charEnd, stripped),
        site: [st.charStart, st.charStart + stripped.length],
        expected: effective(measurable, adopting),
        check: measurable.slug,
        note: `numbers taken out of '${firstLine(st.source)}'`,
      });
      break;
    }
  }

  // duplicate-id
  const dup = profile.checks.find(
    (c) => c.kind === "trace-id" && paramsOf<{ unique?: boolean }>(c).unique !== false,
  );
  if (dup) {
    const p = paramsOf<{ prefixes?: string[]; sections?: string[] }>(dup);
    const prefixes = p.prefixes && p.prefixes.length > 0 ? p.prefixes : profile.verify_prefixes;
    if (prefixes.length > 0) {
      const idStart = new RegExp(`^(?:${prefixAlternatives(prefixes)})-[\\p{L}\\p{N}_]+`, "u");
      const scope =
        p.sections && p.sections.length > 0
          ? sectionScope(doc, p.sections)
          : new Set(doc.sections.map((s) => s.index));
      const ids: { id: string; at: number }[] = [];
      for (const st of statementsIn(doc, scope, idStart)) {
        const m = idStart.exec(stripLead(st.source));
        if (m) ids.push({ id: m[0], at: st.charStart + st.source.indexOf(m[0]) });
      }
      const first = ids[0];
      const second = ids.find((x) => first && x.id !== first.id);
      if (first && second)
        out.push({
          kind: "duplicate-id",
          text: replaceRange(text, second.at, second.at + second.id.length, first.id),
          site: [second.at, second.at + first.id.length],
          expected: effective(dup, adopting),
          check: dup.slug,
          note: `'${second.id}' renamed to '${first.id}'`,
        });
    }
  }

  // empty-section
  const hasChild = new Set(doc.sections.map((s) => s.parent));
  outer: for (const entry of requiredSections) {
    if (entry === main) continue;
    const { section, min_words } = paramsOf<{ section: string; min_words?: number }>(entry);
    if (min_words === 0) continue;
    for (const s of sectionsMatching(doc, section)) {
      if (hasChild.has(s.index) || !sectionContent(doc, s, min_words ?? 2).hasContent) continue;
      // Another section answering to the same role keeps the role filled: not this one.
      if (sectionsMatching(doc, section).length > 1) continue outer;
      const t = replaceRange(text, s.contentCharStart, s.charEnd, "\n");
      out.push({
        kind: "empty-section",
        text: t,
        site: firstLineRange(t, s.charStart, s.contentCharStart),
        expected: effective(entry, adopting),
        check: entry.slug,
        note: `emptied '${s.title}'`,
      });
      break outer;
    }
  }

  // placeholder
  const placeholder = profile.checks.find(
    (c) =>
      c.kind === "forbidden-pattern" &&
      (paramsOf<{ patterns?: string[] }>(c).patterns?.length ?? 0) > 0 &&
      c.slug.includes("placeholder"),
  );
  if (placeholder && profile.templateText) {
    const patterns = paramsOf<{ patterns: string[] }>(placeholder).patterns;
    const body = profile.templateText.replace(/^---[\s\S]*?\n---\n/, "");
    let sample: string | undefined;
    for (const p of patterns) {
      const m = new RegExp(p, "u").exec(body);
      if (m && (!sample || m.index < body.indexOf(sample))) sample = m[0];
    }
    if (sample) {
      const mainSections = new Set(mainPattern ? [...sectionScope(doc, [mainPattern])] : []);
      const r =
        insertIntoParagraph(doc, (s) => mainSections.has(s), sample) ??
        insertIntoParagraph(doc, (s) => doc.sections[s]!.level > 0, sample);
      if (r)
        out.push({
          kind: "placeholder",
          ...r,
          expected: effective(placeholder, adopting),
          check: placeholder.slug,
          note: `left '${sample}'`,
        });
    }
  }
  return out;
}

function firstLine(s: string): string {
  const l = s.split("\n")[0]!.trim();
  return l.length > 60 ? `${l.slice(0, 57)}...` : l;
}

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
