import { describe, expect, it } from "vitest";
import { adoptFrontmatter, FrontmatterInvalidError } from "../../../core/lint/adopt.js";
import { lintBundle } from "../../../core/lint/engine.js";
import { parseProfile } from "../../../core/profile/load.js";
import type { Profile } from "../../../core/profile/schema.js";

function profile(yaml: string): Profile {
  const r = parseProfile(yaml);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.profile;
}

const prd = profile(`key: prd
title: PRD
heading_hints: [Problem, Goals, Requirements]
radar: [{ key: structure, title: S }, { key: clarity, title: C }]
verify_prefixes: [REQ]
sizes:
  default: standard
  values:
    - { key: small, max_words: 30, skip: [goals] }
    - { key: standard }
checks:
  - { slug: goals, kind: required-section, level: MUST, category: structure, relaxed: true, params: { section: Goals, min_words: 3 } }
  - { slug: tbd, kind: forbidden-pattern, level: SHOULD, category: clarity, relaxed: true, params: { phrases: [TBD] } }
  - { slug: todo, kind: forbidden-pattern, level: INFO, category: clarity, relaxed: true, params: { phrases: [TODO] } }
  - { slug: ids, kind: trace-id, level: MUST, category: structure, params: { sections: [Requirements] } }
`);
const adr = profile(`key: adr
title: ADR
heading_hints: [Context, Decision, Consequences]
radar: [{ key: structure, title: S }]
checks:
  - { slug: context, kind: required-section, level: MUST, category: structure, params: { section: Context } }
`);
const profiles = [prd, adr];

const lint = (text: string | Uint8Array, extra: Partial<Parameters<typeof lintBundle>[0]> = {}) =>
  lintBundle({ files: new Map([["spec.md", text]]), mainPath: "spec.md", profiles, ...extra });

const named = "---\ntype: prd\nsize: standard\n---\n";

describe("lintBundle", () => {
  it("returns findings in document order, then profile order", () => {
    const r = lint(`${named}# T\n\nTODO and TBD here.\n\n## Goals\n\nTBD\n`);
    expect(r.findings.map((f) => [f.check, f.anchor.quote])).toEqual([
      ["todo", "TODO"],
      ["tbd", "TBD"],
      ["goals", "## Goals"],
      ["tbd", "TBD"],
    ]);
  });

  it("gives ids that are stable across re-lints and edits elsewhere, and distinct per occurrence", () => {
    const text = `${named}# T\n\n## Goals\n\nTBD and TBD.\n`;
    const a = lint(text).findings;
    const b = lint(text).findings;
    expect(b.map((f) => f.id)).toEqual(a.map((f) => f.id));
    expect(new Set(a.map((f) => f.id)).size).toBe(a.length);
    for (const f of a)
      expect(f.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const edited = lint(text.replace("# T\n", "# T\n\nA new intro paragraph.\n")).findings;
    expect(edited.map((f) => f.id)).toEqual(a.map((f) => f.id));
    expect(edited[0]!.anchor.start).toBeGreaterThan(a[0]!.anchor.start);
  });

  it("gives a CRLF checkout of a doc the same ids as its LF one (git autocrlf)", () => {
    const text = `${named}# T\n\n## Goals\n\nShip the export.\nTBD: the limit,\nthen TBD again.\n\n## Requirements\n\nTODO\n`;
    const a = lint(text).findings;
    const b = lint(text.replace(/\n/g, "\r\n")).findings;
    expect(a.length).toBeGreaterThan(2);
    expect(b.map((f) => [f.check, f.id])).toEqual(a.map((f) => [f.check, f.id]));
  });

  it("reports malformed frontmatter as a finding at its line, and goes on", () => {
    const text = "---\ntype: prd\nsize: standard\ntitle: x\n  bad: indent\n---\n# T\n\nTBD\n";
    const r = lint(text);
    expect(r.profile_key).toBe("prd");
    const fm = r.findings.find((f) => f.check === "frontmatter-invalid")!;
    expect(fm.level).toBe("MUST");
    expect(fm.message).toMatch(/line 4, column 8/);
    expect(fm.anchor.quote).toBe("title: x");
    expect(r.findings.some((f) => f.check === "tbd")).toBe(true);
  });

  it.each([
    ["unclosed frontmatter", "---\ntype: prd\n# never closed\n"],
    ["frontmatter that is a list", "---\n- a\n- b\n---\n# T\n"],
    ["only fences", "---\n---\n"],
    ["empty file", ""],
    ["binary junk", "\u0000\u0001\u0002---\n\ufffd"],
    ["deep nesting", `${"> ".repeat(200)}x\n${"- ".repeat(200)}y\n`],
    ["a huge table row", `| ${"a | ".repeat(2000)}\n|${"---|".repeat(2000)}\n`],
  ])("never throws: %s", (_name, text) => {
    expect(() => lint(text)).not.toThrow();
  });

  it("reports invalid UTF-8 as a finding", () => {
    const bytes = new Uint8Array([...new TextEncoder().encode(`${named}# T\n\n`), 0xff, 0xfe, 0x0a]);
    const r = lint(bytes);
    expect(r.findings.map((f) => f.check)).toContain("encoding-invalid");
  });

  it("keeps a BOM so byte offsets match the file", () => {
    const text = `\ufeff${named}# T\n\nTBD\n`;
    const bytes = new TextEncoder().encode(text);
    const f = lint(bytes).findings.find((x) => x.check === "tbd")!;
    expect(new TextDecoder().decode(bytes.subarray(f.anchor.start, f.anchor.end))).toBe("TBD");
  });

  it("byte offsets hold with multi-byte text before the finding", () => {
    const text = `${named}# Ünïcödé 日本語 🎯\n\n## Goals\n\nÉtat: TBD.\n`;
    const f = lint(text).findings.find((x) => x.check === "tbd")!;
    expect(Buffer.from(text).subarray(f.anchor.start, f.anchor.end).toString()).toBe("TBD");
    expect(f.anchor.heading_path).toEqual(["Ünïcödé 日本語 🎯", "Goals"]);
  });

  it("a missing main file is a finding", () => {
    const r = lintBundle({ files: new Map(), mainPath: "spec.md", profiles });
    expect(r.findings[0]!.check).toBe("file-missing");
  });

  it("a check that throws becomes a check-failed finding", () => {
    const broken: Profile = {
      ...prd,
      checks: [{ ...prd.checks[0]!, kind: "no-such-kind" }] as Profile["checks"],
    };
    const r = lint(`${named}# T\n`, { profile: broken });
    expect(r.findings.map((f) => f.check)).toEqual(["check-failed"]);
  });

  it("an unknown type is reported and the doc is reviewed with the best guess", () => {
    const r = lint("---\ntype: rfc\nsize: standard\n---\n## Context\n\n## Decision\n");
    expect(r.profile_key).toBe("adr");
    expect(r.findings.map((f) => f.check)).toContain("profile-unknown");
    expect(r.adopt).toBeUndefined();
  });

  it("an unknown size is reported and the default used", () => {
    const r = lint("---\ntype: prd\nsize: huge\n---\n# T\n");
    expect(r.size).toBe("standard");
    expect(r.findings.map((f) => f.check)).toContain("size-unknown");
  });

  it("applies the checks of the size", () => {
    expect(lint("---\ntype: prd\nsize: small\n---\n# T\n").findings.map((f) => f.check)).toEqual([]);
    expect(lint("---\ntype: prd\nsize: standard\n---\n# T\n").findings.map((f) => f.check)).toEqual([
      "goals",
    ]);
  });
});

describe("adoption", () => {
  const doc =
    "# T\n\n## Problem\n\nSome words about the problem that are many enough to pass thirty words easily, we hope so, yes indeed, truly, many words here to count, and more, and more, and more.\n\n## Requirements\n\n- It MUST x.\n\nTBD and TODO.\n";

  it("guesses type and size, relaxes the relaxed checks one level, and counts them", () => {
    const r = lint(doc);
    expect(r.adopt).toEqual({ type: "prd", size: "standard" });
    const levels = Object.fromEntries(r.findings.map((f) => [f.check, [f.level, f.relaxed]]));
    expect(levels).toEqual({
      goals: ["SHOULD", true],
      ids: ["MUST", false],
      tbd: ["INFO", true],
      todo: ["INFO", true],
    });
    expect(r.relaxed_count).toBe(3);
  });

  it("only the missing key is adopted, and relaxing still applies", () => {
    const r = lint(`---\ntype: prd\n---\n${doc}`);
    expect(r.adopt).toEqual({ size: "standard" });
    expect(r.findings.find((f) => f.check === "goals")!.level).toBe("SHOULD");
  });

  it("a doc naming both is not relaxed", () => {
    const r = lint(`${named}${doc}`);
    expect(r.adopt).toBeUndefined();
    expect(r.relaxed_count).toBe(0);
    expect(r.findings.find((f) => f.check === "goals")!.level).toBe("MUST");
  });

  it("adoptFrontmatter writes the guessed keys, keeping the rest byte for byte", () => {
    const withFm = "---\n# keep me\ntitle: T\n---\n# Body ü\n";
    expect(adoptFrontmatter(withFm, { type: "prd", size: "small" })).toBe(
      "---\n# keep me\ntitle: T\ntype: prd\nsize: small\n---\n# Body ü\n",
    );
    const added = adoptFrontmatter("# Body\n", { type: "prd" });
    expect(added).toMatch(/^---\ntype: "?prd"?\n---\n\n# Body\n$/);
    expect(lint(added).adopt).toEqual({ size: "small" });
    expect(adoptFrontmatter("---\ntype: adr\n---\nx\n", { type: "prd" })).toBe("---\ntype: adr\n---\nx\n");
  });

  it("adoptFrontmatter refuses broken frontmatter with a coded error", () => {
    expect(() => adoptFrontmatter("---\na: [x\n---\n", { type: "prd" })).toThrow(FrontmatterInvalidError);
  });
});

describe("adoption says what it did", () => {
  it("names the guessed values and how many findings of how many checks were lowered", async () => {
    const { adoptionNote } = await import("../../../core/lint/adopt.js");
    expect(
      adoptionNote({
        adopt: { size: "standard" },
        profile_key: "kep",
        size: "standard",
        findings: [
          { check: "a", relaxed: true },
          { check: "a", relaxed: true },
          { check: "b", relaxed: true },
          { check: "c", relaxed: false },
        ],
      }),
    ).toBe(
      "Adoption: the doc names no size, so it was read at 'standard'. 3 findings of 2 checks were reported one level lower (MUST as SHOULD, SHOULD as INFO) while the doc is adopted. Add `size: standard` to its frontmatter for the full checks.",
    );
    expect(adoptionNote({ profile_key: "kep", size: "standard", findings: [] })).toBeUndefined();
    expect(
      adoptionNote({
        adopt: { type: "adr", size: "small" },
        profile_key: "adr",
        size: "small",
        findings: [],
      }),
    ).toMatch(/no type, so it was read as 'adr' and no size.*No finding had to be lowered/);
  });
});
