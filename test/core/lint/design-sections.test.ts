/**
 * The built-in profiles find a doc's design (or an ADR's decision) by meaning: under the
 * names real teams give it, inline in an ADR, or under a doc's own headings. Docs that are
 * no spec (a stub pointing elsewhere, an index, a process doc) are not held to it at MUST.
 * A doc with no design under any name, and an accepted ADR with no decision, still are.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fsProfileSource } from "../../../cli/lint-fs.js";
import { lintBundle } from "../../../core/lint/engine.js";
import { loadProfiles } from "../../../core/profile/load.js";
import { packageRoot } from "../../../server/paths.js";

const { profiles } = loadProfiles(fsProfileSource(join(packageRoot(), "profiles")));

/** The MUST findings of the profile's main section check (`design`, `proposed-design` or `decision`). */
function mainMust(key: string, text: string, files: Record<string, string> = {}, path = "doc.md") {
  return mainFindings(key, text, files, path).filter((f) => f.level === "MUST");
}

/** The findings of the profile's main section check, at any level. */
function mainFindings(key: string, text: string, files: Record<string, string> = {}, path = "doc.md") {
  const profile = profiles.find((p) => p.key === key)!;
  const main = profile.checks.find((c) => c.kind === "required-section" && c.level === "MUST")!.slug;
  const map = new Map<string, string>(Object.entries(files));
  map.set(path, text);
  const r = lintBundle({ files: map, mainPath: path, profile });
  return r.findings.filter((f) => f.check === main);
}

const PARA =
  "The scheduler keeps one queue per tenant and drains them round robin, so a noisy tenant " +
  "cannot starve the others; each queue is bounded at 10,000 entries and rejects with 429 beyond that.";

describe("a design under the names real docs use", () => {
  it.each([
    ["rfc", "Proposed solution"],
    ["rfc", "Detail Design"],
    ["rfc", "What's proposed"],
    ["rfc", "Explanation"],
    ["rfc", "Proposed Approach"],
    ["rfc", "Overview of type and protocol changes"],
    ["kep", "Proposed design"],
    ["kep", "Specification"],
    ["design", "Draft Design"],
    ["design", "Technical design"],
    ["design", "Decisions"],
    ["nygard", "Decisions"],
    ["madr", "Decision Outcome"],
  ])("%s: '## %s' is the design", (key, heading) => {
    const doc = `# Tenant-fair scheduling 🚦\r\n\r\n## Motivation\r\n\r\nQueues starve today.\r\n\r\n## ${heading}\r\n\r\n${PARA}\r\n`;
    expect(mainMust(key, doc).map((f) => f.level)).toEqual([]);
  });

  it("MADR's inline 'Chosen option:' and a '**Decision:**' paragraph record the decision", () => {
    const madr = `# Use Postgres for the audit log\n\n## Context and Problem Statement\n\nWe need an audit log.\n\n## Considered Options\n\n* Postgres\n* Kafka\n\nChosen option: "Postgres", because we already run it.\n`;
    expect(mainMust("madr", madr)).toEqual([]);
    const nygard = `# 3. Queue jobs in Redis\n\nDate: 2024-03-01\n\n## Status\n\nAccepted\n\n## Context\n\nJobs are lost on deploys.\n\n**Decision:** we move background jobs to a Redis-backed queue.\n\n## Consequences\n\nOne more service to run.\n`;
    expect(mainMust("nygard", nygard)).toEqual([]);
  });

  it("a free-form design doc (its own headings, code) is not told it has no design at MUST", () => {
    const doc = [
      "# Generics implementation: dictionaries",
      "",
      "## Instantiated types",
      "",
      "Each instantiation gets a dictionary passed as the first argument.",
      "",
      "```go",
      "type dict struct { types []*_type; itabs []*itab }",
      "```",
      "",
      "## Stack layout",
      "",
      "The dictionary pointer sits at the bottom of the frame.",
      "",
      "## Risks",
      "",
      "Code size may grow.",
      "",
    ].join("\n");
    expect(mainFindings("design", doc).map((f) => f.level)).toEqual(["INFO"]);
  });
});

describe("docs that are no spec are not held to a design at MUST", () => {
  it("a stub that points to where the design moved", () => {
    expect(mainMust("rfc", "Moved to [the new proposal](https://example.org/design/42-sumdb).\n")).toEqual(
      [],
    );
    expect(
      mainMust(
        "rfc",
        "# Borrow types\n\nThis document was renamed during review. Please see [SE-0600](0600-ref-types.md).\n",
      ),
    ).toEqual([]);
  });

  it("a superseded record that only points to its successor, and a design kept in a private record", () => {
    expect(mainMust("nygard", "# 7. Old queue\n\nSuperseded by [ADR 9](0009-new-queue.md).\n")).toEqual([]);
    expect(
      mainMust(
        "design",
        "# Payments ledger\n\nThe design is recorded in a private document of the payments team.\n",
      ),
    ).toEqual([]);
  });

  it("an index of the folder's records, and a process doc", () => {
    const index = `# Decision log\n\n- [Use Postgres](0001-postgres.md)\n- [Queue jobs](0002-queue.md)\n- [Drop the monolith](0003-split.md)\n`;
    expect(
      mainMust(
        "madr",
        index,
        { "0001-postgres.md": "", "0002-queue.md": "", "0003-split.md": "" },
        "index.md",
      ),
    ).toEqual([]);
    const principles = `# Cryptography principles\n\nOur libraries aim to be secure, safe, practical and modern, in that order.\n\n**Secure.** We accept changes only when maintainers can keep them secure.\n`;
    expect(mainMust("design", principles)).toEqual([]);
  });
});

describe("what stays MUST beside what no longer is", () => {
  it("a proposal with no design under any name, and the same proposal with a 'Proposed solution'", () => {
    const doc = `# Faster builds\n\n## Introduction\n\nBuilds are slow.\n\n## Motivation\n\nCI takes 40 minutes.\n\n## Alternatives considered\n\nBigger machines.\n`;
    expect(mainMust("rfc", doc).map((f) => f.message)).toEqual([
      "Section 'Reference-level explanation' is missing",
    ]);
    const withDesign = doc.replace("## Alternatives", `## Proposed solution\n\n${PARA}\n\n## Alternatives`);
    expect(mainMust("rfc", withDesign)).toEqual([]);
  });

  it("a proposal about a process whose proposal was left out, and a process doc", () => {
    const proposal = `# Proposal: a new release process\n\n## Abstract\n\nShip twice a year.\n\n## Background\n\nReleases slip.\n\n## Rationale\n\nPredictability.\n`;
    expect(mainMust("design", proposal)).toHaveLength(1);
    const process = `# Release process\n\nWe cut a branch on the first Monday of February and August, and ship four weeks later.\n`;
    expect(mainMust("design", process)).toEqual([]);
  });

  it("an accepted record with no decision, even one that links to others, and a superseded stub", () => {
    const accepted = `# 12. Cache sessions\n\nDate: 2024-05-02\n\n## Status\n\nAccepted\n\n## Context\n\nSee [ADR 3](0003-redis.md). Logins are slow.\n\n## Consequences\n\nNone yet.\n`;
    expect(mainMust("nygard", accepted)).toHaveLength(1);
    expect(mainMust("nygard", "# 7. Old queue\n\nSee [ADR 9](0009-new-queue.md).\n")).toEqual([]);
  });

  it("a design section that only says TODO, and one that says what is built", () => {
    const doc = `# KEP-4242: Pod checkpoints\n\n## Summary\n\nCheckpoint pods.\n\n## Motivation\n\nMigrations.\n\n## Proposed design\n\nTODO: describe\n`;
    expect(mainMust("kep", doc)).toHaveLength(1);
    expect(mainMust("kep", doc.replace("TODO: describe", PARA))).toEqual([]);
  });
});
