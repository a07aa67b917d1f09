/**
 * `--format junit` against what GitLab's unit test report reader documents:
 * https://docs.gitlab.com/ci/testing/unit_test_reports/ (JUnit XML: `testsuite` elements
 * holding `testcase` elements with `name`, `classname`, `file`; a case fails with a
 * `failure` (or `error`) element, its text shown as the failure; `system-out` is kept), in
 * the common JUnit XML shape (`testsuites` > `testsuite` with `tests`, `failures`,
 * `errors`, `skipped` counts). The XML is read back by a real parser (Python's
 * xml.etree, which ships with the python3 that pre-commit needs), so escaping is checked
 * by what a reader gets, not by the bytes.
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { toJunit, xmlAttr, xmlText } from "../../../core/report/junit.js";
import type { ReportDoc, ReportFinding } from "../../../core/report/findings.js";
import { DOC, lintFixture } from "./lint-fixture.js";

interface ReadCase {
  name: string;
  classname: string;
  file: string | null;
  failure: { message: string; type: string; text: string } | null;
  out: string | null;
}
interface Read {
  root: string;
  suites: { attrs: Record<string, string>; cases: ReadCase[] }[];
}

const READER = `
import json, sys, xml.etree.ElementTree as ET
root = ET.fromstring(sys.stdin.buffer.read())
def case(c):
    f = c.find("failure")
    o = c.find("system-out")
    return {"name": c.get("name"), "classname": c.get("classname"), "file": c.get("file"),
            "failure": None if f is None else {"message": f.get("message"), "type": f.get("type"), "text": f.text or ""},
            "out": None if o is None else (o.text or "")}
print(json.dumps({"root": root.tag, "suites": [{"attrs": dict(s.attrib), "cases": [case(c) for c in s.findall("testcase")]} for s in root.iter("testsuite")]}))
`;

// Skipped without python3 (said on stderr), except under CI=true, where it fails.
const python = spawnSync("python3", ["--version"]).status === 0;
const IN_CI = process.env.CI === "true";
if (!python && !IN_CI)
  process.stderr.write("junit.test.ts: skipping: no python3 to read the XML back with\n");

function read(xml: string): Read {
  const r = spawnSync("python3", ["-c", READER], { input: xml, encoding: "utf8" });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`not well-formed XML: ${r.stderr}`);
  return JSON.parse(r.stdout) as Read;
}

describe.skipIf(!python && !IN_CI)("toJunit", () => {
  it("has one test case per doc, failed by its MUST findings, the others in system-out", async () => {
    const { report } = await lintFixture({ crlf: true });
    const ready: ReportDoc = { path: "ready/prd.md", profile_key: "prd", findings: [] };
    const xml = toJunit({ docs: [...report.docs, ready] });
    const got = read(xml);
    expect(got.root).toBe("testsuites");
    expect(got.suites).toHaveLength(1);
    expect(got.suites[0]!.attrs).toMatchObject({ tests: "2", failures: "1", errors: "0", skipped: "0" });
    const [doc, ok] = got.suites[0]!.cases;
    expect(doc).toMatchObject({ name: DOC, file: DOC, classname: "spec-review.prd" });
    expect(doc!.failure!.type).toBe("MUST");
    expect(doc!.failure!.message).toBe("Not Build Ready: 1 MUST finding");
    expect(doc!.failure!.text).toMatch(/^offline-sync\/prd\.md:31:\d+ MUST prd\/undecided 'TBD' marks/);
    expect(doc!.out!.split("\n")).toHaveLength(2);
    expect(doc!.out).toContain("SHOULD prd/vague-wording");
    expect(ok).toEqual({
      name: "ready/prd.md",
      classname: "spec-review.prd",
      file: "ready/prd.md",
      failure: null,
      out: null,
    });
  });

  it("escapes what XML must, so a reader gets the text back as it was", () => {
    const nasty = `a <b> & "c" 'd' ]]> e\r\nf\tg 📴 田中`;
    const finding = {
      id: "x",
      check: "undecided",
      level: "MUST",
      category: "clarity",
      message: nasty,
      relaxed: false,
      anchor: { file: "p.md", heading_path: [], quote: "", prefix: "", suffix: "", start: 0, end: 0 },
      start: { line: 1, column: 1 },
      end: { line: 1, column: 1 },
    } satisfies ReportFinding;
    const path = `specs/R&D <"x">/prd.md`;
    const got = read(
      toJunit({
        docs: [{ path, profile_key: "prd", findings: [finding] }],
        problems: [{ path: "two & more", message: `holds "a.md" & <b.md>` }],
      }),
    );
    const [doc, problem] = got.suites[0]!.cases;
    expect(doc!.name).toBe(path);
    expect(doc!.file).toBe(path);
    expect(doc!.failure!.text).toBe(`${path}:1:1 MUST prd/undecided ${nasty}`);
    expect(problem!.failure).toEqual({
      message: `holds "a.md" & <b.md>`,
      type: "bundle-invalid",
      text: `two & more: holds "a.md" & <b.md>`,
    });
    expect(got.suites[0]!.attrs).toMatchObject({ tests: "2", failures: "2" });
  });

  it("keeps attribute newlines and tabs, and replaces characters XML cannot hold", () => {
    expect(xmlAttr("a\nb\tc\r")).toBe("a&#10;b&#9;c&#13;");
    expect(xmlText("bell\u0007 \uD800 ok")).toBe("bell\uFFFD \uFFFD ok");
    expect(read(toJunit({ docs: [] })).suites[0]!.attrs).toMatchObject({ tests: "0", failures: "0" });
  });
});
