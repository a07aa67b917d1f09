/**
 * Ends a run with one plain line, `N passed, N failed, N skipped`, for CI logs.
 *
 * "failed" counts failed tests, and also every failure no test carries: a file that
 * does not import or collect, a failing `beforeAll`/`afterAll` hook, an unhandled error.
 * A run vitest calls failed never ends with `0 failed`.
 */
import type { Reporter, TestModule, TestRunEndReason } from "vitest/node";

export interface Summary {
  passed: number;
  failed: number;
  skipped: number;
  /** Of `failed`: files and suites that failed outside their tests (imports, collection, hooks). */
  erroredOutsideTests: number;
  /** Of `failed`: errors raised outside any test. */
  unhandled: number;
}

/** The subset of vitest's reported modules and suites the summary reads. */
type Suiteish = Pick<TestModule, "errors" | "state"> & {
  children: Pick<TestModule["children"], "allTests" | "allSuites">;
};

function suiteFailedOutsideTests(suite: Pick<TestModule, "errors" | "state">, testFailed: boolean): boolean {
  if (suite.errors().length > 0) return true;
  return suite.state() === "failed" && !testFailed;
}

export function summarize(
  modules: ReadonlyArray<Suiteish>,
  unhandledErrors: ReadonlyArray<unknown> = [],
  reason?: TestRunEndReason,
): Summary {
  const s: Summary = { passed: 0, failed: 0, skipped: 0, erroredOutsideTests: 0, unhandled: 0 };
  for (const m of modules) {
    let moduleTestFailed = false;
    for (const t of m.children.allTests()) {
      const state = t.result().state;
      if (state === "passed") s.passed++;
      else if (state === "failed") {
        s.failed++;
        moduleTestFailed = true;
      } else s.skipped++;
    }
    let suiteErrored = false;
    for (const suite of m.children.allSuites()) {
      let testFailed = false;
      for (const t of suite.children.allTests()) if (t.result().state === "failed") testFailed = true;
      if (suiteFailedOutsideTests(suite, testFailed)) {
        s.erroredOutsideTests++;
        suiteErrored = true;
      }
    }
    if (!suiteErrored && suiteFailedOutsideTests(m, moduleTestFailed)) s.erroredOutsideTests++;
  }
  s.unhandled = unhandledErrors.length;
  s.failed += s.erroredOutsideTests + s.unhandled;
  // Whatever the cause, a failed run never reads as `0 failed`.
  if (reason === "failed" && s.failed === 0) {
    s.failed = 1;
    s.unhandled = 1;
  }
  return s;
}

export function summaryLine(s: Summary): string {
  const extra: string[] = [];
  if (s.erroredOutsideTests > 0)
    extra.push(
      `${s.erroredOutsideTests} file${s.erroredOutsideTests === 1 ? "" : "s"} or hooks failed outside tests`,
    );
  if (s.unhandled > 0) extra.push(`${s.unhandled} unhandled error${s.unhandled === 1 ? "" : "s"}`);
  return `${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped${extra.length ? ` (${extra.join(", ")})` : ""}`;
}

export default class SummaryLine implements Reporter {
  onTestRunEnd(
    modules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<unknown>,
    reason: TestRunEndReason,
  ): void {
    process.stdout.write(`\n${summaryLine(summarize(modules, unhandledErrors, reason))}\n`);
  }
}
