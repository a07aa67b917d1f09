import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { walkFiles } from "../../../../cli/lint-fs.js";
import { lintBundle } from "../../../../core/lint/engine.js";
import { loadProfiles } from "../../../../core/profile/load.js";
import { fsProfileSource } from "../../../../cli/lint-fs.js";
import { FM, hits, runCheck } from "../run-check.js";

const params = { sections: ["Requirements|Constraints|Non-functional requirements"] };
const check = (doc: string) => hits(doc, runCheck("contradiction", doc, params));

describe("contradiction: caught", () => {
  it.each([
    {
      name: "one latency, two numbers, in two sections",
      doc: `${FM}# Search\n\n## Summary\n\nThe p99 latency MUST be under 200 ms.\n\n## Requirements\n\n- p99 latency MUST be under 500 ms.\n`,
      expected: [[13, "500 ms"]],
    },
    {
      name: "retention in days, no modal word, inside a requirement section",
      doc: `${FM}# Audit\n\n## Requirements\n\n- REQ-001: Retain audit logs for 30 days.\n- REQ-002: Export audit logs as CSV.\n- REQ-003: Retain audit logs for 90 days.\n`,
      expected: [[11, "90 days"]],
    },
    {
      name: "units converted: 0.5 s is not 200 ms, and 2 min is 120 s",
      doc: `${FM}# T\n\n## Constraints\n\n- Requests MUST time out after 0.5 s.\n- Jobs MUST finish within 2 min.\n\n## Design\n\nRequests MUST time out after 200ms. Jobs MUST finish within 120 seconds.\n`,
      expected: [[14, "200ms"]],
    },
    {
      name: "percentages",
      doc: `${FM}# T\n\n## Goals\n\nThe API will have an availability of 99.9% per month.\n\n## Non-functional requirements\n\nThe API will have an availability of 99.95% per month.\n`,
      expected: [[13, "99.95%"]],
    },
    {
      name: "one limit in two phrasings of its bound",
      doc: `${FM}# Upload API\n\n## Requirements\n\n- REQ-001 A file may be at most 25 MB.\n\n## Constraints\n\nA file may be up to 50 MB.\n`,
      expected: [[13, "50 MB"]],
    },
    {
      name: "MUST and MUST NOT of one action",
      doc: `${FM}# T\n\n## Design\n\nThe client MUST retry a request that failed with 503.\n\n## Requirements\n\n- The client MUST NOT retry a request that failed with 503.\n`,
      expected: [[13, "The client MUST NOT retry a request that failed with 503."]],
    },
  ])("$name", ({ doc, expected }) => {
    expect(check(doc)).toEqual(expected);
  });

  it("names both values and the line of the first", () => {
    const doc = `${FM}# T\n\n## Requirements\n\n- Logs MUST be kept for 30 days.\n- Logs MUST be kept for 90 days.\n`;
    const f = runCheck("contradiction", doc, params).findings[0]!;
    expect(f.message).toBe(
      "Contradiction: '90 days' here, but '30 days' at line 9 for the same requirement: say which one holds",
    );
    expect(f.level).toBe("MUST");
  });
});

/** Good specs that mention numbers in several places on purpose: the check stays quiet. */
const QUIET: { name: string; doc: string }[] = [
  {
    name: "a KEP whose graduation stages ask different numbers",
    doc: `${FM}# KEP-4242: Pod scheduling gates\n\n## Summary\n\nGates hold a pod until an external controller releases it.\n\n## Design Details\n\n### Graduation Criteria\n\n#### Alpha\n\n- The feature MUST be tested on clusters of 100 nodes.\n- Scheduling latency MUST stay under 50 ms at p99.\n\n#### Beta\n\n- The feature MUST be tested on clusters of 5000 nodes.\n- Scheduling latency MUST stay under 20 ms at p99.\n\n### Production Readiness Review Questionnaire\n\n###### What are the SLIs?\n\n- Scheduling latency MUST stay under 20 ms at p99.\n`,
  },
  {
    name: "an RFC describing the behaviour before and after",
    doc: `${FM}# RFC: Faster incremental builds\n\n## Motivation\n\nToday an incremental build of the compiler takes 45 s; it was 90 s a year ago.\n\n## Reference-level explanation\n\nAn incremental build MUST take at most 15 s on the reference machine. For example, a build that touches one file will take 4 s.\n\n## Rationale and alternatives\n\nAn incremental build MUST take at most 30 s was the first target we discussed.\n`,
  },
  {
    name: "a PRD with a table of limits per plan and ranges",
    doc: `${FM}# Team invites\n\n## Requirements\n\n| Plan | Limit |\n|---|---|\n| Free | Invites MUST be limited to 5 seats. |\n| Team | Invites MUST be limited to 50 seats. |\n\n- An invite MUST expire between 1 and 7 days after it is sent.\n- Reminder emails MUST be sent at most 3 times.\n- Invite links MUST be at most 200 characters.\n\n## Success metrics\n\n- 40% of new teams invite someone within 7 days.\n- 60% of invites are accepted within 2 days.\n`,
  },
  {
    name: "an API spec with a limit per endpoint and versions",
    doc: `${FM}# Payments API\n\n## Rate limits\n\n- \`POST /refunds\` MUST be limited to 10 requests per second.\n- \`GET /refunds\` MUST be limited to 100 requests per second.\n- \`GET /refunds/{id}\` MUST be limited to 200 requests per second.\n\n## Security\n\nClients MUST use TLS 1.2 or later. Servers MUST support TLS 1.3. Servers MUST support HTTP/2 and MAY support HTTP/3.\n\n## Requirements\n\n- REQ-001: Refunds MUST be created within 2 s.\n- REQ-002: Refund webhooks MUST be delivered within 30 s.\n- REQ-003: Webhooks MUST be retried at most 5 times.\n- REQ-004: Webhook payloads MUST NOT exceed 256 KB.\n`,
  },
  {
    name: "an ADR whose considered options carry other numbers",
    doc: `${FM}# ADR-0007: Log retention\n\n## Context and Problem Statement\n\nCompliance asks us to keep logs; storage costs grow with every day kept.\n\n## Considered Options\n\n- Logs MUST be retained for 90 days in hot storage.\n- Logs MUST be retained for 14 days in hot storage.\n\n## Decision Outcome\n\nChosen option: logs MUST be retained for 30 days in hot storage, and for 1 year in cold storage.\n`,
  },
  {
    name: "per-environment subsections and the same number repeated in other units",
    doc: `${FM}# Deploys\n\n## Rollout\n\n### Staging\n\nA canary MUST run for 10 minutes.\n\n### Production\n\nA canary MUST run for 60 minutes.\n\n## Constraints\n\n- A deploy MUST finish within 30 min.\n- A deploy MUST finish within 1800 s.\n\n## Design\n\nA deploy MUST finish within half an hour, which is 30 min.\n`,
  },
  {
    name: "MUST NOT and MUST of different actions or conditions; quoted text",
    doc: `${FM}# T\n\n## Requirements\n\n- The server MUST NOT accept a request without a signature.\n- The server MUST accept a request with a valid signature.\n- The client MUST NOT send credentials over HTTP.\n- The client MUST send credentials in the Authorization header.\n\n## Background\n\n> The old spec said: the client MUST retry 10 times.\n\nThe client MUST retry 3 times.\n`,
  },
];

describe("contradiction: quiet on good specs", () => {
  it.each(QUIET)("$name", ({ doc }) => {
    expect(check(doc)).toEqual([]);
  });
});

describe("contradiction: quiet on every accepted spec of the fixtures", () => {
  const root = resolve(import.meta.dirname, "../../../..");
  const profiles = loadProfiles(fsProfileSource(join(root, "profiles"))).profiles;
  const docs = ["fixtures/lint-eval", "fixtures/examples", "profiles"].flatMap((dir) =>
    walkFiles(join(root, dir))
      .filter((f) => f.endsWith(".md"))
      .map((f) => join(dir, f)),
  );
  it("reads them with their built-in profile and finds nothing", () => {
    expect(docs.length).toBeGreaterThan(25);
    const found = docs.flatMap((path) =>
      lintBundle({
        files: new Map([["doc.md", readFileSync(join(root, path), "utf8")]]),
        mainPath: "doc.md",
        profiles,
      })
        .findings.filter((f) => f.check === "contradiction")
        .map((f) => `${path}: ${f.message}`),
    );
    expect(found).toEqual([]);
  });
});
