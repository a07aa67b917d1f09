/**
 * The closing `N passed, N failed, N skipped` line: vitest runs a tiny suite in a
 * subprocess (a passing, a failing, a skipped test, a file that does not import, a
 * failing beforeAll and afterAll, an error thrown outside any test) and the line counts
 * every failure; fake modules cover the cases a real run cannot show alone.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { summarize, summaryLine } from "./summary.js";

const ROOT = resolve(import.meta.dirname, "../..");
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function runVitest(files: Record<string, string>): Promise<{ code: number; stdout: string }> {
  const dir = mkdtempSync(join(tmpdir(), "sr-summary-"));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  writeFileSync(
    join(dir, "vitest.config.ts"),
    `import SummaryLine from ${JSON.stringify(join(ROOT, "test/reporters/summary.ts"))};\n` +
      `export default { test: { include: ["*.test.ts"], reporters: [new SummaryLine()] } };\n`,
  );
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("VITEST")));
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        join(ROOT, "node_modules/vitest/vitest.mjs"),
        "run",
        "--root",
        dir,
        "--config",
        join(dir, "vitest.config.ts"),
      ],
      { cwd: ROOT, env: { ...env, NO_COLOR: "1" }, timeout: 60_000 },
    );
    return { code: 0, stdout };
  } catch (err) {
    const e = err as { code?: number; stdout?: string };
    return { code: typeof e.code === "number" ? e.code : -1, stdout: e.stdout ?? "" };
  }
}

const lastLine = (out: string) => out.trim().split("\n").pop() ?? "";

describe("the summary line of a real run", () => {
  it("counts failed tests, files that do not import, failing hooks and unhandled errors", async () => {
    const { code, stdout } = await runVitest({
      "ok.test.ts": `import { it, expect } from "vitest";\nit("passes", () => expect(1).toBe(1));\nit.skip("skipped", () => {});\n`,
      "fail.test.ts": `import { it, expect } from "vitest";\nit("fails", () => expect(1).toBe(2));\n`,
      "import.test.ts": `import { it } from "vitest";\nimport "./no-such-module.js";\nit("never collected", () => {});\n`,
      "hook.test.ts": `import { beforeAll, describe, it } from "vitest";\ndescribe("s", () => {\n  beforeAll(() => { throw new Error("hook broke"); });\n  it("never runs", () => {});\n});\n`,
      "after.test.ts": `import { afterAll, it } from "vitest";\nafterAll(() => { throw new Error("after broke"); });\nit("passes", () => {});\n`,
      "leak.test.ts": `import { it } from "vitest";\nit("leaks", () => { setTimeout(() => { throw new Error("late"); }, 0); });\nit("waits", async () => { await new Promise((r) => setTimeout(r, 50)); });\n`,
    });
    expect(code).toBe(1);
    expect(lastLine(stdout)).toBe(
      "4 passed, 5 failed, 2 skipped (3 files or hooks failed outside tests, 1 unhandled error)",
    );
  }, 90_000);

  it("says 0 failed only for a run that passed", async () => {
    const { code, stdout } = await runVitest({
      "ok.test.ts": `import { it } from "vitest";\nit("passes", () => {});\n`,
    });
    expect(code).toBe(0);
    expect(lastLine(stdout)).toBe("1 passed, 0 failed, 0 skipped");
  }, 90_000);
});

type State = "passed" | "failed" | "skipped" | "pending";
interface FakeTest {
  result: () => { state: State };
}
interface FakeSuite {
  errors: () => unknown[];
  state: () => string;
  children: { allTests: () => Generator<FakeTest>; allSuites: () => Generator<FakeSuite> };
}
function fakeSuite(opts: {
  tests?: State[];
  errors?: number;
  state?: string;
  suites?: FakeSuite[];
}): FakeSuite {
  const own: FakeTest[] = (opts.tests ?? []).map((state) => ({ result: () => ({ state }) }));
  const suites = opts.suites ?? [];
  const allTests = function* (): Generator<FakeTest> {
    yield* own;
    for (const s of suites) yield* s.children.allTests();
  };
  const allSuites = function* (): Generator<FakeSuite> {
    for (const s of suites) {
      yield s;
      yield* s.children.allSuites();
    }
  };
  return {
    errors: () => Array.from({ length: opts.errors ?? 0 }, () => ({ message: "boom" })),
    state: () => opts.state ?? "passed",
    children: { allTests, allSuites },
  };
}

describe("summarize", () => {
  const summarizeFakes = (...args: unknown[]) =>
    (summarize as (...a: unknown[]) => ReturnType<typeof summarize>)(...args);

  it("counts a module that failed to collect as one failure", () => {
    const s = summarizeFakes([fakeSuite({ errors: 1, state: "failed" })], [], "failed");
    expect(summaryLine(s)).toBe("0 passed, 1 failed, 0 skipped (1 file or hooks failed outside tests)");
  });

  it("counts a suite whose hook failed once, not again for its module", () => {
    const inner = fakeSuite({ tests: ["skipped", "skipped"], errors: 1, state: "failed" });
    const s = summarizeFakes(
      [fakeSuite({ tests: ["passed"], state: "failed", suites: [inner] })],
      [],
      "failed",
    );
    expect(s).toMatchObject({ passed: 1, failed: 1, skipped: 2, erroredOutsideTests: 1 });
  });

  it("does not count a module again when one of its tests failed", () => {
    const s = summarizeFakes([fakeSuite({ tests: ["failed", "passed"], state: "failed" })], [], "failed");
    expect(s).toMatchObject({ passed: 1, failed: 1, erroredOutsideTests: 0 });
  });

  it("never says 0 failed when vitest calls the run failed", () => {
    const s = summarizeFakes([fakeSuite({ tests: ["passed"] })], [], "failed");
    expect(s.failed).toBe(1);
    expect(summaryLine(s)).toMatch(/^1 passed, 1 failed, 0 skipped/);
  });

  it("counts unhandled errors", () => {
    const s = summarizeFakes([fakeSuite({ tests: ["passed"] })], [{}, {}], "failed");
    expect(summaryLine(s)).toBe("1 passed, 2 failed, 0 skipped (2 unhandled errors)");
  });
});
