import { describe, expect, it } from "vitest";
import { anchorAt, anchorAtBytes, locateQuote, reanchor } from "../../../core/anchor/anchor.js";
import { parseMarkdown } from "../../../core/markdown/document.js";

const text =
  "---\ntype: prd\n---\n# Café ☕\n\n## Goals\n\nMake the naïve 🎯 goal real. Make the naïve goal real.\n";

describe("anchors", () => {
  const doc = parseMarkdown(text);

  it("anchors a range with byte offsets into the whole file", () => {
    const at = text.indexOf("naïve 🎯");
    const a = anchorAt(doc, "prd.md", at, at + "naïve 🎯".length);
    expect(a.quote).toBe("naïve 🎯");
    expect(a.start).toBe(Buffer.byteLength(text.slice(0, at)));
    expect(Buffer.from(text).subarray(a.start, a.end).toString()).toBe("naïve 🎯");
    expect(a.heading_path).toEqual(["Café ☕", "Goals"]);
    expect(a.prefix.endsWith("Make the ")).toBe(true);
    expect(a.suffix.startsWith(" goal real.")).toBe(true);
    expect(anchorAtBytes(doc, "prd.md", a.start, a.end)).toEqual(a);
  });

  it("locates a quote by occurrence", () => {
    const first = locateQuote(doc, "prd.md", "Make the")!;
    const second = locateQuote(doc, "prd.md", "Make the", { occurrence: 1 })!;
    expect(second.start).toBeGreaterThan(first.start);
    expect(locateQuote(doc, "prd.md", "Make the", { occurrence: 2 })).toBeUndefined();
    expect(locateQuote(doc, "prd.md", "absent")).toBeUndefined();
  });

  it("finds an anchor again after an edit above it", () => {
    const a = locateQuote(doc, "prd.md", "Make the naïve goal real.")!;
    const edited = parseMarkdown(text.replace("# Café ☕", "# Café ☕ (draft)\n\nA new paragraph."));
    const b = reanchor(edited, a);
    expect(b.detached).toBeUndefined();
    expect(b.quote).toBe(a.quote);
    expect(b.start).toBe(a.start + Buffer.byteLength(" (draft)\n\nA new paragraph."));
  });

  it("prefers the occurrence whose context still matches", () => {
    const twice = parseMarkdown("## A\n\nsame words here\n\n## B\n\nsame words here\n");
    const second = locateQuote(twice, "d.md", "same words here", { occurrence: 1 })!;
    const edited = parseMarkdown("intro\n\n## A\n\nsame words here\n\n## B\n\nsame words here\n");
    const found = reanchor(edited, second);
    expect(found.heading_path).toEqual(["B"]);
  });

  it("marks an anchor detached when the quote is gone", () => {
    const a = locateQuote(doc, "prd.md", "naïve 🎯")!;
    const b = reanchor(parseMarkdown(text.replace("naïve 🎯", "clear")), a);
    expect(b).toEqual({ ...a, detached: true });
  });

  it("keeps an unchanged anchor as it is", () => {
    const a = locateQuote(doc, "prd.md", "goal real")!;
    expect(reanchor(doc, a)).toEqual(a);
  });
});
