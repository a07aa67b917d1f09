/**
 * `--format github` against what the GitHub Actions runner reads:
 * https://docs.github.com/en/actions/reference/workflow-commands-for-github-actions
 * (`::error file={name},line={line},endLine={endLine},col={col},endColumn={endColumn},title={title}::{message}`,
 * and `::warning`, `::notice` with the same parameters; 1-based lines and columns), and the
 * toolkit's note on escaping (https://github.com/actions/toolkit/blob/main/docs/commands.md):
 * in the message `%` `\r` `\n` as `%25` `%0D` `%0A`; in a property value also `:` `,` as
 * `%3A` `%2C`. `readCommand` below decodes a line as the runner does.
 */
import { describe, expect, it } from "vitest";
import type { ReportFinding } from "../../../core/report/findings.js";
import { escapeData, escapeProperty, toGithubCommands } from "../../../core/report/github.js";
import { DOC, lintFixture, where } from "./lint-fixture.js";

const unData = (s: string) => s.replace(/%0D/g, "\r").replace(/%0A/g, "\n").replace(/%25/g, "%");
const unProperty = (s: string) => unData(s.replace(/%3A/g, ":").replace(/%2C/g, ","));

/** A workflow command line as the runner splits it: `::name k=v,k=v::message`. */
function readCommand(line: string) {
  const m = /^::([a-z-]+)(?: ([^:]*))?::(.*)$/s.exec(line);
  if (!m) return undefined;
  const props: Record<string, string> = {};
  for (const pair of (m[2] ?? "").split(",").filter(Boolean)) {
    const eq = pair.indexOf("=");
    props[pair.slice(0, eq)] = unProperty(pair.slice(eq + 1));
  }
  return { name: m[1]!, props, message: unData(m[3]!) };
}

describe("toGithubCommands", () => {
  it("writes one annotation per finding, on its line and UTF-16 columns, then the verdict", async () => {
    const { report, text } = await lintFixture({ crlf: true });
    const lines = toGithubCommands(report).trimEnd().split("\n");
    const commands = lines.map(readCommand);
    const found = commands.filter((c) => c !== undefined);
    expect(found).toHaveLength(3);
    const tbd = found.find((c) => c.name === "error")!;
    const at = where(text.replace(/\r\n/g, "\n"), "TBD");
    expect(tbd.props).toEqual({
      file: DOC,
      line: String(at.line),
      col: String(at.column),
      endColumn: String(at.column + 3),
      endLine: String(at.line),
      title: "prd/undecided (MUST)",
    });
    expect(tbd.message).toMatch(/^'TBD' marks something undecided/);
    // 'fast' comes after a ✅ (one UTF-16 unit) and a 🔴 (two) on its line.
    const fast = where(text.replace(/\r\n/g, "\n"), "fast");
    const vague = found.find((c) => c.props.title === "prd/vague-wording (SHOULD)")!;
    expect(vague.name).toBe("warning");
    expect([vague.props.line, vague.props.col]).toEqual([String(fast.line), String(fast.column)]);
    expect(lines.at(-1)).toBe(`${DOC}: Not Build Ready [prd] score 72, 1 MUST, 2 SHOULD, 0 INFO`);
  });

  it("escapes %, CR and LF in the message, and : and , in properties too", () => {
    expect(escapeData("100% done\r\nnext: a, b")).toBe("100%25 done%0D%0Anext: a, b");
    expect(escapeProperty("C:\\specs,v2\n%")).toBe("C%3A\\specs%2Cv2%0A%25");
    const finding = {
      id: "x",
      check: "undecided",
      level: "INFO",
      category: "clarity",
      message: "line one\nline two: 50%, then ::stop-commands::",
      relaxed: true,
      anchor: { file: "p.md", heading_path: [], quote: "", prefix: "", suffix: "", start: 0, end: 0 },
      start: { line: 2, column: 1 },
      end: { line: 4, column: 3 },
    } satisfies ReportFinding;
    const path = "specs/a,b:c/prd.md";
    const out = toGithubCommands({ docs: [{ path, profile_key: "prd", findings: [finding] }] });
    expect(out.split("\n").filter(Boolean)).toHaveLength(1);
    const c = readCommand(out.trimEnd())!;
    expect(c.name).toBe("notice");
    // Over several lines: no columns.
    expect(c.props).toEqual({ file: path, line: "2", endLine: "4", title: "prd/undecided (INFO, relaxed)" });
    expect(c.message).toBe(finding.message);
  });

  it("reports a folder that is not a bundle without a file", () => {
    const out = toGithubCommands({
      docs: [],
      problems: [{ path: "specs/two", message: "holds 2 spec docs" }],
    });
    expect(readCommand(out.trimEnd())).toEqual({
      name: "error",
      props: { title: "spec-review/bundle-invalid" },
      message: "specs/two: holds 2 spec docs",
    });
  });
});
