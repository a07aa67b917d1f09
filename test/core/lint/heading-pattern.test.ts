/** Sections are found by their role: names, prefixes and regexes, at any depth, with the noise of real headings ignored. */
import { describe, expect, it } from "vitest";
import {
  matchForm,
  parseHeadingPattern,
  patternLabel,
  sectionContent,
  sectionsMatching,
  titleMatches,
} from "../../../core/lint/helpers.js";
import { parseMarkdown } from "../../../core/markdown/document.js";

const cases: [pattern: string, title: string, matches: boolean][] = [
  ["Risks", "Risks", true],
  ["Risks", "RISKS:", true],
  ["Risks", "3. Risks", true],
  ["Risks", "3.2 Risks and Mitigations", true],
  ["Risks", "Risks & mitigations", true],
  ["Risks", "Risks / Open issues", true],
  ["Risks", "⚠️ Risks", true],
  ["Risks", "Risks (optional)", true],
  ["Risks", "IV. Risks", true],
  ["Risks", "Step 2: Risks", true],
  ["Risks", "Known risks", false],
  ["Alternatives", "Rationale and alternatives", true],
  ["Goals", "Goals and Non-Goals", true],
  ["Non-goals", "Goals and Non-Goals", true],
  ["Non-goals", "Non goals", true],
  ["Design*", "Design Details", true],
  ["Design*", "Design", true],
  ["Design*", "Designer notes", false],
  ["/^risks?\\b/", "Risk register", true],
  ["/^risks?\\b/", "Risky bits", false],
  // A global flag would make the answer depend on the previous heading tested.
  ["/risks?/g", "Risks", true],
  ["/risks?/g", "Risks", true],
  ["Motivation|Why", "Why?", true],
  ["Problem", "The problem", true],
  ["Vision", "Vision", true],
  ["A \\> B", "A > B", true],
  ["Pros \\| cons", "Pros | cons", true],
  ["Decision", "Decision Outcome", false],
  ["Decision*", "Decision Outcome", true],
];

describe("heading patterns", () => {
  it.each(cases)("%s ~ %s: %s", (pattern, title, matches) => {
    const p = parseHeadingPattern(pattern);
    expect(p).toHaveLength(1);
    expect(titleMatches(title, p[0]!)).toBe(matches);
  });

  it("normalizes numbering, case, emoji and punctuation", () => {
    expect(matchForm("2.1. Goals & Non-Goals 🎯")).toBe("goals non goals");
    expect(matchForm("A. Summary")).toBe("summary");
    expect(matchForm("Reference-level explanation")).toBe("reference level explanation");
  });

  it("finds a one-level pattern at any depth; a path needs its parent", () => {
    const doc = parseMarkdown(
      "# KEP\n\n## Proposal\n\n### Risks and Mitigations\n\nA risk.\n\n## Design Details\n\n### Test Plan\n\nTests.\n",
    );
    expect(sectionsMatching(doc, "Risks").map((s) => s.title)).toEqual(["Risks and Mitigations"]);
    expect(sectionsMatching(doc, "Proposal > Risks").map((s) => s.title)).toEqual(["Risks and Mitigations"]);
    expect(sectionsMatching(doc, "Design* > Risks")).toEqual([]);
  });

  it("labels a pattern by its first name", () => {
    expect(patternLabel("Goals|Objectives")).toBe("Goals");
    expect(patternLabel("Design*|/^arch/")).toBe("Design");
    expect(patternLabel("Requirements > Functional|Features")).toBe("Requirements > Functional");
  });
});

describe("section content", () => {
  const one = (body: string, min = 3) => {
    const doc = parseMarkdown(`# T\n\n## S\n\n${body}\n`);
    return sectionContent(doc, doc.sections[2]!, min).hasContent;
  };
  it.each([
    ["a crisp sentence", "We use Postgres.", true],
    ["a list of single words", "- Postgres\n- Redis", true],
    ["a table", "| a | b |\n|---|---|\n| 1 | 2 |", true],
    ["a code block", "```json\n{}\n```", true],
    ["a CJK sentence", "系统必须在两秒内响应。", true],
    ["only TBD", "TBD", false],
    ["only a comment", "<!-- Describe the decision here in a few words. -->", false],
    ["only a placeholder", "{{decision}}", false],
    ["a list of TBDs", "- TBD\n- TODO", false],
    ["two words at min 3", "Use Postgres", false],
  ])("%s", (_n, body, expected) => {
    expect(one(body)).toBe(expected);
  });
  it.each([
    ["a two-word decision", "Use Postgres.", true],
    ["one word", "Postgres", false],
    ["a word and a TBD", "Postgres TBD", false],
  ])("%s at the default of required-section (2)", (_n, body, expected) => {
    expect(one(body, 2)).toBe(expected);
  });
});
