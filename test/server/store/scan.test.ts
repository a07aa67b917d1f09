/**
 * The folder scanner classifies a large markdown file by its first 64 KiB when they hold
 * a typed frontmatter, and reads it whole otherwise: what it finds is the same either way.
 */
import { afterEach, describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { classifyMarkdown } from "../../../core/bundle/discover.js";
import { FolderScanner } from "../../../server/store/scan.js";

const body = (kb: number) =>
  "## Requirements\n\n" + "- The service MUST answer 🚀 within 200 ms.\n".repeat(kb * 24);

describe("the folder scanner on large markdown files", () => {
  let root: string;
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const files: Array<[string, string]> = [
    ["typed", `---\ntype: prd\ntitle: Big\n---\n# Big\n\n${body(200)}`],
    ["typed-crlf", `---\r\ntype: rfc\r\n---\r\n# Big\r\n\r\n${body(100)}`],
    ["untyped", `# Just notes\n\n${body(100)}`],
    ["broken", `---\ntype: prd\ntitle: [unclosed\n---\n# Big\n\n${body(100)}`],
    // A frontmatter longer than the part read first: read whole.
    [
      "long-frontmatter",
      `---\ntype: adr\nnotes: |\n${"  a line of notes\n".repeat(5000)}---\n# Big\n\n${body(10)}`,
    ],
    // A frontmatter that never closes: no type, as when read whole.
    ["unclosed", `---\ntype: prd\n${body(100)}`],
  ];

  it("finds what classifying each whole file finds", async () => {
    root = mkdtempSync(join(tmpdir(), "sr-scan-"));
    for (const [name, text] of files) {
      mkdirSync(join(root, name));
      writeFileSync(join(root, name, "spec.md"), text);
    }
    const scanner = new FolderScanner(root);
    await scanner.scanAll();
    const found = new Map(scanner.discovery.bundles.map((b) => [b.slug, b.doc]));
    for (const [name, text] of files) {
      const whole = classifyMarkdown(text);
      expect(Buffer.byteLength(text), name).toBeGreaterThan(64 * 1024);
      expect(found.get(name)?.type, name).toBe(whole.type);
      expect(found.get(name)?.frontmatterError, name).toEqual(
        whole.type === undefined ? undefined : whole.error,
      );
    }
    expect(found.get("typed")?.type).toBe("prd");
    expect(found.get("long-frontmatter")?.type).toBe("adr");
    expect(found.get("broken")?.frontmatterError).toBeDefined();
    expect(found.has("untyped")).toBe(false);
  });
});
