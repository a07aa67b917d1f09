import { describe, expect, it } from "vitest";
import { anchorAt, CONTEXT_CHARS } from "../../../core/anchor/anchor.js";
import { parseMarkdown } from "../../../core/markdown/document.js";

const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

describe("anchor context", () => {
  it("never splits an emoji, so the anchor stays valid JSON text for Postgres", () => {
    // Emoji (two UTF-16 units each) at every offset around both context edges.
    for (let pad = 0; pad < 4; pad++) {
      const y = "y".repeat(pad);
      const text = `# T\n\n${"🚀".repeat(CONTEXT_CHARS)}${y}QUOTE${y}${"📈".repeat(CONTEXT_CHARS)}\n`;
      const doc = parseMarkdown(text);
      const at = text.indexOf("QUOTE");
      const a = anchorAt(doc, "spec.md", at, at + 5);
      expect(a.quote).toBe("QUOTE");
      expect(a.prefix, `pad ${pad}`).not.toMatch(lone);
      expect(a.suffix, `pad ${pad}`).not.toMatch(lone);
      expect(text.slice(0, at).endsWith(a.prefix)).toBe(true);
      expect(text.slice(at + 5).startsWith(a.suffix)).toBe(true);
      expect(a.prefix.length).toBeGreaterThanOrEqual(CONTEXT_CHARS);
    }
  });
});
