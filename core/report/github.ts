/**
 * GitHub Actions workflow commands, for a workflow that runs `spec-review lint` without the
 * Action: one `::error` (MUST), `::warning` (SHOULD) or `::notice` (INFO) line per finding,
 * which the runner turns into an annotation on the file and line; then the verdict lines
 * as plain log text. Pure.
 *
 * https://docs.github.com/en/actions/reference/workflow-commands-for-github-actions
 * Escaping as the runner decodes it (and @actions/core encodes): in the message `%`, CR
 * and LF; in a property value also `:` and `,`.
 */
import type { Level } from "../lint/types.js";
import { checkName, rangeEnd, type ReportInput } from "./findings.js";

const COMMAND: Record<Level, "error" | "warning" | "notice"> = {
  MUST: "error",
  SHOULD: "warning",
  INFO: "notice",
};

/** A command's message (the text after `::`). */
export function escapeData(s: string): string {
  return s.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

/** A property value (`file=…,title=…`). */
export function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

function command(name: string, props: Record<string, string | number>, message: string): string {
  const list = Object.entries(props)
    .map(([k, v]) => `${k}=${escapeProperty(String(v))}`)
    .join(",");
  return `::${name}${list ? ` ${list}` : ""}::${escapeData(message)}`;
}

/**
 * The commands, one per line. Columns are UTF-16 code units, 1-based; they are given only
 * when the finding starts and ends on one line (GitHub ignores them otherwise).
 */
export function toGithubCommands(input: ReportInput): string {
  const out: string[] = [];
  for (const doc of input.docs)
    for (const f of doc.findings) {
      const end = rangeEnd(f);
      const props: Record<string, string | number> = { file: doc.path, line: f.start.line };
      if (end.line === f.start.line) {
        props.col = f.start.column;
        props.endColumn = end.column;
      }
      props.endLine = end.line;
      props.title = `${checkName(doc.profile_key, f.check)} (${f.level}${f.relaxed ? ", relaxed" : ""})`;
      out.push(command(COMMAND[f.level], props, f.message));
    }
  for (const p of input.problems ?? [])
    out.push(command("error", { title: "spec-review/bundle-invalid" }, `${p.path}: ${p.message}`));
  for (const doc of input.docs) {
    const v = doc.verdict;
    if (!v) continue;
    const state = v.result === "build_ready" ? "Build Ready" : "Not Build Ready";
    // Plain log text must not read as a command.
    const line = `${doc.path}: ${state} [${doc.profile_key}] score ${v.score}, ${v.must} MUST, ${v.should} SHOULD, ${v.info} INFO`;
    out.push(line.startsWith("::") ? ` ${line}` : line);
  }
  return out.length > 0 ? `${out.join("\n")}\n` : "";
}
