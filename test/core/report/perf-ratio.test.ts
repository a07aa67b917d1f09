/**
 * The HTML report stays linear in the size of the doc: a doc ten times as long, with ten
 * times the findings, takes about ten times as long (under 30x here, loose on purpose:
 * it fails on a quadratic step, not on a busy machine; never an absolute time).
 */
import { describe, expect, it } from "vitest";
import { renderReport, type ReportFinding } from "../../../core/report/html.js";
import { lintBundle } from "../../../core/lint/index.js";
import { loadProfileLayersCached } from "../../../node/profiles.js";
import { builtinProfilesDir } from "../../../node/package.js";
import { parseMarkdown } from "../../../core/markdown/document.js";
import { bigDoc } from "../../../bench/lib/bigdoc.js";

const { profiles } = loadProfileLayersCached([{ dir: builtinProfilesDir(), origin: "built-in" }]);

function input(sections: number) {
  const markdown = bigDoc({ sections });
  const lint = lintBundle({ files: new Map([["spec.md", markdown]]), mainPath: "spec.md", profiles });
  // The lint's findings, and one more on every heading: a report marks thousands of places.
  const findings: ReportFinding[] = lint.findings.map((f) => ({ ...f }));
  for (const sec of parseMarkdown(markdown).sections.slice(1))
    findings.push({
      id: `h${sec.index}`,
      check: "heading-note",
      level: "INFO",
      category: "structure",
      message: "A note on this heading",
      anchor: {
        file: "spec.md",
        heading_path: sec.heading_path,
        quote: sec.title,
        start: sec.start,
        end: sec.content_start,
      },
    });
  return {
    title: "Large",
    slug: "large",
    profile: { key: lint.profile_key },
    path: "spec.md",
    version: { number: 1, created_at: "2026-01-01T00:00:00.000Z", created_by: "ann", message: "" },
    findings,
    assumptions: [],
    markdown,
    generatedAt: "2026-01-01T00:00:00.000Z",
  };
}

describe("the HTML report", () => {
  it("takes about 10x as long on a doc 10x as long", () => {
    const small = input(300);
    const large = input(3000);
    expect(large.findings.length).toBeGreaterThan(small.findings.length * 4);
    renderReport(small); // warm up
    const time = (i: typeof small) => {
      const t = performance.now();
      const html = renderReport(i);
      const ms = performance.now() - t;
      // Every finding is marked in the doc.
      expect(html.match(/data-finding-level=/g)?.length ?? 0).toBeGreaterThan(0);
      return ms;
    };
    const a = Math.min(time(small), time(small));
    const b = time(large);
    expect(b / a).toBeLessThan(30);
  }, 300_000);
});
