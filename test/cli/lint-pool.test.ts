/** The worker pool of `spec-review lint`: workers and the main thread share the queue, and every doc's report is the one a single thread gives. */
import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { builtinProfilesDir, loadLayers } from "../../cli/lint-fs.js";
import { WORKER_THRESHOLD, lintInWorkers, threadsFor } from "../../cli/lint-pool.js";
import { lintTask, type LintTask } from "../../node/lint.js";

describe("lintInWorkers", () => {
  it("lints every doc once, in order, as the main thread alone would", async () => {
    const root = mkdtempSync(join(tmpdir(), "lint-pool-"));
    const tasks: LintTask[] = [];
    for (let i = 0; i < 30; i++) {
      const dir = join(root, `b${i}`);
      mkdirSync(dir);
      const limit =
        i % 3 === 0
          ? "Logs MUST be kept for 30 days.\n- Logs MUST be kept for 90 days."
          : "Logs MUST be kept for 30 days.";
      writeFileSync(
        join(dir, "design.md"),
        `---\ntype: design\nsize: small\n---\n# Design ${i}\n\n## Context\n\nWhy ${i}.\n\n## Proposed design\n\nTBD\n\n## Constraints\n\n- ${limit}\n`,
      );
      tasks.push({
        bundleDir: dir,
        mainPath: "design.md",
        files: ["design.md"],
        displayPath: `b${i}/design.md`,
        bundle: `b${i}`,
      });
    }
    const { profiles } = loadLayers([{ dir: builtinProfilesDir(), origin: "built-in" }], root);
    const alone = tasks.map((t) => lintTask(t, profiles, "run-1"));
    const pooled = await lintInWorkers(tasks, profiles, "run-1", 3);
    expect(pooled.map((d) => d.path)).toEqual(tasks.map((t) => t.displayPath));
    expect(pooled).toEqual(alone);
    // The contradiction planted in every third doc is found wherever the doc was linted.
    expect(pooled.filter((d) => d.findings.some((f) => f.check === "contradiction")).length).toBe(10);
  }, 120_000);
});

describe("threadsFor", () => {
  it("takes one thread per idle core from the threshold on, none on a busy machine, and --workers as given", () => {
    expect(threadsFor(WORKER_THRESHOLD - 1, 4, undefined, 0)).toBe(0);
    expect(threadsFor(WORKER_THRESHOLD, 4, undefined, 0)).toBe(4);
    expect(threadsFor(1000, 16, undefined, 0)).toBe(8);
    // Two of four cores busy: two threads; a machine whose cores are all taken: this thread alone.
    expect(threadsFor(1000, 4, undefined, 2)).toBe(2);
    expect(threadsFor(1000, 2, undefined, 1.5)).toBe(0);
    expect(threadsFor(1000, 2, undefined, 8)).toBe(0);
    expect(threadsFor(1000, 2, undefined, 0.4)).toBe(2);
    expect(threadsFor(10, 2, 3, 8)).toBe(3);
  });
});
