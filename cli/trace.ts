/**
 * `spec-review trace [paths...] [--format text|json] [--profiles DIR] [--strict]`: the
 * trace matrices, gaps, link problems and suggested IDs of each folder, with no server
 * (node/ and core/ only). Exit 0, or 1 when a link is broken (or with --strict, an
 * upstream ID nobody takes on), 2 on usage errors. See docs/trace.md.
 */
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import type { FolderTrace } from "../node/trace.js";
import { commandArgs, usageError } from "./args.js";

export const TRACE_USAGE = `spec-review trace [paths...] [options]

Prints, for each folder (default: the current one), the trace matrix of every bundle that
other bundles implement (rows: its IDs; columns: the docs implementing it; each cell
covered, referenced or missing, as in the JSON output), the gaps (IDs nobody takes on),
link problems and suggested IDs.

Options:
  -f, --format <text|json>  output format (default: text)
  -p, --profiles <dir>      add a folder of profiles (<key>/profile.yaml); repeatable
      --strict              exit 1 when an upstream ID has no downstream doc naming it
  -h, --help                show this help

Exit status: 0 fine, 1 a broken link (or a gap with --strict), 2 usage error.
`;

/** The text report of one folder. */
export function traceText(folder: string, t: FolderTrace): string {
  const out: string[] = [`# ${folder}`];
  for (const p of t.invalid) out.push(`${p.path}: ${p.message}`);
  for (const m of t.matrices) {
    out.push("", `${m.upstream}: implemented by ${m.columns.join(", ")}`);
    const head = ["ID", ...m.columns];
    // Each cell in the words of the API and the JSON output: covered, referenced or missing.
    const rows = m.rows.map((r, k) => [r.id, ...m.cells[k]!]);
    const widths = head.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
    for (const r of [head, ...rows])
      out.push(`  ${r.map((v, c) => v.padEnd(widths[c]!)).join("  ")}`.trimEnd());
  }
  if (t.gaps.length > 0) {
    out.push("", "gaps (IDs no downstream doc references or covers):");
    for (const g of t.gaps) out.push(`  ${g.upstream}:${g.line} ${g.id}`);
  }
  if (t.problems.length > 0) {
    out.push("", "problems (links):");
    for (const p of t.problems) out.push(`  ${p.slug} ${p.code} ${p.message}`);
  }
  if (t.suggestions.length > 0) {
    out.push("", "suggestions (requirements without an ID):");
    for (const s of t.suggestions) out.push(`  ${s.slug}/${s.file}:${s.line} ${s.id} ${s.text}`);
  }
  if (t.matrices.length === 0 && t.problems.length === 0) out.push("", "No bundle implements another.");
  return `${out.join("\n")}\n`;
}

export async function traceCommand(argv: string[]): Promise<number> {
  const parsed = commandArgs(
    "trace",
    argv,
    {
      format: { type: "string", short: "f" },
      profiles: { type: "string", short: "p", multiple: true },
      help: { type: "boolean", short: "h" },
      strict: { type: "boolean" },
    },
    TRACE_USAGE,
  );
  if (typeof parsed === "number") return parsed;
  const { values, positionals } = parsed;
  const format = values.format ?? "text";
  if (format !== "text" && format !== "json")
    return usageError("trace", `--format must be text or json, not '${format}'`);
  const paths = positionals.length > 0 ? positionals : ["."];
  for (const p of paths)
    if (!existsSync(p) || !statSync(p).isDirectory()) return usageError("trace", `not a folder: ${p}`);
  const { profileLayers, loadLayers, LintUsageError } = await import("./lint-fs.js");
  const { traceFolder } = await import("../node/trace.js");
  let profiles;
  try {
    profiles = loadLayers(profileLayers(process.cwd(), values.profiles ?? []), process.cwd()).profiles;
  } catch (err) {
    if (err instanceof LintUsageError) return usageError("trace", err.message);
    throw err;
  }
  const folders = paths.map((p) => ({ path: p, ...traceFolder(resolve(p), profiles) }));
  if (format === "json") process.stdout.write(`${JSON.stringify({ folders }, null, 2)}\n`);
  else process.stdout.write(folders.map((f) => traceText(f.path, f)).join("\n"));
  const broken = folders.some((f) => f.problems.length > 0 || f.invalid.length > 0);
  const gaps = folders.some((f) => f.gaps.length > 0);
  return broken || (values.strict === true && gaps) ? 1 : 0;
}
