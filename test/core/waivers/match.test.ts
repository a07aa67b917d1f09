/**
 * One waiver names one finding (issue 28): finding ids tell equal quotes of a section apart
 * by their context and keep them when another is added; `namedFinding` is the one rule the
 * service and the Action match waivers with.
 */
import { describe, expect, it } from "vitest";
import { lintBundle } from "../../../core/lint/engine.js";
import { idBeforeContext } from "../../../core/lint/ids.js";
import { parseProfile } from "../../../core/profile/load.js";
import { namedFinding } from "../../../core/waivers/match.js";

const parsed = parseProfile(`key: prd
title: PRD
radar: [{ key: clarity, title: C }]
checks:
  - { slug: tbd, kind: forbidden-pattern, level: MUST, category: clarity, params: { phrases: [TBD] } }
`);
if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
const profiles = [parsed.profile];
const head = "---\ntype: prd\nsize: standard\n---\n# Payouts\n\n";
const lint = (text: string) =>
  lintBundle({ files: new Map([["spec.md", text]]), mainPath: "spec.md", profiles }).findings;
const TWO = `${head}## Storage\n\nRetention is TBD.\n\n## Display\n\nThe format is TBD.\n`;
describe("finding ids", () => {
  it("tell two equal quotes of one section apart by their context, and keep each when another is added", () => {
    const one = `${head}## Storage\n\nRetention is TBD.\n`;
    const [original] = lint(one);
    // The same quote written earlier in the same section: a new id; the original keeps its own.
    const two = one.replace("Retention is TBD.", "Backfill is TBD.\n\nRetention is TBD.");
    const after = lint(two);
    expect(after).toHaveLength(2);
    expect(after[1]!.id).toBe(original!.id);
    expect(after[0]!.id).not.toBe(original!.id);
    // In one paragraph too: the context differs.
    const same = lint(one.replace("Retention is TBD.", "Backfill is TBD, retention is TBD."));
    expect(new Set(same.map((f) => f.id)).size).toBe(2);
  });

  it("survive edits in other paragraphs and sections, and change when the text moves section", () => {
    const [storage] = lint(TWO);
    const edited = lint(
      TWO.replace("## Display\n\n", "## Display\n\nA new paragraph.\n\n").replace(
        "# Payouts\n\n",
        "# Payouts\n\nAn intro.\n\n",
      ),
    );
    expect(edited.map((f) => f.id)).toContain(storage!.id);
    const moved = lint(
      TWO.replace("Retention is TBD.\n", "Kept.\n").replace(
        "The format is TBD.",
        "The format is TBD.\n\nRetention is TBD.",
      ),
    );
    expect(moved.map((f) => f.id)).not.toContain(storage!.id);
  });
});

describe("namedFinding", () => {
  const findings = lint(TWO);
  const [storage, display] = findings;
  const text = { check: "tbd", file: "spec.md", quote: "TBD" };

  it("a bound id names that finding and no lookalike", () => {
    expect(
      namedFinding({ ...text, finding: storage!.id, section: ["Payouts", "Storage"] }, findings, true),
    ).toEqual({
      kind: "one",
      id: storage!.id,
      by: "id",
    });
    // Its finding gone (the text moved or deleted): it names none, never the other TBD.
    expect(namedFinding({ ...text, finding: storage!.id }, [display!], true)).toEqual({ kind: "none" });
  });

  it("check, quote and section name one finding, or none when they fit several", () => {
    expect(namedFinding({ ...text, section: ["Payouts", "Display"] }, findings, false)).toEqual({
      kind: "one",
      id: display!.id,
      by: "text",
    });
    expect(namedFinding({ ...text }, findings, false)).toEqual({ kind: "none" });
    const both = lint(TWO.replace("Retention is TBD.", "Backfill is TBD. Retention is TBD."));
    const named = namedFinding({ ...text, section: ["Payouts", "Storage"] }, both, false);
    expect(named).toMatchObject({ kind: "many" });
    // An unsigned entry's id picks among those its text fits, never beyond them.
    expect(
      namedFinding({ ...text, section: ["Payouts", "Storage"], finding: both[1]!.id }, both, false),
    ).toMatchObject({
      kind: "one",
      id: both[1]!.id,
    });
    expect(
      namedFinding({ ...text, section: ["Payouts", "Storage"], finding: display!.id }, findings, false),
    ).toMatchObject({
      kind: "one",
      id: storage!.id,
    });
  });

  it("an entry with an id of an earlier release is matched by its text (legacy)", () => {
    const old = idBeforeContext("spec.md", "tbd", ["Payouts", "Storage"], "TBD", 0);
    const legacy = { ...text, finding: old, section: ["Payouts", "Storage"] };
    expect(namedFinding(legacy, findings, true)).toEqual({ kind: "one", id: storage!.id, by: "text" });
    // An id that is neither current nor of the earlier formula names nothing.
    expect(namedFinding({ ...legacy, finding: display!.id.replace(/^./, "0") }, findings, true)).toEqual({
      kind: "none",
    });
  });
});
