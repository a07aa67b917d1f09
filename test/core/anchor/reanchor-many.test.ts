/**
 * Re-anchoring many anchors at once after an edit: anchors away from the edit move by its
 * length without a search, anchors it touches are searched for, and the answer is the one
 * `reanchor` gives anchor by anchor; on a PRD with CRLF line ends, emoji and a repeated phrase.
 */
import { describe, expect, it } from "vitest";
import { anchorAt, reanchor, type Anchor } from "../../../core/anchor/anchor.js";
import { byteChange, reanchorMany } from "../../../core/anchor/reanchor-many.js";
import { parseMarkdown } from "../../../core/markdown/document.js";

const enc = new TextEncoder();
const PRD = [
  "---",
  "type: prd",
  "title: Payouts 💸",
  "---",
  "",
  "# Payouts 💸",
  "",
  "## Problem",
  "",
  "Sellers wait 7 days for their money; 38% of support tickets ask where it is. 🙃",
  "",
  "## Requirements",
  "",
  "- REQ-001: Payouts MUST reach the seller within 2 business days.",
  "- REQ-002: The seller MUST see each payout's status in the dashboard.",
  "- REQ-003: A failed payout MUST be retried once, then reported.",
  "",
  "## Non-goals",
  "",
  "Payouts in currencies other than EUR. The seller MUST see each payout's status in the dashboard.",
  "",
].join("\r\n");

function anchorOf(text: string, quote: string, occurrence = 0): Anchor {
  const doc = parseMarkdown(text);
  let at = text.indexOf(quote);
  for (let n = occurrence; n > 0; n--) at = text.indexOf(quote, at + 1);
  expect(at).toBeGreaterThanOrEqual(0);
  return anchorAt(doc, "prd.md", at, at + quote.length);
}

/** The bytes `[start, end)` of the text, decoded. */
function slice(text: string, a: Anchor): string {
  return new TextDecoder().decode(enc.encode(text).subarray(a.start, a.end));
}

const QUOTES: Array<[string, number]> = [
  ["Sellers wait 7 days", 0],
  ["38% of support tickets", 0],
  ["within 2 business days", 0],
  ["The seller MUST see each payout's status in the dashboard.", 0],
  ["retried once", 0],
  ["The seller MUST see each payout's status in the dashboard.", 1],
  ["currencies other than EUR", 0],
];

function run(before: string, after: string) {
  const anchors = QUOTES.map(([q, n]) => anchorOf(before, q, n));
  const doc = parseMarkdown(after);
  const many = reanchorMany({ before: enc.encode(before), after: enc.encode(after), doc, anchors });
  return { anchors, many, one: anchors.map((a) => reanchor(doc, a)) };
}

describe("reanchorMany", () => {
  it("finds the common start and end of two byte strings", () => {
    expect(byteChange(enc.encode("abcXdef"), enc.encode("abcYYdef"))).toEqual({
      prefix: 3,
      suffix: 3,
      delta: 1,
    });
    expect(byteChange(enc.encode("aaaa"), enc.encode("aaaaaa"))).toEqual({ prefix: 4, suffix: 0, delta: 2 });
    expect(byteChange(enc.encode("same"), enc.encode("same"))).toEqual({ prefix: 4, suffix: 0, delta: 0 });
  });

  it("moves every anchor after an insertion in the middle, by the inserted bytes (emoji count 4)", () => {
    const inserted = "- REQ-000: Payouts 🚀 MUST be idempotent.\r\n";
    const after = PRD.replace("- REQ-001", inserted + "- REQ-001");
    const { anchors, many, one } = run(PRD, after);
    expect(many).toEqual(one);
    const grow = enc.encode(inserted).length;
    // Before the edit: same offsets; after it: moved by its length, same quote.
    expect(many[0]).toMatchObject({ start: anchors[0]!.start, quote: "Sellers wait 7 days" });
    expect(many[2]!.start).toBe(anchors[2]!.start + grow);
    for (const a of many) {
      expect(a.detached).toBeUndefined();
      expect(slice(after, a)).toBe(a.quote);
    }
    // The two equal sentences stay told apart by their context.
    expect(many[3]!.heading_path).toEqual(["Payouts 💸", "Requirements"]);
    expect(many[5]!.heading_path).toEqual(["Payouts 💸", "Non-goals"]);
  });

  it("detaches an anchor whose quote was changed or deleted, and never moves it onto other text", () => {
    const after = PRD.replace("within 2 business days", "within 3 business days").replace(
      "- REQ-003: A failed payout MUST be retried once, then reported.\r\n",
      "",
    );
    const { many, one } = run(PRD, after);
    expect(many).toEqual(one);
    expect(many[2]).toMatchObject({ detached: true, quote: "within 2 business days" });
    expect(many[4]).toMatchObject({ detached: true, quote: "retried once" });
    expect(many.filter((a) => !a.detached)).toHaveLength(5);
  });

  it("finds a quote whose context changed by the quote alone, and follows a moved paragraph", () => {
    const moved = PRD.replace("Sellers wait 7 days", "Today sellers wait 7 days")
      .replace("Payouts in currencies other than EUR. ", "")
      .replace(
        "## Problem\r\n",
        "## Problem\r\n\r\nPayouts in currencies other than EUR are out of scope.\r\n",
      );
    const { many, one } = run(PRD, moved);
    expect(many).toEqual(one);
    expect(many[6]).toMatchObject({
      quote: "currencies other than EUR",
      heading_path: ["Payouts 💸", "Problem"],
    });
    expect(slice(moved, many[6]!)).toBe("currencies other than EUR");
  });

  it("gives what reanchor gives for edits anywhere in the file, CRLF kept", () => {
    const edits = [
      (s: string) => "Intro line\r\n" + s,
      (s: string) => s + "Trailing note 📝\r\n",
      (s: string) => s.replace("\r\n## Requirements", "\r\n## Requirements (v2)"),
      (s: string) => s.replace("38%", "41%"),
      (s: string) => s.replace("🙃", ""),
      (s: string) => s.replaceAll("\r\n", "\n"),
    ];
    for (const edit of edits) {
      const after = edit(PRD);
      const { many, one } = run(PRD, after);
      expect(many).toEqual(one);
      for (const a of many) if (!a.detached) expect(slice(after, a)).toBe(a.quote);
    }
  });

  it("searches again for an anchor that was detached, and without the old bytes searches every anchor", () => {
    const doc = parseMarkdown(PRD);
    const lost = { ...anchorOf(PRD, "retried once"), start: 5, end: 9, detached: true };
    const [found] = reanchorMany({ after: enc.encode(PRD), doc, anchors: [lost] });
    expect(found!.detached).toBeUndefined();
    expect(slice(PRD, found!)).toBe("retried once");
  });
});
