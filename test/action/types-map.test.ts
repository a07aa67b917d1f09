/**
 * The Action on a checkout whose `.spec-review/config.yaml` types markdown that names none:
 * a flat folder of proposals the glob names is linted doc by doc, a change touches the doc it changes.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { lintTouched, scanWorkspace, touchedBundles } from "../../action/lint.js";
import { loadLayers, profileLayers } from "../../node/pr/lint.js";
import { builtinProfilesDir } from "../../node/package.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const proposal = (n: string, design: string) =>
  `# SE-${n}: Labeled tuples in patterns\n\n* Status: **Accepted**\n\n## Introduction\n\nPatterns may name tuple labels so matches read like the values they take apart.\n\n## Motivation\n\nPositional tuple patterns are easy to get wrong when two fields share a type.\n\n## Detailed design\n\n${design}\n`;

function checkout(): string {
  const root = mkdtempSync(join(tmpdir(), "sr-action-types-"));
  dirs.push(root);
  mkdirSync(join(root, ".git"));
  const files: Record<string, string> = {
    ".spec-review/config.yaml": 'types:\n  "proposals/*.md": rfc\n  proposals/0003-x.md: nygard\n',
    "proposals/0001-labels.md": proposal(
      "0001",
      "A pattern `(x: let a, y: let b)` binds by label; order still counts.",
    ),
    "proposals/0002-other.md": proposal("0002", "TODO: describe"),
    "proposals/0003-x.md":
      "# 3. Record\n\nDate: 2024-01-01\n\n## Status\n\nAccepted\n\n## Context\n\nWhy.\n\n## Decision\n\nWe do it.\n\n## Consequences\n\nSome.\n",
    "proposals/diagram.svg": "<svg/>",
    "README.md": "# Repo\n\nNot a spec.\n",
  };
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(join(root, p, ".."), { recursive: true });
    writeFileSync(join(root, p), text);
  }
  return root;
}

describe("the Action with types from .spec-review/config.yaml", () => {
  it("finds each doc the map names as a spec doc of that type; an exact path beats the glob", () => {
    const root = checkout();
    const d = scanWorkspace(root);
    expect(d.problems).toEqual([]);
    expect(d.bundles.map((b) => [b.slug, b.doc.path, b.doc.type])).toEqual([
      ["proposals", "0001-labels.md", "rfc"],
      ["proposals", "0002-other.md", "rfc"],
      ["proposals", "0003-x.md", "nygard"],
    ]);
    expect(d.skipped).toEqual(["README.md"]);
    // A changed doc touches its own bundle; a changed asset of the folder touches all of them.
    expect(touchedBundles(d, ["proposals/0002-other.md"]).bundles.map((b) => b.doc.path)).toEqual([
      "0002-other.md",
    ]);
    expect(touchedBundles(d, ["proposals/diagram.svg"]).bundles).toHaveLength(3);
  });

  it("lints them with the type the map gives", () => {
    const root = checkout();
    const { profiles } = loadLayers(profileLayers(root, undefined, builtinProfilesDir()), root);
    const results = lintTouched(root, { profiles, changed: ["proposals/0002-other.md"] });
    expect(results.map((r) => [r.doc, r.profile])).toEqual([["proposals/0002-other.md", "rfc"]]);
  });
});
