/**
 * Which mentions of a trace ID in code count (docs/verification.md, "Recognised forms").
 * A mention counts when it sits in a comment, or in the name of a test; anything else
 * (a string in code, prose in a README) is not a claim that code implements the ID.
 *
 * - comment: the ID comes after `//`, `/*`, `#`, `--` or `<!--` on its line, or the line
 *   starts with `*` (inside a block comment);
 * - test name: the ID is inside the string that names a test: `it(`, `test(`, `describe(`,
 *   `context(`, `specify(` (with `.only`, `.each`, …), Go's `t.Run(`, JUnit's
 *   `@DisplayName(`, pytest's `pytest.param(…, id=`;
 * - a comment in a test file (`test/`, `tests/`, `__tests__/`, `spec/`, `*.test.*`,
 *   `*.spec.*`, `*_test.*`, `*_spec.*`, `test_*.py`, `*Test.java`, `*Tests.cs`) cites a test.
 */

export type HitKind = "code" | "test";

const TEST_DIR = /(^|\/)(tests?|__tests__|specs?)\//;
const TEST_FILE =
  /(\.(test|spec)\.[^/.]+$)|(_(test|spec)\.[^/.]+$)|(^|\/)test_[^/]*\.py$|Tests?\.(java|kt|cs)$/;

export function isTestFile(path: string): boolean {
  return TEST_DIR.test(path) || TEST_FILE.test(path);
}

// An open string right before the ID, opened as the first argument of a test-naming call.
const TEST_NAME =
  /(?:\b(?:it|test|describe|context|specify|scenario)(?:\s*\.\s*\w+)*\s*\(|\bt\.Run\s*\(|@DisplayName\s*\(|\bid\s*=)\s*[rbf]?(["'`])(?:(?!\1).)*$/;

const COMMENT_OPENER = /\/\/|\/\*|#|--|<!--/;

/** The kind of target a mention makes, or undefined when it does not count. */
export function classify(path: string, before: string): HitKind | undefined {
  if (TEST_NAME.test(before)) return "test";
  if (COMMENT_OPENER.test(before) || /^\s*\*/.test(before)) return isTestFile(path) ? "test" : "code";
  return undefined;
}
