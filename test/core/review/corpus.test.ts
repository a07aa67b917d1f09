import { describe, expect, it } from "vitest";
import {
  anchorQuote,
  buildCorpus,
  contextFor,
  findQuote,
  mainSection,
  readerContext,
  type ReviewBundle,
} from "../../../core/review/corpus.js";

const MAIN = [
  "---",
  "type: prd",
  "---",
  "",
  "# Café",
  "",
  "Intro text about the café.",
  "",
  "## Payments",
  "",
  "Card payments are accepted.   Cash is not.",
  "",
  "## Refunds",
  "",
  "Refunds take 30 days.",
  "",
].join("\n");

const bundle: ReviewBundle = {
  files: [
    { path: "spec.md", text: MAIN },
    { path: "notes.md", text: "# Notes\n\nThe refund window was once 14 days.\n" },
  ],
  mainPath: "spec.md",
  linked: [
    {
      name: "ledger",
      file: { path: "ledger.md", text: "# Ledger\n\n## Postings\n\nEvery payment posts twice.\n" },
    },
  ],
};
const corpus = buildCorpus(bundle);

describe("buildCorpus", () => {
  it("cuts the main doc, the bundle's other markdown and linked docs into sections", () => {
    expect(corpus.mainSections.map((s) => s.heading_path)).toEqual([
      ["Café"],
      ["Café", "Payments"],
      ["Café", "Refunds"],
    ]);
    expect(corpus.sections.map((s) => s.key)).toEqual([
      "spec.md#Café",
      "spec.md#Café > Payments",
      "spec.md#Café > Refunds",
      "notes.md#Notes",
      "@ledger:ledger.md#Ledger > Postings",
    ]);
    // A heading with only subsections under it is no section to ask about.
    expect(
      buildCorpus({
        files: [{ path: "a.md", text: "# A\n\n## B\n\nText.\n" }],
        mainPath: "a.md",
        linked: [],
      }).mainSections.map((s) => s.key),
    ).toEqual(["a.md#A > B"]);
  });
});

describe("findQuote", () => {
  it.each([
    ["Card payments are accepted. Cash is not.", "spec.md"],
    ["“Card payments are accepted.”".replace(/[“”]/g, ""), "spec.md"],
    ["The refund window was once 14 days.", "notes.md"],
    ["Every payment posts twice.", "ledger.md"],
    ["Refunds take 31 days.", undefined],
    ["ok", undefined],
  ])("%j is found in %s", (quote, file) => {
    expect(findQuote(corpus, quote)?.file).toBe(file);
  });
});

describe("anchorQuote", () => {
  const payments = mainSection(corpus, corpus.mainSections[1]!)!;
  const bytes = (s: string) => {
    const at = Buffer.from(MAIN).indexOf(s);
    return [at, at + Buffer.byteLength(s)];
  };
  it.each([
    ["exact", "Cash is not.", true, "Cash is not."],
    ["any whitespace", "accepted. Cash", true, "accepted.   Cash"],
    ["elsewhere in the doc", "Refunds take 30 days.", true, "Refunds take 30 days."],
    ["nowhere: the heading", "Coins are melted.", false, "## Payments"],
  ])("%s", (_name, quote, located, at) => {
    const r = anchorQuote(corpus, payments, quote);
    expect(r.located).toBe(located);
    expect(r.anchor.quote).toBe(at);
    expect([r.anchor.start, r.anchor.end]).toEqual(bytes(at));
  });
});

describe("contextFor", () => {
  it("takes the cited sections, then the ones sharing the rarest words", () => {
    const query = "When do refunds take effect, and what was the refund window?";
    const keys = contextFor(corpus, ["spec.md#Café > Payments"], query).map((s) => s.key);
    // Refunds (refunds, take) and Notes (refund, window) score the same: corpus order.
    expect(keys).toEqual(["spec.md#Café > Payments", "spec.md#Café > Refunds", "notes.md#Notes"]);
    expect(contextFor(corpus, [], query, { extra: 1 }).map((s) => s.key)).toEqual(["spec.md#Café > Refunds"]);
  });
});

describe("readerContext", () => {
  it("brings the sections related to the statement a terse question quotes", () => {
    const cited = ["spec.md#Café > Refunds"];
    const terse = "What exactly is required here?";
    // The question alone names nothing another section says: its readers would see one section.
    expect(contextFor(corpus, cited, terse).map((s) => s.key)).toEqual(cited);
    // The statement it quotes shares "days" with the notes on the old refund window.
    const keys = readerContext(corpus, cited, terse, "Refunds take 30 days.").map((s) => s.key);
    expect(keys).toEqual([...cited, "notes.md#Notes"]);
  });

  it("is the question's own context when the quote adds no word", () => {
    const query = "When do refunds take effect, and what was the refund window?";
    const cited = ["spec.md#Café > Payments"];
    expect(readerContext(corpus, cited, query, "").map((s) => s.key)).toEqual(
      contextFor(corpus, cited, query).map((s) => s.key),
    );
  });
});
