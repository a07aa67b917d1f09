/**
 * `spec-review lint [paths...] [--format text|json|sarif] [--profiles DIR]`: lint spec
 * bundles without a server or database. Exit 0 when every doc is Build Ready at lint
 * level, 1 when not (or a folder is not a valid bundle), 2 on usage errors.
 * See docs/lint-cli.md.
 */
import type { DocReport, LintReport } from "../node/lint.js";
import type { LoadedProfiles, ProfileLayer } from "../node/profiles.js";
import type { Profile } from "../core/profile/schema.js";
import { adoptionNote } from "../core/lint/adopt.js";
import { commandArgs, usageError } from "./args.js";

export const LINT_USAGE = `spec-review lint [paths...] [options]

Lints the spec bundles under each path (default: the current folder): a folder holding
exactly one markdown file whose frontmatter names a type. Markdown that names none is a
spec doc too when .spec-review/config.yaml maps its path (or a glob) to a type, or with
--profile. A markdown file given as a path is linted as it is, adopting a profile when it
names none.

Profiles: the built-ins, plus the repository's own in .spec-review/profiles/<key>/
(the nearest at or above the current folder), plus each --profiles folder; a profile
with the key of an earlier one replaces it.

Options:
  -f, --format <text|json|sarif>  output format (default: text)
  -p, --profiles <dir>            add a folder of profiles (<key>/profile.yaml); repeatable
  -P, --profile <key>             lint markdown that names no type with this profile
                                  (docs naming a type keep theirs)
      --workers <n>               threads that lint, the main one included (default: by the
                                  number of docs and cores; 0 or 1: the main thread only)
  -h, --help                      show this help

Exit status: 0 every doc is Build Ready, 1 some doc is not, 2 usage error or no spec
doc under the paths.
`;

const FORMATS = ["text", "json", "sarif"] as const;
type Format = (typeof FORMATS)[number];

export async function lintCommand(argv: string[]): Promise<number> {
  const parsed = commandArgs(
    "lint",
    argv,
    {
      format: { type: "string", short: "f" },
      profiles: { type: "string", short: "p", multiple: true },
      profile: { type: "string", short: "P" },
      help: { type: "boolean", short: "h" },
      workers: { type: "string" },
    },
    LINT_USAGE,
  );
  if (typeof parsed === "number") return parsed;
  const { values, positionals } = parsed;
  const format = (values.format ?? "text") as Format;
  if (!FORMATS.includes(format))
    return usageError("lint", `--format must be one of ${FORMATS.join(", ")}, not '${values.format}'`);
  let workers: number | undefined;
  if (values.workers !== undefined) {
    workers = Number(values.workers);
    if (!Number.isInteger(workers) || workers < 0)
      return usageError("lint", `--workers must be a whole number, not '${values.workers}'`);
  }
  const paths = positionals.length > 0 ? positionals : ["."];

  // Workers first (when the paths hold many docs): they load the lint engine while this thread does.
  const early = (await import("./lint-early.js")).startEarly(paths, process.cwd(), workers);
  let report: LintReport & { loaded: LoadedProfiles };
  try {
    const { lintPaths, LintUsageError } = await import("./lint-fs.js");
    try {
      report = await lintPaths(paths, {
        profilesDirs: values.profiles ?? [],
        workers,
        early,
        ...(values.profile !== undefined ? { profile: values.profile } : {}),
      });
    } catch (err) {
      if (err instanceof LintUsageError) return usageError("lint", err.message);
      throw err;
    }
  } finally {
    early.pool?.close();
  }
  // A mistyped path in CI must not pass as "nothing to lint".
  if (report.docs.length === 0 && report.problems.length === 0) {
    const names = report.skipped.length;
    process.stderr.write(
      `spec-review lint: no spec docs found under ${paths.join(", ")}` +
        (names > 0
          ? ` (${names} markdown file${names === 1 ? "" : "s"} name${names === 1 ? "s" : ""} no type in their frontmatter; add \`type: <profile>\`, map ${names === 1 ? "its path" : "their paths"} in .spec-review/config.yaml \`types:\`, or pass --profile KEY to lint ${names === 1 ? "it" : "them"})`
          : " (a spec doc is a markdown file whose frontmatter names a type)") +
        "\n",
    );
    return 2;
  }
  const ready = report.problems.length === 0 && report.docs.every((d) => d.verdict.result === "build_ready");
  if (format === "json")
    process.stdout.write(`${JSON.stringify(jsonReport(report, report.loaded.origins), null, 2)}\n`);
  else if (format === "sarif")
    process.stdout.write(`${JSON.stringify(await sarifReport(report, report.loaded.profiles), null, 2)}\n`);
  else process.stdout.write(textReport(report, report.loaded.origins));
  return ready ? 0 : 1;
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
  const ready = report.docs.filter((d) => d.verdict.result === "build_ready").length;
  out.push(
    `${report.docs.length} doc${report.docs.length === 1 ? "" : "s"}: ${ready} Build Ready, ${report.docs.length - ready} Not Build Ready` +
      (report.problems.length > 0
        ? `, ${report.problems.length} invalid bundle folder${report.problems.length === 1 ? "" : "s"}`
        : ""),
  );
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

async function sarifReport(report: LintReport, profiles: readonly Profile[]): Promise<unknown> {
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
    { toolVersion: packageVersion(), profiles },
  );
}
