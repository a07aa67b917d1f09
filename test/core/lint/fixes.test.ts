/**
 * The fixes of findings (core/lint/fixes.ts) on the built-in profiles: applied, the
 * finding they answer is gone, and the text lands where the profile's order puts it.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fsProfileSource } from "../../../cli/lint-fs.js";
import { lintDoc } from "../../../core/lint/engine.js";
import { applyEdits, findingFix } from "../../../core/lint/fixes.js";
import { parseMarkdown } from "../../../core/markdown/document.js";
import { loadProfiles } from "../../../core/profile/load.js";
import { packageRoot } from "../../../node/package.js";

const { profiles } = loadProfiles(fsProfileSource(join(packageRoot(), "profiles")));

function lint(text: string) {
  const doc = parseMarkdown(text);
  const result = lintDoc(doc, { files: new Map([["README.md", text]]), mainPath: "README.md", profiles });
  const profile = profiles.find((p) => p.key === result.profile_key)!;
  return { doc, profile, findings: result.findings };
}

/** Apply the fix of the first finding of `check`; the text after it. */
function fixed(text: string, check: string): string {
  const { doc, profile, findings } = lint(text);
  const f = findings.find((x) => x.check === check);
  expect(f, `a ${check} finding`).toBeDefined();
  const fix = findingFix(doc, profile, f!);
  expect(fix?.kind).toBe("edit");
  return applyEdits(text, fix!.kind === "edit" ? fix!.edits : []);
}

const KEP = `---
type: kep
size: standard
status: implementable
owning-sig: sig-storage
---

# KEP-5120: Volume health events

## Summary

The kubelet reports a volume's health as events on the pod that mounts it.

## Motivation

Operators learn that a volume went read-only from application errors, not from the cluster.

## Proposal

The CSI node plugin's health result becomes a pod event within one sync period.

## Drawbacks

More events per node.
`;

describe("findingFix", () => {
  it("inserts a missing section after the one the profile's order puts before it, at its level", () => {
    const after = fixed(KEP, "alternatives");
    // KEP order: ... Implementation history, Drawbacks, Alternatives.
    expect(after).toMatch(/## Drawbacks\n\nMore events per node\.\n\n## Alternatives\n\n[\s\S]*$/);
    expect(
      lint(after).findings.filter((f) => f.check === "alternatives" && /missing/.test(f.message)),
    ).toEqual([]);
  });

  it("inserts before the next section in order when none before it exists", () => {
    const after = fixed(
      KEP.replace(
        "## Summary\n\nThe kubelet reports a volume's health as events on the pod that mounts it.\n\n",
        "",
      ),
      "summary",
    );
    expect(after.indexOf("## Summary")).toBeLessThan(after.indexOf("## Motivation"));
    expect(after.indexOf("## Summary")).toBeGreaterThan(after.indexOf("# KEP-5120"));
  });

  it("adds a missing frontmatter key with the first allowed value, keeping CRLF line ends", () => {
    const crlf = KEP.replace("status: implementable\n", "").replace(/\n/g, "\r\n");
    const after = fixed(crlf, "status");
    expect(after).toContain("owning-sig: sig-storage\r\nstatus: provisional\r\n---\r\n");
    expect(lint(after).findings.filter((f) => f.check === "status")).toEqual([]);
  });

  it("writes a frontmatter when the doc has none", () => {
    const plain = "# Lazy imports\n\n# Summary\n\nModules load on first use.\n";
    const doc = parseMarkdown(plain);
    const rfc = profiles.find((p) => p.key === "rfc")!;
    const result = lintDoc(doc, { files: new Map([["rfc.md", plain]]), mainPath: "rfc.md", profile: rfc });
    const f = result.findings.find((x) => x.check === "start-date")!;
    const fix = findingFix(doc, rfc, f);
    expect(fix?.kind === "edit" && applyEdits(plain, fix.edits)).toBe(`---\nstart-date:\n---\n${plain}`);
  });

  it("shows a placeholder instead of writing", () => {
    const text = KEP.replace("More events per node.", "More events per node. {{Cost per node.}}");
    const { doc, profile, findings } = lint(text);
    const f = findings.find((x) => x.check === "template-placeholder")!;
    const fix = findingFix(doc, profile, f);
    expect(fix?.kind).toBe("show");
    if (fix?.kind === "show") expect(text.slice(fix.charStart, fix.charEnd)).toBe("{{Cost per node.}}");
  });
});
