/**
 * Planning an import of many files: every spec doc sharing a folder gets a folder of its
 * own with the assets it links, names that make the same slug are numbered, and the
 * planning stays linear in the number of files (a 10x larger import under 30x the time:
 * loose on purpose, it fails on a quadratic step, not on a busy machine).
 */
import { describe, expect, it } from "vitest";
import { classifyImport, layoutImport, type ImportFile } from "../../../core/bundle/import-plan.js";
import { loadProfileLayersCached } from "../../../node/profiles.js";
import { builtinProfilesDir } from "../../../node/package.js";

const { profiles } = loadProfileLayersCached([{ dir: builtinProfilesDir(), origin: "built-in" }]);
const lookup = {
  get: (key: string) => profiles.find((p) => p.key === key),
  list: () => profiles,
};
const enc = new TextEncoder();

/** `docs` spec docs side by side in `specs/`, each linking its diagram, among `entries` files in all. */
function manyFiles(docs: number, entries: number): ImportFile[] {
  const files: ImportFile[] = [];
  for (let i = 0; i < docs; i++) {
    const n = String(i).padStart(5, "0");
    files.push({
      path: `specs/Feature ${n}.md`,
      bytes: enc.encode(
        `---\ntype: prd\n---\n# Feature ${n}\n\nSee the ![flow](diagrams/flow-${n}.svg) and [notes](notes/${n}.txt#top).\n`,
      ),
    });
    files.push({ path: `specs/diagrams/flow-${n}.svg`, bytes: enc.encode(`<svg>${n}</svg>`) });
  }
  for (let i = files.length; i < entries; i++)
    files.push({ path: `specs/notes/${String(i).padStart(5, "0")}.txt`, bytes: enc.encode(`note ${i}\n`) });
  return files;
}

describe("planning an import", () => {
  it("gives each of many spec docs in one folder its own folder, with the assets it links", async () => {
    const entries = manyFiles(400, 4000);
    const md = await classifyImport(entries, {}, lookup, undefined, false);
    expect(md).toHaveLength(400);
    expect(md.every((d) => d.spec && d.profile === "prd" && d.source === "frontmatter")).toBe(true);
    const { files, docPath } = await layoutImport(
      entries,
      md.filter((d) => d.spec),
    );
    expect(docPath.get("specs/Feature 00007.md")).toBe("specs/feature-00007/Feature 00007.md");
    expect(docPath.get("specs/Feature 00399.md")).toBe("specs/feature-00399/Feature 00399.md");
    // The doc moved; its diagram was copied along (and stays where it was for the other docs).
    expect(files.has("specs/Feature 00007.md")).toBe(false);
    expect(new TextDecoder().decode(files.get("specs/feature-00007/diagrams/flow-00007.svg"))).toBe(
      "<svg>00007</svg>",
    );
    expect(files.has("specs/diagrams/flow-00007.svg")).toBe(true);
    // Every file of the import is still there: 3,600 notes and 400 diagrams, plus 400 moved docs and 400 copies.
    expect(files.size).toBe(4000 + 400);
    // A note a doc links that does not exist is not invented.
    expect(files.has("specs/feature-00007/notes/00007.txt")).toBe(false);
  });

  it("numbers docs whose names make the same folder name, and never reuses a taken one", async () => {
    const names = ["Plan A.md", "plan-a.md", "plan_a.md", "日本語.md", "中文.md", "한국어.md", "doc-2.md"];
    const entries: ImportFile[] = names.map((n) => ({
      path: `x/${n}`,
      bytes: enc.encode(`---\ntype: adr\n---\n# ${n}\n`),
    }));
    entries.push({ path: "x/plan-a-2/readme.txt", bytes: enc.encode("taken") });
    const md = await classifyImport(entries, {}, lookup, undefined, false);
    const { docPath } = await layoutImport(entries, md);
    expect(Object.fromEntries(docPath)).toEqual({
      "x/Plan A.md": "x/plan-a/Plan A.md",
      "x/plan-a.md": "x/plan-a-3/plan-a.md",
      "x/plan_a.md": "x/plan-a-4/plan_a.md",
      "x/日本語.md": "x/doc/日本語.md",
      "x/中文.md": "x/doc-2/中文.md",
      "x/한국어.md": "x/doc-3/한국어.md",
      "x/doc-2.md": "x/doc-2-2/doc-2.md",
    });
  });

  it("takes about 10x as long for 10x the files and docs", async () => {
    const small = manyFiles(200, 2000);
    const large = manyFiles(2000, 20000);
    const time = async (entries: ImportFile[]) => {
      const t = performance.now();
      const md = await classifyImport(entries, {}, lookup, undefined, false);
      const { files } = await layoutImport(entries, md);
      const ms = performance.now() - t;
      expect(files.size).toBe(entries.length + md.length);
      return ms;
    };
    await time(small); // warm up
    const a = await time(small);
    const b = await time(large);
    expect(b / a).toBeLessThan(30);
  });
});
