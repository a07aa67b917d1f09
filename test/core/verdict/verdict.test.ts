import { describe, expect, it } from "vitest";
import type { Finding, Level } from "../../../core/lint/types.js";
import { bundleState, computeVerdict, countBlockingThreads } from "../../../core/verdict/verdict.js";

const f = (id: string, level: Level, category = "clarity", relaxed = false) =>
  ({ id, level, category, relaxed }) as Pick<Finding, "id" | "level" | "category" | "relaxed">;
const base = { kind: "lint" as const, runId: "6f1c7a7e-1111-4222-8333-444455556666", versionNumber: 3 };

describe("computeVerdict", () => {
  it("no findings: Build Ready, full marks", () => {
    const v = computeVerdict({ ...base, findings: [], radarCategories: ["clarity", "structure"] });
    expect(v).toEqual({
      run_id: base.runId,
      version_number: 3,
      kind: "lint",
      result: "build_ready",
      score: 100,
      radar: { clarity: 100, structure: 100 },
      waiver_count: 0,
      relaxed_count: 0,
      must: 0,
      should: 0,
      info: 0,
      blocking_threads: 0,
    });
  });

  const cases: {
    name: string;
    findings: ReturnType<typeof f>[];
    waived?: string[];
    threads?: number;
    result: string;
    score: number;
  }[] = [
    {
      name: "SHOULD and INFO do not block",
      findings: [f("a", "SHOULD"), f("b", "INFO")],
      result: "build_ready",
      score: 94,
    },
    { name: "one MUST blocks", findings: [f("a", "MUST")], result: "not_build_ready", score: 80 },
    {
      name: "a waived MUST does not",
      findings: [f("a", "MUST")],
      waived: ["a"],
      result: "build_ready",
      score: 100,
    },
    { name: "a blocking thread blocks", findings: [], threads: 1, result: "not_build_ready", score: 80 },
    {
      name: "the score compounds",
      findings: [f("a", "MUST"), f("b", "MUST"), f("c", "SHOULD"), f("d", "SHOULD"), f("e", "INFO")],
      result: "not_build_ready",
      score: 57,
    },
  ];
  it.each(cases)("$name", ({ findings, waived, threads, result, score }) => {
    const v = computeVerdict({ ...base, findings, waived, blockingThreads: threads });
    expect(v.result).toBe(result);
    expect(v.score).toBe(score);
  });

  it("counts open findings by level, waivers and relaxed ones; radar per category", () => {
    const v = computeVerdict({
      ...base,
      findings: [
        f("a", "MUST", "structure"),
        f("b", "SHOULD", "clarity", true),
        f("c", "INFO", "clarity", true),
        f("d", "MUST", "structure"),
      ],
      waived: ["d"],
      radarCategories: ["structure", "clarity", "testability"],
    });
    expect([v.must, v.should, v.info, v.waiver_count, v.relaxed_count]).toEqual([1, 1, 1, 1, 2]);
    expect(v.radar).toEqual({ structure: 60, clarity: 82, testability: 100 });
  });

  it("counts open blocking threads", () => {
    expect(
      countBlockingThreads([
        { blocking: true, status: "open" },
        { blocking: true, status: "resolved" },
        { blocking: false, status: "open" },
      ]),
    ).toBe(1);
  });
});

describe("bundleState", () => {
  const ready = { result: "build_ready" as const };
  const notReady = { result: "not_build_ready" as const };
  const stale = { result: "stale" as const };
  it.each([
    ["all ready", [ready, ready], "build_ready"],
    ["any not ready wins", [ready, undefined, notReady], "not_build_ready"],
    ["a doc without a verdict", [ready, undefined], "not_reviewed"],
    ["a stale verdict is no verdict", [ready, stale], "not_reviewed"],
    ["no docs", [], "not_reviewed"],
  ] as const)("%s", (_name, verdicts, state) => {
    expect(bundleState(verdicts)).toBe(state);
  });
});
