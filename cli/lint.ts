/**
 * `spec-review lint [paths...] [--format FORMAT] [--profiles DIR] [--changed-since REF]
 * [--output FILE] [--no-specs-ok]`: lint spec bundles without a server or database. Exit 0
 * when every doc is Build Ready at lint level, 1 when not (or a folder is not a valid
 * bundle), 2 on usage errors. The reports are in cli/lint-report.ts. See docs/lint-cli.md.
 */
import type { LintReport } from "../node/lint.js";
import type { LoadedProfiles } from "../node/profiles.js";
import { commandArgs, usageError } from "./args.js";
import { FORMATS, type Format } from "./lint-report.js";

export { jsonReport, textReport } from "./lint-report.js";

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
  -f, --format <format>           text (default), json, sarif, codeclimate (GitLab Code
                                  Quality), junit, github (workflow commands), rdjson
                                  (reviewdog)
  -o, --output <file>             write the report to the file (atomically); stdout gets
                                  the one summary line
      --changed-since <ref>       lint only the bundles with a file changed since the git
                                  ref: git diff <ref>...HEAD, plus uncommitted and untracked
                                  files; none changed exits 0
      --no-specs-ok               no spec doc under the paths is not an error (exit 0); a
                                  markdown file given that names no type is skipped, not
                                  adopted (for hooks that pass every changed file)
  -p, --profiles <dir>            add a folder of profiles (<key>/profile.yaml); repeatable
  -P, --profile <key>             lint markdown that names no type with this profile
                                  (docs naming a type keep theirs)
      --workers <n>               threads that lint, the main one included (default: by the
                                  number of docs and cores; 0 or 1: the main thread only)
  -h, --help                      show this help

Exit status: 0 every doc is Build Ready, 1 some doc is not, 2 usage error or no spec
doc under the paths (unless --no-specs-ok).
`;

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
      output: { type: "string", short: "o" },
      "changed-since": { type: "string" },
      "no-specs-ok": { type: "boolean" },
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
  const cwd = process.cwd();
  const since = values["changed-since"];
  const noSpecsOk = values["no-specs-ok"] === true;
  if (values.output === "") return usageError("lint", "--output needs a file name");

  let changed: Set<string> | undefined;
  if (since !== undefined) {
    const [{ changedSince }, { LintUsageError }] = await Promise.all([
      import("./lint-git.js"),
      import("./lint-fs.js"),
    ]);
    try {
      changed = await changedSince(since, cwd);
    } catch (err) {
      if (err instanceof LintUsageError) return usageError("lint", err.message);
      throw err;
    }
  }

  // Workers first (when the paths hold many docs): they load the lint engine while this thread does.
  const early = (await import("./lint-early.js")).startEarly(paths, cwd, workers);
  let report: LintReport & { loaded: LoadedProfiles; unchanged: number };
  try {
    const { lintPaths, LintUsageError } = await import("./lint-fs.js");
    try {
      report = await lintPaths(paths, {
        profilesDirs: values.profiles ?? [],
        workers,
        early,
        ...(values.profile !== undefined ? { profile: values.profile } : {}),
        ...(noSpecsOk ? { skipUntypedFiles: true } : {}),
        ...(changed ? { changed } : {}),
      });
    } catch (err) {
      if (err instanceof LintUsageError) return usageError("lint", err.message);
      throw err;
    }
  } finally {
    early.pool?.close();
  }
  if (report.docs.length === 0 && report.problems.length === 0) {
    if (report.unchanged > 0)
      process.stderr.write(
        `spec-review lint: no spec doc changed since ${since} (${report.unchanged} unchanged under ${paths.join(", ")})\n`,
      );
    // A mistyped path in CI must not pass as "nothing to lint".
    else if (!noSpecsOk) {
      process.stderr.write(noSpecDocs(paths, report.skipped.length));
      return 2;
    }
  }
  const ready = report.problems.length === 0 && report.docs.every((d) => d.verdict.result === "build_ready");
  const { renderReport, summaryLine, writeReportFile } = await import("./lint-report.js");
  const content = await renderReport(format, report, cwd);
  if (values.output === undefined) process.stdout.write(content);
  else {
    try {
      writeReportFile(values.output, content);
    } catch (err) {
      process.stderr.write(
        `spec-review lint: cannot write ${values.output}: ${err instanceof Error ? err.message : String(err)}\n`,
      );
      return 2;
    }
    process.stdout.write(`${summaryLine(report)} (${format} report in ${values.output})\n`);
  }
  return ready ? 0 : 1;
}

function noSpecDocs(paths: readonly string[], names: number): string {
  return (
    `spec-review lint: no spec docs found under ${paths.join(", ")}` +
    (names > 0
      ? ` (${names} markdown file${names === 1 ? "" : "s"} name${names === 1 ? "s" : ""} no type in their frontmatter; add \`type: <profile>\`, map ${names === 1 ? "its path" : "their paths"} in .spec-review/config.yaml \`types:\`, or pass --profile KEY to lint ${names === 1 ? "it" : "them"})`
      : " (a spec doc is a markdown file whose frontmatter names a type)") +
    "\n"
  );
}
