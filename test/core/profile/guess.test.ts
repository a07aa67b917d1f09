import { describe, expect, it } from "vitest";
import { guessSize, rankProfiles } from "../../../core/profile/guess.js";
import { parseMarkdown } from "../../../core/markdown/document.js";
import { oneCheckProfile } from "../lint/run-check.js";

const prd = {
  ...oneCheckProfile("empty-section", {}),
  key: "prd",
  heading_hints: ["Problem", "Goals|Objectives", "Requirements"],
};
const adr = {
  ...oneCheckProfile("empty-section", {}),
  key: "adr",
  heading_hints: ["Context", "Decision", "Consequences"],
};

describe("guessing", () => {
  it("ranks profiles by the share of hints the headings match", () => {
    const doc = "# X\n\n## 1. Problem\n\n## Our objectives\n\n## Context\n";
    expect(rankProfiles(doc, [adr, prd])).toEqual([
      { key: "prd", score: 2 / 3, matched: ["Problem", "Goals|Objectives"] },
      { key: "adr", score: 1 / 3, matched: ["Context"] },
    ]);
  });

  it("hints match whole words only", () => {
    expect(rankProfiles("## Decisionmaking\n", [adr])).toEqual([]);
  });

  it("guesses the smallest size that holds the doc", () => {
    const p = {
      ...prd,
      sizes: {
        default: "standard",
        values: [
          { key: "standard", skip: [] },
          { key: "small", max_words: 5, skip: [] },
        ],
      },
    };
    expect(guessSize(parseMarkdown("One two three.\n"), p)).toBe("small");
    expect(guessSize(parseMarkdown("One two three four five six.\n"), p)).toBe("standard");
  });
});
