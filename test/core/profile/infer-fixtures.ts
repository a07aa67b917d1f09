/**
 * Sets of accepted docs in the shapes real teams write, for profile inference tests:
 * language-change proposals without frontmatter (header bullet lines, numbered IDs),
 * enhancement proposals with a sibling kep.yaml, MADR decision records with `* Status:`
 * lines, and PRDs with frontmatter and REQ IDs. Written for these tests; each set varies
 * its headings (synonyms, numbering, emoji), line endings, comments, footnotes and tables.
 */

export interface FixtureFile {
  path: string;
  text: string;
}

const TOPICS = [
  ["Typed throws", "error handling", "thrown errors"],
  ["Package plugins", "the build system", "build plugins"],
  ["Regex literals", "string processing", "pattern literals"],
  ["Async sequences", "concurrency", "asynchronous iteration"],
  ["Move-only types", "ownership", "unique values"],
  ["Static linking", "the toolchain", "linked binaries"],
  ["Result builders", "embedded DSLs", "builder closures"],
  ["Distributed actors", "remote calls", "actor systems"],
  ["Parameter packs", "generics", "variadic generics"],
  ["Noncopyable generics", "the type system", "copy constraints"],
  ["Sendable checking", "data-race safety", "isolation domains"],
  ["Macro roles", "metaprogramming", "attached macros"],
] as const;

const crlf = (s: string) => s.replace(/\n/g, "\r\n");

/** Language-change proposals: `* Proposal: [LP-0012](...)` header lines, no frontmatter. */
export function languageProposals(count = 12): FixtureFile[] {
  const statuses = [
    "Implemented (Release 5.9)",
    "Accepted",
    "Implemented (Release 6.0)",
    "Rejected",
    "Accepted with revisions",
  ];
  return TOPICS.slice(0, count).map(([title, area, thing], i) => {
    const id = String(100 + i).padStart(4, "0");
    const alt = i % 4 === 3 ? "Alternatives" : "Alternatives considered";
    const design = i % 5 === 4 ? "Design" : "Detailed design";
    const emoji = i % 3 === 0 ? " ✨" : "";
    const text = `# ${title}${emoji}

* Proposal: [LP-${id}](${id}-${title.toLowerCase().replace(/\W+/g, "-")}.md)
* Authors: [Dana Example](https://example.org/dana)
* Review Manager: [Lee Example](https://example.org/lee)
* Status: **${statuses[i % statuses.length]}**
* Review: ([pitch](https://forums.example.org/t/pitch-${i}/${1000 + i}))

## Introduction

This proposal improves ${area} with ${thing}, so that code which uses ${thing} reads as the
author meant it and the compiler can check it.

## Motivation

Today ${area} forces people to write boilerplate around ${thing}.[^1] Libraries repeat the
same wrappers, and the diagnostics point at the wrapper instead of the mistake.

<!-- Keep the motivation short. -->

## Proposed solution

We add ${thing} to the language. A declaration opts in with one keyword and callers see the
new behaviour without any change to their code.

## ${design}

The grammar gains one production:

\`\`\`
${thing.replace(/\s+/g, "-")}-clause -> 'with' type-identifier
\`\`\`

| rule | effect |
|---|---|
| declaration | opts in to ${thing} |
| call site | unchanged |

A declaration with the clause is checked at compile time; the runtime must keep at most 16
entries per ${thing.split(" ")[0]} and evicts the oldest one first.

## Source compatibility

Existing code keeps compiling: the keyword is contextual.

## ${alt}

We considered a library-only approach. It cannot express the constraint in the type system,
so it was not chosen.

${i % 2 === 0 ? "## Future directions\n\nA later proposal may extend this to protocols.\n\n" : ""}[^1]: See the pitch thread for examples.
`;
    return {
      path: `proposals/${id}-${title.toLowerCase().replace(/\W+/g, "-")}.md`,
      text: i % 4 === 1 ? crlf(text) : text,
    };
  });
}

/** Enhancement proposals: `keps/<sig>/<n>-<name>/README.md` with a `kep.yaml` beside it. */
export function enhancementProposals(count = 10): FixtureFile[] {
  const out: FixtureFile[] = [];
  for (let i = 0; i < count; i++) {
    const [title, area] = TOPICS[i]!;
    const dir = `keps/sig-${i % 2 === 0 ? "node" : "apps"}/${3000 + i}-${title.toLowerCase().replace(/\W+/g, "-")}`;
    const stage = ["alpha", "beta", "stable"][i % 3]!;
    out.push({
      path: `${dir}/kep.yaml`,
      text: `title: ${title}\nkep-number: ${3000 + i}\nauthors:\n  - "@dana"\nowning-sig: sig-node\nstatus: ${i % 4 === 3 ? "provisional" : "implementable"}\nstage: ${stage}\ncreation-date: 2024-0${(i % 9) + 1}-15\n`,
    });
    const text = `# KEP-${3000 + i}: ${title}

<!-- toc -->
- [Summary](#summary)
- [Motivation](#motivation)
- [Proposal](#proposal)
<!-- /toc -->

## Summary

Add ${title.toLowerCase()} to ${area}, behind a feature gate.

## Motivation

### Goals

- Operators can turn the feature on per cluster.

### Non-Goals

- Changing the default behaviour.

## Proposal

The kubelet reads a new field and acts on it. 🚀

### Risks and Mitigations

A misconfigured field is rejected by validation.

## Design Details

The API gains one optional field; the controller reconciles it every 30 seconds.

\`\`\`yaml
spec:
  ${title.toLowerCase().replace(/\W+/g, "")}: true
\`\`\`

### Test Plan

Unit tests cover validation; an e2e test covers the happy path.

### Graduation Criteria

Beta once two releases ran it without regressions.

## Production Readiness Review Questionnaire

### Feature Enablement and Rollback

The feature gate turns it off; rollback needs no data migration.

## Drawbacks

One more field to document.

## Alternatives

An annotation was considered and rejected.
`;
    out.push({ path: `${dir}/README.md`, text: i % 3 === 2 ? crlf(text) : text });
  }
  return out;
}

/** MADR decision records with `* Status:` / `* Date:` lines, plus the folder's index. */
export function madrRecords(count = 9): FixtureFile[] {
  const out: FixtureFile[] = [
    { path: "docs/decisions/README.md", text: "# Decisions\n\nThe records of this folder, newest last.\n" },
  ];
  for (let i = 0; i < count; i++) {
    const [title] = TOPICS[i]!;
    const superseded = i === 2;
    out.push({
      path: `docs/decisions/${String(i + 1).padStart(4, "0")}-${title.toLowerCase().replace(/\W+/g, "-")}.md`,
      text: `# Use ${title.toLowerCase()}

* Status: ${superseded ? "superseded by [0005](0005-move-only-types.md)" : "accepted"}
* Deciders: Dana, Lee
* Date: 2023-0${(i % 9) + 1}-0${(i % 8) + 1}

## Context and Problem Statement

We need a way to handle ${title.toLowerCase()} that the whole team can follow.

## Decision Drivers

* easy to review
* no new runtime dependency

## Considered Options

* ${title}
* Keep the current approach

## Decision Outcome

Chosen option: "${title}", because it is the only option that meets both drivers.

### Consequences

* Good, because reviews get shorter.
* Bad, because the build gets one more step.

## Pros and Cons of the Options

### ${title}

* Good, because it is explicit.
`,
    });
  }
  return out;
}

/** PRDs with frontmatter (owner, status) and numbered REQ requirements. */
export function prds(count = 8): FixtureFile[] {
  return TOPICS.slice(0, count).map(([title, area], i) => ({
    path: `product/prd-${i + 1}.md`,
    text: `---
title: ${title} for ${area}
owner: dana@example.org
status: ${i % 3 === 0 ? "approved" : "shipped"}
---

# ${title}

## Problem

Customers of ${area} lose time because ${title.toLowerCase()} are missing.

## Goals

- Cut the time to set up ${area} in half.

## Requirements

- REQ-00${(i % 3) + 1}: The system MUST let an admin enable ${title.toLowerCase()} per workspace.
- REQ-00${(i % 3) + 4}: The system MUST answer the settings page within 300 ms at p95.
- REQ-00${(i % 3) + 7}: The system SHOULD show the current state on the dashboard.

## Success metrics

| metric | target |
|---|---|
| setup time | under 10 minutes |
`,
  }));
}
