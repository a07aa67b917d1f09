/** The lint eval harness (eval/lint.ts): it applies each known defect, judges at the right place and level, and can fail. */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fsProfileSource } from "../../../cli/lint-fs.js";
import { loadProfiles } from "../../../core/profile/load.js";
import type { Profile } from "../../../core/profile/schema.js";
import { parseMarkdown } from "../../../core/markdown/document.js";
import { DEFECT_KINDS, formatReport, judge, mutations, runEval } from "../../../eval/lint.js";
import { lintBundle } from "../../../core/lint/engine.js";
import { packageRoot } from "../../../server/paths.js";

const root = packageRoot();
const { profiles } = loadProfiles(fsProfileSource(join(root, "profiles")));
const FIXTURES = join(root, "fixtures", "lint-eval");

describe("lint eval on specs in the shapes of real templates", () => {
  const report = runEval(FIXTURES, { profiles });

  it("covers at least 12 accepted docs of every shape, each with its matching profile", () => {
    expect(report.docs.length).toBeGreaterThanOrEqual(12);
    const byShape = (prefix: string) =>
      report.docs.filter((d) => d.path.startsWith(prefix)).map((d) => d.profile_key);
    expect(new Set(byShape("keps/"))).toEqual(new Set(["kep"]));
    expect(new Set(byShape("rfcs/"))).toEqual(new Set(["rfc"]));
    expect(new Set(byShape("adr/madr/"))).toEqual(new Set(["madr"]));
    expect(new Set(byShape("adr/nygard/"))).toEqual(new Set(["nygard"]));
    expect(new Set(byShape("product/"))).toEqual(new Set(["prd"]));
    expect(new Set(byShape("api/"))).toEqual(new Set(["api"]));
  });

  it("meets the targets: recall >= 95% for every defect kind, at most 1 MUST per accepted doc", () => {
    for (const k of report.kinds) {
      expect(k.applied, k.kind).toBeGreaterThan(0);
      expect(k.recall, `${k.kind}: ${k.missed.join("; ")}`).toBeGreaterThanOrEqual(0.95);
    }
    expect(report.mustPerDoc).toBeLessThanOrEqual(1);
    expect(report.targets.met).toBe(true);
    expect(formatReport(report)).toMatch(/Targets: .*: met/);
  });
});

describe("the harness", () => {
  const kep = profiles.find((p) => p.key === "kep")!;
  const doc = parseMarkdown(
    "# KEP-1: Thing\n\n- [Design](#design-details)\n\n## Summary\n\nShort summary of it.\n\n## Motivation\n\nWhy we need it now.\n\n## Proposal\n\nWe add a field to the API.\n\n## Design Details\n\nThe field is validated on create.\n",
  );

  it("applies each defect where the profile has a check for it, at a site holding the change", () => {
    const ms = mutations(doc, "README.md", kep, false);
    const kinds = ms.map((m) => m.kind);
    expect(kinds).toEqual(
      expect.arrayContaining([
        "delete-design",
        "tbd-in-requirement",
        "break-link",
        "empty-section",
        "placeholder",
      ]),
    );
    const tbd = ms.find((m) => m.kind === "tbd-in-requirement")!;
    expect(tbd.text.slice(tbd.site[0], tbd.site[1])).toContain("TBD");
    expect(tbd.expected).toBe("MUST");
    const del = ms.find((m) => m.kind === "delete-design")!;
    expect(del.text).not.toMatch(/## Proposal|## Design Details/);
    const link = ms.find((m) => m.kind === "break-link")!;
    expect(link.text.slice(link.site[0], link.site[1])).toBe("#design-details-renamed");
    for (const k of ms) expect(DEFECT_KINDS).toContain(k.kind);
  });

  it("contradicts a constraint by saying it again with another value, and the contradiction check catches it", () => {
    const design = profiles.find((p) => p.key === "design")!;
    const text =
      "---\ntype: design\nsize: small\n---\n# Indexer\n\n## Proposed design\n\nThe indexer reads the change feed.\n\n## Constraints\n\n- Index lag MUST stay under 120 seconds.\n- Queries MUST be served from the replica.\n";
    const d = parseMarkdown(text);
    const m = mutations(d, "design.md", design, false).find((x) => x.kind === "contradict")!;
    expect(m.text.slice(m.site[0], m.site[1])).toBe("Index lag MUST stay under 240 seconds.");
    expect(m.expected).toBe("MUST");
    const lint = (t: string) =>
      lintBundle({ files: new Map([["design.md", t]]), mainPath: "design.md", profile: design });
    expect(judge(lint(text), lint(m.text), parseMarkdown(m.text), m)).toMatchObject({
      caught: true,
      level: "MUST",
    });
  });

  it("counts a defect as missed when it is caught below the expected level, or somewhere else", () => {
    const lint = (text: string, profile: Profile) =>
      lintBundle({ files: new Map([["README.md", text]]), mainPath: "README.md", profile });
    const tbd = mutations(doc, "README.md", kep, false).find((m) => m.kind === "tbd-in-requirement")!;
    const before = lint(doc.text, kep);
    const mutated = parseMarkdown(tbd.text);
    expect(judge(before, lint(tbd.text, kep), mutated, tbd)).toMatchObject({ caught: true, level: "MUST" });
    // The same defect seen by a profile that only says SHOULD: not caught at MUST.
    const lowered = {
      ...kep,
      checks: kep.checks.map((c) => (c.slug === "undecided" ? { ...c, level: "SHOULD" as const } : c)),
    };
    expect(judge(before, lint(tbd.text, lowered), mutated, tbd)).toMatchObject({
      caught: false,
      level: "SHOULD",
    });
    // A finding that is not at the defect does not count, and is reported as new elsewhere.
    const away = { ...tbd, site: [0, 1] as [number, number] };
    const j = judge(before, lint(tbd.text, kep), mutated, away);
    expect(j.caught).toBe(false);
    expect(j.elsewhere.map((f) => f.check)).toContain("undecided");
  });
});
