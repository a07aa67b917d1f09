/** The review eval's scoring (eval/scoring.ts) on hand-made finding lists, and the corpus's expected.yaml files. */
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { fsProfileSource, walkFiles } from "../../../cli/lint-fs.js";
import { lintBundle } from "../../../core/lint/engine.js";
import { parseMarkdown } from "../../../core/markdown/document.js";
import { loadProfiles } from "../../../core/profile/load.js";
import {
  DEFECT_KINDS,
  checkExpectation,
  scoreBundle,
  summarize,
  type BundleExpectation,
  type EvalFinding,
} from "../../../eval/scoring.js";

let n = 0;
function finding(path: string[], over: Partial<EvalFinding> = {}): EvalFinding {
  return {
    id: `f${++n}`,
    stage: "findings",
    check: "ai-review",
    level: "SHOULD",
    message: "m",
    heading_path: path,
    quote: "",
    ...over,
  };
}

const doc: BundleExpectation = {
  profile: "prd",
  clean: false,
  defects: [
    { kind: "ambiguity", path: ["Doc", "Requirements"], quote: "the appropriate role" },
    { kind: "undefined-term", path: ["Doc", "Requirements"], quote: "dunning template" },
    { kind: "contradiction", path: ["Doc", "Limits"], also: [["Doc", "Requirements"]] },
  ],
};

describe("scoreBundle", () => {
  it("catches a defect with a finding in its section, one finding per defect, quotes first", () => {
    const s = scoreBundle("b", doc, [
      finding(["Doc", "Requirements"], { quote: "Each reminder uses the dunning template of the account." }),
      finding(["Doc", "Problem"]),
      finding(["Doc", "Requirements", "Details"], { stage: "judge", check: "build-question", level: "MUST" }),
    ]);
    expect(s.defects.map((d) => d.caught)).toEqual([true, true, false]);
    // The quoted finding went to the defect whose quote it holds; the other took the ambiguity.
    expect(s.defects[1]!.finding_id).toBe(`f${n - 2}`);
    expect(s.defects[0]!.finding_id).toBe(`f${n}`);
    expect(s.unmatched.map((f) => f.heading_path)).toEqual([["Doc", "Problem"]]);
    expect(s.must).toBe(1);
  });

  it("takes the other side of a contradiction, never lint findings, and compares headings loosely", () => {
    const s = scoreBundle("b", doc, [
      finding(["Doc", "Requirements"], { stage: "lint", check: "vague-words" }),
      finding(["doc", "  limits "], { stage: "claims", check: "claim-contradicted" }),
    ]);
    expect(s.defects.map((d) => d.caught)).toEqual([false, false, true]);
    expect(s.unmatched).toEqual([]);
    expect(scoreBundle("b", doc, [finding(["Doc"])]).defects.every((d) => !d.caught)).toBe(true);
  });
});

describe("summarize", () => {
  it("gives recall per kind and overall, and false MUST findings per clean doc", () => {
    const clean: BundleExpectation = { profile: "prd", clean: true, defects: [] };
    const scores = [
      scoreBundle("a", doc, [finding(["Doc", "Limits"])]),
      scoreBundle("c1", clean, [finding(["X"], { level: "MUST" }), finding(["X"], { level: "MUST" })]),
      scoreBundle("c2", clean, [
        finding(["X"], { level: "SHOULD" }),
        finding(["X"], { level: "MUST", stage: "lint" }),
      ]),
    ];
    const s = summarize(scores);
    expect(s.by_kind["contradiction"]).toEqual({ planted: 1, caught: 1, recall: 1 });
    expect(s.by_kind["ambiguity"]).toEqual({ planted: 1, caught: 0, recall: 0 });
    expect(s.by_kind["unsupported-claim"]).toEqual({ planted: 0, caught: 0, recall: 0 });
    expect(s.overall).toEqual({ planted: 3, caught: 1, recall: 0.333 });
    expect(s.false_must_per_clean_doc).toBe(1);
    expect(s.unmatched_per_doc).toBe(1);
    expect(Object.keys(summarize(scores, "ambiguity").by_kind)).toEqual(["ambiguity"]);
  });
});

describe("the eval corpus", () => {
  const root = resolve(import.meta.dirname, "../../../fixtures/eval");
  const { profiles } = loadProfiles(fsProfileSource(resolve(import.meta.dirname, "../../../profiles")));
  const bundles = readdirSync(root).sort();
  /** A bundle's spec doc: its one markdown file whose frontmatter names a type (README.md of a KEP, 0000-x.md of an RFC). */
  const specDoc = (b: string) => {
    const docs = readdirSync(join(root, b))
      .filter((f) => f.endsWith(".md"))
      .map((f) => readFileSync(join(root, b, f), "utf8"))
      .filter((t) => /^---\r?\ntype: /.test(t));
    expect(docs, `${b}: one spec doc`).toHaveLength(1);
    return docs[0]!;
  };
  const all = bundles.map((b) => ({
    b,
    exp: checkExpectation(b, parse(readFileSync(join(root, b, "expected.yaml"), "utf8"))),
    text: specDoc(b),
  }));

  it("has at least 16 bundles, 4 clean controls, every defect kind, and every built-in profile", () => {
    expect(all.length).toBeGreaterThanOrEqual(16);
    expect(all.filter((x) => x.exp.clean).length).toBeGreaterThanOrEqual(4);
    const kinds = new Set(all.flatMap((x) => x.exp.defects.map((d) => d.kind)));
    expect([...kinds].sort()).toEqual([...DEFECT_KINDS].sort());
    const builtIn = readdirSync(resolve(import.meta.dirname, "../../../profiles")).sort();
    expect(builtIn).toEqual(
      expect.arrayContaining(["adr", "api", "design", "kep", "madr", "nygard", "prd", "rfc"]),
    );
    expect([...new Set(all.map((x) => x.exp.profile))].sort()).toEqual(builtIn);
  });

  it.each(bundles)("%s: every planted defect names a section and a quote of its doc", (b) => {
    const { exp, text } = all.find((x) => x.b === b)!;
    expect(text).toMatch(new RegExp(`^---\\r?\\ntype: ${exp.profile}\\r?\\n`));
    const md = parseMarkdown(text);
    const paths = new Set(md.sections.map((s) => s.heading_path.join(" > ")));
    for (const d of exp.defects) {
      for (const p of [d.path, ...(d.also ?? [])])
        expect(paths, `${b}: ${p.join(" > ")}`).toContain(p.join(" > "));
      if (d.quote) expect(text).toContain(d.quote);
    }
  });

  it.each(all.filter((x) => x.exp.clean).map((x) => x.b))(
    "%s: a clean control gets no MUST finding from lint",
    (b) => {
      const dir = join(root, b);
      const files = new Map<string, Uint8Array>(walkFiles(dir).map((f) => [f, readFileSync(join(dir, f))]));
      const main = [...files.keys()].find(
        (f) => f.endsWith(".md") && /^---\r?\ntype: /.test(readFileSync(join(dir, f), "utf8")),
      )!;
      const r = lintBundle({ files, mainPath: main, profiles });
      expect(r.profile_key).toBe(all.find((x) => x.b === b)!.exp.profile);
      expect(r.findings.filter((f) => f.level === "MUST").map((f) => `${f.check}: ${f.message}`)).toEqual([]);
    },
  );

  it("refuses an expected.yaml with an unknown kind or a missing path", () => {
    expect(() => checkExpectation("x", { profile: "prd", defects: [{ kind: "typo", path: ["A"] }] })).toThrow(
      /fixtures\/eval\/x\/expected.yaml: defect 0: kind must be one of/,
    );
    expect(() => checkExpectation("x", { profile: "prd", defects: [{ kind: "ambiguity" }] })).toThrow(/path/);
    expect(() =>
      checkExpectation("x", { profile: "prd", clean: true, defects: [{ kind: "ambiguity", path: ["A"] }] }),
    ).toThrow(/clean must be true exactly when/);
  });
});
