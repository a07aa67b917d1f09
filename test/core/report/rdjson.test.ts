/**
 * `--format rdjson` against reviewdog's Diagnostic Format, which `reviewdog -f=rdjson`
 * reads: https://github.com/reviewdog/reviewdog/tree/master/proto/rdf (reviewdog.proto):
 * a `DiagnosticResult` with `source.name`, `severity` and `diagnostics`; each diagnostic
 * with `message`, `location.path`, `location.range.start/end` (`line` 1-based, `column`
 * 1-based in UTF-8 bytes, `end` exclusive), `severity` ERROR/WARNING/INFO, `code.value`
 * (and `code.url`), and `suggestions` (a `range` and the `text` that replaces it).
 */
import { describe, expect, it } from "vitest";
import { toRdjson } from "../../../core/report/rdjson.js";
import { DOC, lintFixture } from "./lint-fixture.js";

/** The UTF-8 position reviewdog expects for the first `needle` in `text`. */
function utf8At(text: string, needle: string): { line: number; column: number } {
  const i = text.indexOf(needle);
  const before = text.slice(0, i);
  const lineStart = before.lastIndexOf("\n") + 1;
  return { line: before.split("\n").length, column: Buffer.byteLength(text.slice(lineStart, i)) + 1 };
}

describe("toRdjson", () => {
  for (const crlf of [false, true])
    it(`gives UTF-8 byte columns after emoji and CJK${crlf ? ", with CRLF line ends" : ""}`, async () => {
      const { report, text } = await lintFixture({ crlf });
      const result = toRdjson({ docs: report.docs.map((d) => ({ ...d, text })) });
      expect(result.source.name).toBe("spec-review");
      expect(result.severity).toBe("ERROR");
      expect(result.diagnostics).toHaveLength(3);
      for (const d of result.diagnostics) {
        expect(d.location.path).toBe(DOC);
        expect(["ERROR", "WARNING", "INFO"]).toContain(d.severity);
        expect(d.code.value).toMatch(/^prd\//);
        expect(d.message.length).toBeGreaterThan(0);
      }
      const vague = result.diagnostics.find((d) => d.code.value === "prd/vague-wording")!;
      const at = utf8At(text, "fast enough");
      // After ✅ (3 bytes, 1 UTF-16 unit) and 🔴 (4 bytes, 2 units): the byte column is 4 more than the UTF-16 one.
      expect(vague.location.range).toEqual({ start: at, end: { line: at.line, column: at.column + 4 } });
      const positioned = report.docs[0]!.findings.find((f) => f.check === "vague-wording")!;
      expect(positioned.start.column + 4).toBe(at.column);
      expect(vague.severity).toBe("WARNING");
      const tbd = result.diagnostics.find((d) => d.code.value === "prd/undecided")!;
      expect(tbd.severity).toBe("ERROR");
      expect(tbd.location.range.start).toEqual(utf8At(text, "TBD"));
      expect(tbd).not.toHaveProperty("suggestions");
    });

  it("turns a finding's fixes into suggestions, and links the check's page", async () => {
    const { report, text } = await lintFixture({ crlf: true });
    const doc = report.docs[0]!;
    const tbd = doc.findings.find((f) => f.check === "undecided")!;
    const edit = { start: tbd.anchor.start, end: tbd.anchor.end, text: "last write wins 🏁" };
    const result = toRdjson(
      { docs: [{ ...doc, text, findings: [{ ...tbd, fixes: [edit] }] }] },
      { checkUrl: (profile, check) => `https://specs.example.com/checks/${profile}/${check}` },
    );
    const d = result.diagnostics[0]!;
    const at = utf8At(text, "TBD");
    expect(d.suggestions).toEqual([
      { range: { start: at, end: { line: at.line, column: at.column + 3 } }, text: "last write wins 🏁" },
    ]);
    expect(d.code).toEqual({ value: "prd/undecided", url: "https://specs.example.com/checks/prd/undecided" });
    // Applied at the byte range, the suggestion replaces exactly the quote.
    const bytes = Buffer.from(text);
    const fixed = Buffer.concat([
      bytes.subarray(0, edit.start),
      Buffer.from(edit.text),
      bytes.subarray(edit.end),
    ]);
    expect(fixed.toString()).toContain("is last write wins 🏁.\r\n");
  });

  it("is an INFO result with no diagnostics when nothing is found", () => {
    expect(toRdjson({ docs: [] })).toEqual({
      source: { name: "spec-review" },
      severity: "INFO",
      diagnostics: [],
    });
  });
});
