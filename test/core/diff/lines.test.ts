import { applyPatch, createTwoFilesPatch, structuredPatch } from "diff";
import { describe, expect, it } from "vitest";
import { lineChangeCounts, lineHunks, twoFilesPatch } from "../../../core/diff/lines.js";
import { bigDoc, editDoc } from "../../../bench/lib/bigdoc.js";
import { rng } from "../../../bench/lib/corpus.js";

/** A random edit of a text's lines: some removed, some added, some changed, some moved. */
function mutate(text: string, seed: number): string {
  const rand = rng(seed);
  const lines = text.split(/(?<=\n)/);
  const out: string[] = [];
  for (const l of lines) {
    const r = rand();
    if (r < 0.05) continue;
    if (r < 0.1) out.push(`changed ${Math.floor(rand() * 5)}\n`);
    else out.push(l);
    if (rand() < 0.04) out.push(rand() < 0.5 ? "\n" : `added ${Math.floor(rand() * 3)}\r\n`);
  }
  if (rand() < 0.3 && out.length > 0) out[out.length - 1] = out[out.length - 1]!.replace(/\r?\n$/, "");
  return out.join("");
}

describe("line diffs", () => {
  const base = bigDoc({ sections: 40, seed: 3 });

  it("make patches that turn the old text into the new one", () => {
    for (let seed = 1; seed <= 60; seed++) {
      const a = seed % 5 === 0 ? mutate(base, seed + 100) : base;
      const b = mutate(base, seed);
      const patch = twoFilesPatch("a/x.md", "b/x.md", a, b, 3);
      expect(applyPatch(a, patch), `seed ${seed}`).toBe(b);
      const counts = lineChangeCounts(a, b);
      const lines = lineHunks(a, b, 3).flatMap((h) => h.lines);
      expect(lines.filter((l) => l.startsWith("+")).length).toBe(counts.additions);
      expect(lines.filter((l) => l.startsWith("-")).length).toBe(counts.deletions);
    }
  });

  it("write the same unified diff as jsdiff where the change is plain", () => {
    const b = base.replace("Overview", "Overview, revised").replace(/\n$/, "");
    expect(twoFilesPatch("a/x.md", "b/x.md", base, b, 3)).toBe(
      createTwoFilesPatch("a/x.md", "b/x.md", base, b, "", "", { context: 3 }),
    );
    const c = "one\ntwo\nthree\n";
    const d = "one\n2\nthree\nfour";
    expect(lineHunks(c, d, 2)).toEqual(structuredPatch("a", "b", c, d, "", "", { context: 2 }).hunks);
    expect(lineHunks("", "x\n", 2)).toEqual(
      structuredPatch("a", "b", "", "x\n", "", "", { context: 2 }).hunks,
    );
    expect(lineHunks("x\n", "", 0)).toEqual(
      structuredPatch("a", "b", "x\n", "", "", "", { context: 0 }).hunks,
    );
    expect(lineHunks("same\n", "same\n", 3)).toEqual([]);
  });

  it("stay near-linear on long docs edited all over", () => {
    // Loose on purpose (a 10x larger input; linear is 10x, quadratic 100x): it fails on a
    // quadratic diff (Myers over the whole text), not on a busy machine. The two sizes take
    // turns, so both see the same heap and the same neighbours; each keeps its best of five.
    // In a test worker the large one pays for garbage collection in a bigger heap (measured
    // 30-50x here, 10-13x in a plain process; bench:heavy prints the CPU-time ratio).
    const docs = [2000, 20000].map((sections) => {
      const a = bigDoc({ sections });
      return { a, b: editDoc(a) };
    });
    const best = [Infinity, Infinity];
    twoFilesPatch("a", "b", docs[0]!.a, docs[0]!.b, 3); // warm up
    for (let i = 0; i < 5; i++)
      docs.forEach((d, k) => {
        const t = performance.now();
        twoFilesPatch("a", "b", d.a, d.b, 3);
        best[k] = Math.min(best[k]!, performance.now() - t);
      });
    expect(best[1]! / best[0]!).toBeLessThan(70);
  }, 120_000);
});
