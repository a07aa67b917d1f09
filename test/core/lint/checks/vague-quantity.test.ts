import { describe, expect, it } from "vitest";
import { FM, hits, runCheck } from "../run-check.js";

const cases: { name: string; doc: string; expected: [number, string][] }[] = [
  {
    name: "a KEP's SLO answered with a vague time",
    doc: `${FM}# KEP-4242: Volume health events 🩺\n\n## Production Readiness Review Questionnaire\n\n###### What are the SLOs for the enhancement?\n\nAn abnormal volume MUST show as an event within a reasonable time.\n`,
    expected: [[11, "within a reasonable time"]],
  },
  {
    name: "a PRD's limits: retries, memory and a timely manner, in list items and a table",
    doc: `${FM}# Bulk export\n\n## Non-functional requirements\n\n- REQ-010 The exporter MUST retry a reasonable number of times before it gives up.\n- REQ-011 Exports SHOULD be delivered in a timely manner.\n\n| ID | Limit |\n|---|---|\n| REQ-012 | The worker must use a sufficient amount of memory. |\n`,
    expected: [
      [9, "a reasonable number of"],
      [10, "in a timely manner"],
      [14, "a sufficient amount of memory"],
    ],
  },
  {
    name: "CRLF, emoji and an RFC 2119 'quickly'",
    doc: `${FM}# 🚀 Webhooks\r\n\r\n## Delivery\r\n\r\nThe sender MUST retry quickly after a 503, and SHOULD respond as fast as possible.\r\n`,
    expected: [
      [9, "quickly"],
      [9, "as fast as possible"],
    ],
  },
  {
    name: "the number is given: no finding",
    doc: `${FM}# T\n\n## Design\n\nThe client MUST time out within a reasonable time (at most 30 s).\nThe cache MUST hold at most 512 MiB and MUST refresh after a few seconds (at most 5 s).\n`,
    expected: [],
  },
  {
    name: "descriptions, wishes and 'the appropriate X' are not requirements",
    doc: `${FM}# T\n\n## Design\n\nThe parser reads the appropriate number of bytes for the header.\nWe would like the compiler to finish as soon as possible.\nThe trampoline would pause it as soon as possible.\n`,
    expected: [],
  },
  {
    name: "code, quotes and comments are not read",
    doc: `${FM}# T\n\n## Design\n\n\`\`\`go\n// must retry a reasonable number of times\n\`\`\`\n\n> Users said it must respond within a reasonable time.\n\nThe \`timeout must be reasonable\` flag <!-- must retry a few times --> is described below.\n`,
    expected: [],
  },
  {
    name: "motivation and alternatives count only with an obligation, not 'will'",
    doc: `${FM}# T\n\n## Motivation\n\nIn a few days we will have several retries queued; builds took a long time.\n\n## Alternatives considered\n\nThe proxy will remain for a short time.\n\n## Design\n\nThe proxy will be kept for a short time after the cut-over.\n`,
    expected: [[17, "for a short time"]],
  },
  {
    name: "an ADR's decision that leaves the quantity open",
    doc: `${FM}# 7. Sample traces at the collector\n\n## Decision\n\nWe keep every trace with an error, and traces are kept for an appropriate amount of time.\n\n## Consequences\n\nStorage drops by a sufficient share.\n`,
    expected: [
      [9, "for an appropriate amount of time"],
      [13, "by a sufficient share"],
    ],
  },
  {
    name: "a limit stated in the rationale binds there too: 'limited to', 'capped at'",
    doc: `${FM}# Vanity imports over DNS\n\n## Rationale\n\nBecause TXT records are limited to a few characters, long paths are split. Entries are capped at a reasonable size.\nA name limited to the one the registry chose is fine.\n`,
    expected: [
      [9, "a few characters"],
      [9, "a reasonable size"],
    ],
  },
  {
    name: "history and acknowledgements are left out",
    doc: `${FM}# T\n\n## Revision history\n\n- v2: retries must now stop after a reasonable number of attempts.\n\n## Acknowledgments\n\nThanks to Ana, who must have answered in a timely manner.\n`,
    expected: [],
  },
];

describe("vague-quantity", () => {
  it.each(cases)("$name", ({ doc, expected }) => {
    expect(hits(doc, runCheck("vague-quantity", doc, {}))).toEqual(expected);
  });

  it("asks for the number and its unit", () => {
    const doc = `${FM}## Limits\n\nRequests MUST time out after a short delay.\n`;
    const [f] = runCheck("vague-quantity", doc, {}).findings;
    expect(f!.message).toMatch(
      /^'after a short delay' is not a number: give the quantity as a number with its unit/,
    );
  });

  it("sections narrows where it looks; max_per_doc caps the findings", () => {
    const doc = `${FM}## Limits\n\nIt must retry a few times.\n\n## Other\n\nIt must retry a few times. It must wait a few seconds. It must poll a few times.\n`;
    expect(runCheck("vague-quantity", doc, { sections: ["Limits"] }).findings).toHaveLength(1);
    expect(runCheck("vague-quantity", doc, { max_per_doc: 2 }).findings).toHaveLength(2);
  });
});
