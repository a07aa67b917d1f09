/**
 * The GitHub Action has no service and no key: it lists the waivers of a sidecar file as
 * unverified and does not count them, unless the workflow sets `trust-sidecar-waivers`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { lintTouched, loadLayers, profileLayers } from "../../../action/lint.js";
import { jobSummary } from "../../../action/report.js";
import { ADR_WITH_TBD } from "./helpers.js";

const BUILTIN = resolve(import.meta.dirname, "../../../profiles");

describe("sidecar waivers in the Action", () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "sr-action-sidecar-"));
    mkdirSync(join(root, "decisions/utc"), { recursive: true });
    writeFileSync(join(root, "decisions/utc/utc.md"), ADR_WITH_TBD);
    writeFileSync(
      join(root, "decisions/utc/utc.review.yaml"),
      [
        "waivers:",
        "  - check: undecided",
        '    section: ["Store every timestamp in UTC 🕰️", Decision]',
        '    quote: "TBD"',
        "    reason: Column retention is decided per service by its owners in Q3.",
        "    requested_by: Lee Okafor",
        "    signature: v1:not-checkable-here",
        "",
      ].join("\n"),
    );
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const lint = (trust: boolean) =>
    lintTouched(root, {
      profiles: loadLayers(profileLayers(root, undefined, BUILTIN), root).profiles,
      trustSidecarWaivers: trust,
    });

  it("lists them as unverified and does not count them by default", () => {
    const [r] = lint(false);
    expect(r).toMatchObject({ result: "not_build_ready", must: 1 });
    expect(r!.sidecar_waivers).toEqual([
      {
        check: "undecided",
        reason: "Column retention is decided per service by its owners in Q3.",
        requested_by: "Lee Okafor",
        findings: 1,
        counted: false,
      },
    ]);
    const summary = jobSummary(
      [r!],
      { scope: "every bundle", profiles: "the built-in", notes: [] },
      "Build Ready",
    );
    expect(summary).toContain("**Sidecar waivers of `decisions/utc/utc.md`** (unverified");
    expect(summary).toContain("not counted");
    expect(summary).toContain("- `undecided` (1 finding) asked by Lee Okafor: Column retention");
  });

  it("counts them when the workflow trusts sidecar waivers", () => {
    const [r] = lint(true);
    expect(r).toMatchObject({ result: "build_ready", must: 0 });
    expect(r!.sidecar_waivers![0]!.counted).toBe(true);
    // The finding is still listed, as the service lists a waived one.
    expect(r!.findings.some((f) => f.check === "undecided")).toBe(true);
  });

  it("even trusted, an entry counts only when it names exactly one finding", () => {
    // A second TBD in the Decision section: the entry's check, quote and section fit both.
    writeFileSync(
      join(root, "decisions/utc/utc.md"),
      ADR_WITH_TBD.replace("is TBD.", "is TBD. Their owners are TBD."),
    );
    const [r] = lint(true);
    expect(r).toMatchObject({ result: "not_build_ready", must: 2 });
    expect(r!.sidecar_waivers![0]).toMatchObject({ findings: 0, counted: false });
    expect(r!.sidecar_waivers![0]!.problem).toContain("fit 2 findings");
  });
});
