/**
 * `spec-review lint` on docs that name no type: `.spec-review/config.yaml` `types:` by path
 * or glob, and `--profile KEY`; and profiles that `extends:` a built-in.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { lintPaths, LintUsageError } from "../../cli/lint-fs.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tree(files: Record<string, string>): string {
  const d = mkdtempSync(join(tmpdir(), "sr-types-"));
  dirs.push(d);
  mkdirSync(join(d, ".git"));
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(join(d, p, ".."), { recursive: true });
    writeFileSync(join(d, p), text);
  }
  return d;
}

// A language-RFC-shaped proposal without frontmatter, CRLF line ends, an emoji and an HTML comment.
const proposal = (n: string) =>
  [
    `# SE-${n}: Typed throws 🚀`,
    "",
    "* Proposal: [SE-" + n + "](" + n + "-typed-throws.md)",
    "* Status: **Implemented**",
    "",
    "<!-- review notes live in the forum thread -->",
    "## Summary",
    "",
    "Functions may name the one error type they throw, so callers can handle it exhaustively.",
    "",
    "## Motivation",
    "",
    "Callers catch `any Error` today and cannot tell which failures are possible.",
    "",
    "## Detailed design",
    "",
    "A function declares `throws(ParseError)`; the compiler checks that every throw site converts to it.",
    "",
    "| form | meaning |",
    "|---|---|",
    "| `throws` | any error |",
    "| `throws(E)` | only `E` |",
    "",
  ].join("\r\n");

const adr = `# 7. Use an outbox table for events

Date: 2024-03-02

## Status

Accepted

## Context

Events were lost when the broker was down during a checkout.

## Decision

We write events to an outbox table in the same transaction and relay them every second.

## Consequences

One more table to watch; events are delivered at least once.
`;

const readme = "# Team notes\n\nHow we work, in a few lines of prose for new people.\n";

describe("lint: types from .spec-review/config.yaml", () => {
  const root = tree({
    ".spec-review/config.yaml":
      'types:\n  "proposals/*.md": rfc\n  proposals/0002-outbox.md: nygard\n  "**/*.md": madr\n',
    "proposals/0001-typed-throws.md": proposal("0001"),
    "proposals/0002-outbox.md": adr,
    "proposals/0003-typed-throws.md": proposal("0003"),
    "proposals/diagram.png": "png",
    "docs/prd/prd.md": "---\ntype: prd\n---\n# Checkout\n\n## Problem\n\nPeople drop out.\n",
  });

  it("lints every file a glob names in a flat folder, each on its own, as if it named the type", async () => {
    const report = await lintPaths(["proposals"], { cwd: root, workers: 0 });
    expect(report.problems).toEqual([]);
    const byPath = new Map(report.docs.map((d) => [d.path, d]));
    expect([...byPath.keys()].sort()).toEqual([
      "proposals/0001-typed-throws.md",
      "proposals/0002-outbox.md",
      "proposals/0003-typed-throws.md",
    ]);
    expect(byPath.get("proposals/0001-typed-throws.md")!.profile_key).toBe("rfc");
    // The type comes from the repository: not adopted.
    expect(byPath.get("proposals/0001-typed-throws.md")!.adopt?.type).toBeUndefined();
    // An exact path wins over a glob, a longer glob over a shorter one.
    expect(byPath.get("proposals/0002-outbox.md")!.profile_key).toBe("nygard");
    expect(byPath.get("proposals/0003-typed-throws.md")!.profile_key).toBe("rfc");
  });

  it("keeps the type a doc's frontmatter names, and reads the config from a folder below the root", async () => {
    const report = await lintPaths(["."], { cwd: join(root, "docs"), workers: 0 });
    expect(report.docs.map((d) => [d.path, d.profile_key])).toEqual([["prd/prd.md", "prd"]]);
  });

  it("types a file given by path too", async () => {
    const report = await lintPaths(["proposals/0002-outbox.md"], { cwd: root, workers: 0 });
    expect(report.docs[0]).toMatchObject({ profile_key: "nygard" });
    expect(report.docs[0]!.adopt?.type).toBeUndefined();
  });
});

describe("lint --profile", () => {
  const root = tree({
    "adr/0007-outbox.md": adr,
    "records/0008-typed.md":
      "---\ntype: madr\nstatus: accepted\n---\n# Use Postgres\n\n## Decision outcome\n\nChosen option: Postgres, because we run it already.\n",
    "notes/guide.md": readme,
  });

  it("lints docs that name no type with the profile; docs naming a type keep theirs", async () => {
    const without = await lintPaths(["."], { cwd: root, workers: 0 });
    expect(without.docs.map((d) => d.path)).toEqual(["records/0008-typed.md"]);
    expect(without.skipped).toEqual(["adr/0007-outbox.md", "notes/guide.md"]);
    const report = await lintPaths(["."], { cwd: root, workers: 0, profile: "nygard" });
    const keys = Object.fromEntries(report.docs.map((d) => [d.path, d.profile_key]));
    expect(keys).toEqual({
      "adr/0007-outbox.md": "nygard",
      "records/0008-typed.md": "madr",
      "notes/guide.md": "nygard",
    });
    expect(report.docs.find((d) => d.path === "adr/0007-outbox.md")!.adopt?.type).toBe("nygard");
    expect(report.skipped).toEqual([]);
  });

  it("uses the profile for a file without frontmatter given by path, not a guess", async () => {
    const report = await lintPaths(["notes/guide.md"], { cwd: root, workers: 0, profile: "madr" });
    expect(report.docs[0]!.profile_key).toBe("madr");
  });

  it("refuses a key that names no profile", async () => {
    await expect(lintPaths(["."], { cwd: root, profile: "nosuch" })).rejects.toThrow(LintUsageError);
  });
});

describe("lint with a repository profile that extends a built-in", () => {
  it("uses the resolved profile: the parent's checks with the child's levels", async () => {
    const root = tree({
      ".spec-review/profiles/nygard/profile.yaml":
        "key: nygard\ntitle: Our ADRs\nextends: nygard\nchecks:\n  - slug: decision\n    disabled: true\n",
      "adr/0009-empty.md":
        "---\ntype: nygard\n---\n# 9. Nothing yet\n\nDate: 2024-01-01\n\n## Status\n\nProposed\n\n## Context\n\nWe must pick a queue for the exports.\n",
    });
    const report = await lintPaths(["adr"], { cwd: root, workers: 0 });
    expect(report.loaded.origins.get("nygard")?.origin).toBe("repository");
    expect(report.docs[0]!.findings.map((f) => f.check)).not.toContain("decision");
    const builtin = await lintPaths(["adr"], { cwd: root, workers: 0, profilesDirs: [] });
    expect(builtin.docs[0]!.profile_key).toBe("nygard");
  });
});
