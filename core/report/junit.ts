/**
 * JUnit XML, as CI systems read test reports (GitLab's unit test reports, Jenkins, Azure
 * Pipelines): one test suite, one test case per spec doc, failed by its MUST findings
 * (one `<failure>` listing them all); SHOULD and INFO findings in the case's
 * `<system-out>`. A folder that is not a valid bundle is a failed case of its own. Pure.
 *
 * https://docs.gitlab.com/ci/testing/unit_test_reports/
 */
import { checkName, type ReportInput } from "./findings.js";

export interface JunitOptions {
  /** The suite's name (default `spec-review lint`). */
  suiteName?: string;
}

// Characters XML 1.0 does not allow at all: C0 controls but tab, LF and CR; lone surrogates; U+FFFE/U+FFFF.
const NOT_XML =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Text content: `&`, `<`, `>` escaped (and `]]>` cannot form), CR kept as a reference, other forbidden characters replaced. */
export function xmlText(s: string): string {
  return s
    .replace(NOT_XML, "\uFFFD")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/\r/g, "&#13;");
}

/** An attribute value in double quotes: as text, plus `"` and `'`, and tab and newlines as references (a parser would turn them into spaces). */
export function xmlAttr(s: string): string {
  return xmlText(s)
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;")
    .replace(/\n/g, "&#10;")
    .replace(/\t/g, "&#9;");
}

function attrs(pairs: Record<string, string | number>): string {
  return Object.entries(pairs)
    .map(([k, v]) => ` ${k}="${xmlAttr(String(v))}"`)
    .join("");
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

export function toJunit(input: ReportInput, options: JunitOptions = {}): string {
  const cases: string[] = [];
  let failures = 0;
  for (const doc of input.docs) {
    const lines = (level: string) =>
      doc.findings
        .filter((f) => f.level === level)
        .map(
          (f) =>
            `${doc.path}:${f.start.line}:${f.start.column} ${f.level} ${checkName(doc.profile_key, f.check)} ${f.message}${f.relaxed ? " (relaxed)" : ""}`,
        );
    const must = lines("MUST");
    const others = [...lines("SHOULD"), ...lines("INFO")];
    const body: string[] = [];
    if (must.length > 0) {
      failures++;
      body.push(
        `      <failure${attrs({ message: `Not Build Ready: ${plural(must.length, "MUST finding")}`, type: "MUST" })}>${xmlText(must.join("\n"))}</failure>`,
      );
    }
    if (others.length > 0) body.push(`      <system-out>${xmlText(others.join("\n"))}</system-out>`);
    const head = `    <testcase${attrs({ classname: `spec-review.${doc.profile_key}`, name: doc.path, file: doc.path, assertions: doc.findings.length })}`;
    cases.push(body.length === 0 ? `${head}/>` : `${head}>\n${body.join("\n")}\n    </testcase>`);
  }
  for (const p of input.problems ?? []) {
    failures++;
    cases.push(
      `    <testcase${attrs({ classname: "spec-review.bundle", name: p.path })}>\n` +
        `      <failure${attrs({ message: p.message, type: "bundle-invalid" })}>${xmlText(`${p.path}: ${p.message}`)}</failure>\n` +
        `    </testcase>`,
    );
  }
  const tests = cases.length;
  const name = options.suiteName ?? "spec-review lint";
  const counts = { tests, failures, errors: 0, skipped: 0 };
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<testsuites${attrs({ name, ...counts })}>\n` +
    `  <testsuite${attrs({ name, ...counts })}${tests === 0 ? "/>" : `>\n${cases.join("\n")}\n  </testsuite>`}\n` +
    `</testsuites>\n`
  );
}
