/**
 * Profile inference (core/profile/infer.ts): from a team's accepted docs, the sections they
 * write (synonyms merged, in order), the design section, metadata and where it lives, ID
 * and link patterns; a profile the normal loader reads, under which the docs it learned
 * from are Build Ready and planted defects are caught at MUST.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { lintBundle } from "../../../core/lint/engine.js";
import { inferProfile, type InferredProfile } from "../../../core/profile/infer.js";
import { loadProfile, parseProfile } from "../../../core/profile/load.js";
import type { Profile } from "../../../core/profile/schema.js";
import { folderProfileSource } from "../../../node/profiles.js";
import {
  enhancementProposals,
  languageProposals,
  madrRecords,
  prds,
  type FixtureFile,
} from "./infer-fixtures.js";

const builtins = join(import.meta.dirname, "../../../profiles");
const builtin = (key: string): Profile => {
  const r = loadProfile(folderProfileSource(builtins), key);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.profile;
};

function parsed(r: InferredProfile, key: string): Profile {
  const p = parseProfile(r.yaml, {
    key,
    templateText: r.template,
    parent: (k) => ({
      yaml: readFileSync(join(builtins, k, "profile.yaml"), "utf8"),
      file: `${k}/profile.yaml`,
    }),
  });
  if (!p.ok) throw new Error(JSON.stringify(p.errors, null, 2));
  return p.profile;
}

const dir = (p: string) => p.slice(0, p.lastIndexOf("/") + 1);
const base = (p: string) => p.slice(p.lastIndexOf("/") + 1);

/** Lint one doc of a set with a profile: its folder is its bundle. */
function lint(files: readonly FixtureFile[], path: string, profile: Profile, text?: string) {
  const bundle = new Map(
    files
      .filter((f) => dir(f.path) === dir(path))
      .map((f) => [base(f.path), f.path === path && text !== undefined ? text : f.text]),
  );
  return lintBundle({ files: bundle, mainPath: base(path), profile, readFile: (p) => bundle.get(p) });
}

function mustPerDoc(files: readonly FixtureFile[], docs: readonly string[], profile: Profile): number {
  return (
    docs.reduce((n, d) => n + lint(files, d, profile).findings.filter((f) => f.level === "MUST").length, 0) /
    docs.length
  );
}

const el = (r: InferredProfile, kind: string, name: string) =>
  r.elements.find((e) => e.kind === kind && e.name === name);

describe("inferProfile", () => {
  it("learns the sections of language proposals in their order, merging synonyms, with the design at MUST", () => {
    const files = languageProposals();
    const r = inferProfile(files, { key: "lang-proposal" });
    const sections = r.elements.filter((e) => e.kind === "section").map((e) => e.name);
    expect(sections).toEqual(
      expect.arrayContaining([
        "Introduction",
        "Motivation",
        "Proposed solution",
        "Detailed design",
        "Alternatives considered",
      ]),
    );
    // "Alternatives" (3 docs) and "Alternatives considered" are one section; "Design" and "Detailed design" too.
    expect(el(r, "section", "Alternatives considered")!.share).toBe(1);
    expect(el(r, "section", "Detailed design")!.share).toBe(1);
    expect(sections).not.toContain("Alternatives");
    expect(el(r, "section", "Future directions")!.share).toBeCloseTo(0.5, 2);
    expect(r.elements.some((e) => e.kind === "design-section" && e.name === "Detailed design")).toBe(true);

    const p = parsed(r, "lang-proposal");
    const design = p.checks.find((c) => c.slug === "design")!;
    expect(design.level).toBe("MUST");
    const order = p.checks.find((c) => c.kind === "section-order")!.params as { order: string[] };
    const at = (name: string) => order.order.findIndex((o) => o.split("|").includes(name));
    expect(at("Introduction")).toBeLessThan(at("Motivation"));
    expect(at("Motivation")).toBeLessThan(at("Proposed solution"));
    expect(at("Detailed design")).toBeLessThan(at("Alternatives considered"));
    // The template has the sections in that order and fails on its own placeholders.
    expect(r.template.indexOf("## Motivation")).toBeLessThan(r.template.indexOf("## Detailed design"));
    const bare = lintBundle({ files: new Map([["x.md", r.template]]), mainPath: "x.md", profile: p });
    expect(bare.findings.some((f) => f.level === "MUST" && f.check === "template-placeholder")).toBe(true);
  });

  it("learns header-line metadata with its values, the doc ID and the discussion link", () => {
    const r = inferProfile(languageProposals(), { key: "lang-proposal" });
    const status = el(r, "metadata", "Status")!;
    expect(status.share).toBe(1);
    expect(status.detail).toMatch(/header line/);
    expect(status.detail).toMatch(/implemented/);
    expect(status.detail).toMatch(/accepted with revisions/);
    expect(el(r, "metadata", "Review Manager")!.share).toBe(1);
    expect(el(r, "id-pattern", "LP-NNNN")!.share).toBe(1);
    expect(
      r.elements.find((e) => e.kind === "link-pattern" && e.name === "forums.example.org/t")?.share,
    ).toBe(1);
    const p = parsed(r, "lang-proposal");
    const statusCheck = p.checks.find(
      (c) => c.kind === "required-frontmatter" && (c.params as { key: string }).key === "Status",
    );
    expect(statusCheck).toBeDefined();
  });

  it("makes the docs it learned from Build Ready while placeholders, TBD in the design and a deleted design are MUST", () => {
    const files = languageProposals();
    const r = inferProfile(files, { key: "lang-proposal" });
    const p = parsed(r, "lang-proposal");
    const docs = files.map((f) => f.path);
    expect(mustPerDoc(files, docs, p)).toBeLessThanOrEqual(0.1);
    const doc = files[0]!;
    const mustAt = (text: string, needle: string) => {
      const at = text.indexOf(needle);
      return lint(files, doc.path, p, text).findings.some(
        (f) =>
          f.level === "MUST" &&
          f.anchor.start <= Buffer.byteLength(text.slice(0, at + needle.length)) &&
          f.anchor.end >= Buffer.byteLength(text.slice(0, at)),
      );
    };
    const design = doc.text.indexOf("The grammar gains");
    for (const planted of [
      "{{describe the grammar}}",
      "[TODO: describe the eviction]",
      "{Describe the runtime}",
    ]) {
      const text = `${doc.text.slice(0, design)}${planted}\n\n${doc.text.slice(design)}`;
      expect(mustAt(text, planted), planted).toBe(true);
    }
    const fillIn = `${doc.text.slice(0, design)}(Replace this with the new syntax.)\n\n${doc.text.slice(design)}`;
    expect(mustAt(fillIn, "(Replace this with the new syntax.)")).toBe(true);
    // A parenthetical that says what a new name replaces is prose, not a template's slot.
    const replaces = `${doc.text.slice(0, design)}Two states are added (replaces \`Waiting\` and \`Blocked\`).\n\n${doc.text.slice(design)}`;
    expect(mustAt(replaces, "(replaces")).toBe(false);
    // A free-form design note of the same set, under headings of its own: its design is there.
    const freeform = `# Capture lists for closures\n\n## How captures are stored\n\n${"Each capture is copied into the context at creation and released with it. ".repeat(25)}\n\n## Layout in memory\n\n\`\`\`\nstruct Context { captures: [Box] }\n\`\`\`\n`;
    expect(
      lint(files, doc.path, p, freeform)
        .findings.filter((f) => f.check === "design")
        .map((f) => f.level),
    ).toEqual(["INFO"]);
    const tbd = doc.text.replace("The grammar gains", "The exact value is TBD.\n\nThe grammar gains");
    expect(mustAt(tbd, "TBD")).toBe(true);
    const noDesign = doc.text.replace(/## Proposed solution[\s\S]*?(?=## Source compatibility)/, "");
    expect(
      lint(files, doc.path, p, noDesign).findings.some((f) => f.level === "MUST" && f.check === "design"),
    ).toBe(true);
  });

  it("finds metadata in a sibling kep.yaml and learns from READMEs only, naming the doc that did not fit", () => {
    const files = [
      ...enhancementProposals(),
      { path: "keps/sig-node/3000-typed-throws/NOTES.md", text: "# Notes\n\nScratch.\n" },
    ];
    const r = inferProfile(files, { key: "team-kep" });
    expect(r.misfits).toContainEqual(
      expect.objectContaining({ path: "keps/sig-node/3000-typed-throws/NOTES.md" }),
    );
    const stage = el(r, "metadata", "stage")!;
    expect(stage.share).toBe(1);
    expect(stage.detail).toMatch(/kep\.yaml/);
    expect(stage.detail).toMatch(/alpha/);
    expect(el(r, "metadata", "kep.yaml")!.share).toBe(1);
    const p = parsed(r, "team-kep");
    const stageCheck = p.checks.find(
      (c) => c.kind === "required-frontmatter" && (c.params as { key: string }).key === "stage",
    )!;
    expect((stageCheck.params as { files: string[] }).files).toEqual(["kep.yaml"]);
    expect(el(r, "design-section", "Design Details") ?? el(r, "design-section", "Proposal")).toBeDefined();
    const docs = files.filter((f) => f.path.endsWith("README.md")).map((f) => f.path);
    expect(mustPerDoc(files, docs, p)).toBeLessThanOrEqual(0.1);
    // A README without its kep.yaml stage is reported.
    const lone = files.filter(
      (f) => !(f.path.startsWith("keps/sig-node/3000-") && f.path.endsWith("kep.yaml")),
    );
    expect(lint(lone, docs[0]!, p).findings.some((f) => f.check === stageCheck.slug)).toBe(true);
  });

  it("learns MADR records: the decision outcome is the design, `* Status:` values, the index is left out", () => {
    const files = madrRecords();
    const r = inferProfile(files, { key: "team-adr" });
    expect(r.misfits).toContainEqual(expect.objectContaining({ path: "docs/decisions/README.md" }));
    expect(r.elements.find((e) => e.kind === "design-section")!.name).toBe("Decision Outcome");
    const status = el(r, "metadata", "Status")!;
    expect(status.detail).toMatch(/values: accepted, superseded by/);
    const p = parsed(r, "team-adr");
    const docs = files.filter((f) => !f.path.endsWith("README.md")).map((f) => f.path);
    expect(mustPerDoc(files, docs, p)).toBeLessThanOrEqual(0.1);
    const noDecision = files[1]!.text.replace(/## Decision Outcome[\s\S]*?(?=## Pros and Cons)/, "");
    expect(
      lint(files, docs[0]!, p, noDecision).findings.some((f) => f.level === "MUST" && f.check === "design"),
    ).toBe(true);
  });

  it("learns PRD frontmatter keys with values and REQ trace IDs", () => {
    const files = prds();
    const r = inferProfile(files, { key: "team-prd" });
    const owner = el(r, "metadata", "owner")!;
    expect(owner.detail).toMatch(/frontmatter/);
    expect(el(r, "metadata", "status")!.detail).toMatch(/values: shipped, approved/);
    expect(el(r, "id-pattern", "REQ-NNN")).toBeDefined();
    const p = parsed(r, "team-prd");
    expect(p.verify_prefixes).toEqual(["REQ"]);
    expect(r.template).toMatch(/^---\n/);
    expect(r.template).toMatch(/\nowner: /);
    expect(
      mustPerDoc(
        files,
        files.map((f) => f.path),
        p,
      ),
    ).toBeLessThanOrEqual(0.1);
  });

  it("extends a built-in: keeps its generic checks, overrides the design and disables sections the team never writes", () => {
    const files = languageProposals();
    const r = inferProfile(files, { key: "lang-proposal", extends: "rfc", parent: builtin("rfc") });
    expect(r.yaml).toMatch(/^extends: rfc$/m);
    const p = parsed(r, "lang-proposal");
    // rfc's own checks are kept...
    expect(p.checks.find((c) => c.slug === "template-placeholder")?.level).toBe("MUST");
    expect(p.checks.find((c) => c.slug === "links-resolve")?.level).toBe("MUST");
    // ... its drawbacks section, which these proposals never write, is not.
    expect(p.checks.find((c) => c.slug === "drawbacks")).toBeUndefined();
    expect(r.yaml).toMatch(/- slug: drawbacks\n\s+disabled: true/);
    const design = p.checks.find((c) => c.slug === "design")!;
    expect((design.params as { section: string }).section.split("|")).toContain("Detailed design");
    expect(
      mustPerDoc(
        files,
        files.map((f) => f.path),
        p,
      ),
    ).toBeLessThanOrEqual(0.1);
  });

  it("answers an error for no docs with sections", () => {
    expect(() => inferProfile([{ path: "a.md", text: "just words" }], { key: "x" })).toThrow(
      /no markdown docs/,
    );
  });
});
