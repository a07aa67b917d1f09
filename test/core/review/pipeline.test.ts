import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import {
  ModelCallError,
  ReviewError,
  estimateReview,
  historyOf,
  resultOf,
  runReview,
  statementsOf,
  stepKey,
  validateAnswer,
  judgeAnswer,
  type CachedStep,
  type ReviewInput,
  type StepCache,
} from "../../../core/review/index.js";
import { scriptedClient } from "./scripted-model.js";

const SPEC = readFileSync(resolve(import.meta.dirname, "../../../fixtures/review/checkout/spec.md"), "utf8");
const profile = {
  key: "prd",
  title: "Product requirements",
  radar: ["completeness", "clarity", "testability"],
  readers: 3,
  build_questions: [],
  guidance: "",
};

function memoryCache(): StepCache & { map: Map<string, CachedStep> } {
  const map = new Map<string, CachedStep>();
  return {
    map,
    history: (model) => Promise.resolve(historyOf([...map.values()].filter((s) => s.model === model))),
    get: (k) => Promise.resolve(map.get(k)),
    put: (k, v) => {
      map.set(k, v);
      return Promise.resolve();
    },
  };
}

const noSleep = () => Promise.resolve();

function input(overrides: Partial<ReviewInput> = {}, text = SPEC): ReviewInput {
  const client = scriptedClient();
  const role = { client, model: "m" };
  return {
    bundle: { files: [{ path: "spec.md", text }], mainPath: "spec.md", linked: [] },
    profile,
    roles: { reviewer: role, reader: role, judge: role },
    parallel: 4,
    now: () => performance.now(),
    sleep: noSleep,
    ...overrides,
  };
}

/** The byte range of `quote` in the spec (UTF-8 bytes; the spec is ASCII). */
function bytesOf(quote: string): [number, number] {
  const at = Buffer.from(SPEC).indexOf(quote);
  return [at, at + Buffer.byteLength(quote)];
}

describe("resultOf", () => {
  it.each([
    { answered: [1, 2, 3], groups: [[1, 2, 3]], result: "agree", out: [[1, 2, 3]] },
    { answered: [1, 2, 3], groups: [[2], [1, 3]], result: "diverge", out: [[1, 3], [2]] },
    { answered: [1, 3], groups: [[1, 3]], result: "partial", out: [[1, 3], [2]] },
    { answered: [], groups: undefined, result: "unanswered", out: [[1, 2, 3]] },
    { answered: [2], groups: undefined, result: "partial", out: [[2], [1, 3]] },
  ])("$answered with $groups is $result", ({ answered, groups, result, out }) => {
    expect(resultOf(3, answered, groups)).toEqual({ result, groups: out });
  });
});

describe("judge answer validation", () => {
  it.each([
    [{ groups: [[1, 2]], result: "agree", agreed_answer: "x", explanation: "" }, true],
    [{ groups: [[1], [2]], result: "agree", agreed_answer: "", explanation: "" }, false],
    [{ groups: [[1]], result: "agree", agreed_answer: "", explanation: "" }, false],
    [{ groups: [[1, 2], [2]], result: "diverge", agreed_answer: "", explanation: "" }, false],
    [{ groups: [[1, 4]], result: "agree", agreed_answer: "", explanation: "" }, false],
  ])("%j valid: %s", (answer, ok) => {
    expect(validateAnswer(judgeAnswer([1, 2]), JSON.stringify(answer)).ok).toBe(ok);
  });

  it("takes JSON in a code fence and says what is wrong otherwise", () => {
    expect(
      validateAnswer(
        judgeAnswer([1]),
        '```json\n{"groups":[[1]],"result":"agree","agreed_answer":"","explanation":""}\n```',
      ).ok,
    ).toBe(true);
    const answer = '{"groups":[[1]],"result":"agree","agreed_answer":"a {b} \\"c\\"","explanation":""}';
    // What real models wrap around an answer: a reasoning block (braces in it), prose with a
    // fence mid-text, prose with braces before the object.
    for (const wrapped of [
      `<think>The schema wants {groups, result}; reader 1 alone.</think>\n${answer}`,
      `Here is the grouping:\n\n\`\`\`json\n${answer}\n\`\`\`\n\nLet me know {if} you need more.`,
      `Readers {1} agree. Answer: ${answer} (done)`,
      `I'd say "one group {x}. ${answer}`,
      // JSON5's leniencies, as a model not held to a schema writes: trailing commas, single quotes, a comment.
      `{'groups': [[1],], result: 'agree', 'agreed_answer': "a {b} \\"c\\"", explanation: '', // one reader\n}`,
    ]) {
      const v = validateAnswer(judgeAnswer([1]), wrapped);
      expect(v.ok ? v.value.agreed_answer : v.error, wrapped).toBe('a {b} "c"');
    }
    const bad = validateAnswer(judgeAnswer([1]), "{ not json");
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.error).toMatch(/^not JSON/);
  });
});

describe("runReview", () => {
  it("asks questions, reads, judges, labels claims and finds, with anchors in the text", async () => {
    const out = await runReview(input());
    expect(out.status).toBe("done");
    expect(out.questions.map((q) => [q.number, q.text, q.level, q.result, q.groups])).toEqual([
      [1, "What exactly does REQ-001 require?", "MUST", "agree", [[1, 2, 3]]],
      [2, "What exactly does REQ-002 require?", "MUST", "diverge", [[1], [2], [3]]],
      [3, "What exactly does REQ-003 require?", "MUST", "unanswered", [[1, 2, 3]]],
      [4, "What exactly does REQ-004 require?", "SHOULD", "agree", [[1, 2, 3]]],
    ]);
    const q1 = out.questions[0]!;
    const line1 = "REQ-001 The cart total is shown in the shop's currency with two decimals.";
    expect(q1.cites[0]).toMatchObject({ kind: "section", path: ["Checkout", "Requirements"] });
    expect([q1.cites[0]!.anchor.start, q1.cites[0]!.anchor.end]).toEqual(bytesOf(line1));
    expect(q1.cites[1]).toMatchObject({ kind: "trace_id", id: "REQ-001" });
    expect(q1.answers).toEqual(
      [1, 2, 3].map((reader) => ({
        reader,
        answer: line1,
        answered: true,
        quotes: [{ text: line1, found: true }],
      })),
    );
    expect(q1.agreed_answer).toBe(line1);
    expect(out.questions[2]!.answers.every((a) => !a.answered && a.answer === "NOT SPECIFIED")).toBe(true);

    // A MUST question readers diverge on or cannot answer becomes a MUST finding where it cites.
    const qFindings = out.findings.filter((f) => f.check === "build-question");
    expect(qFindings.map((f) => [f.level, f.message, f.anchor.start])).toEqual([
      [
        "MUST",
        "Readers understood this differently: What exactly does REQ-002 require?",
        bytesOf("REQ-002")[0],
      ],
      [
        "MUST",
        "No reader could answer this from the text: What exactly does REQ-003 require?",
        bytesOf("REQ-003")[0],
      ],
    ]);
    expect(out.questions[1]!.finding_id).toBe(qFindings[0]!.id);

    // Claims: a supported claim with a quote nowhere in the bundle is unsupported.
    expect(out.claims.map((c) => [c.label, c.text])).toEqual([
      ["supported", "Fact: Checkout takes card payments only."],
      ["contradicted", "Contradiction: Checkout also takes invoices."],
      ["unsupported", "Rumor: Most shoppers pay by phone."],
    ]);
    expect(out.findings.some((f) => f.check === "claim-contradicted" && f.level === "SHOULD")).toBe(true);

    // Reviewer findings: a found quote is anchored at its bytes; one not found at the section heading.
    const todo = out.findings.find((f) => f.check === "ai-review" && f.level === "SHOULD")!;
    expect([todo.anchor.start, todo.anchor.end]).toEqual(bytesOf("TODO decide the refund window."));
    const fixme = out.findings.find((f) => f.check === "ai-review" && f.level === "MUST")!;
    expect(fixme.unlocated).toBe(true);
    expect(fixme.anchor.quote).toBe("## Open points");
    expect([fixme.anchor.start, fixme.anchor.end]).toEqual(bytesOf("## Open points"));
    // Document order.
    const starts = out.findings.map((f) => f.anchor.start);
    expect([...starts].sort((a, b) => a - b)).toEqual(starts);
  });

  it("shows readers of a terse question the sections related to the statement it quotes", async () => {
    const text = [
      "---",
      "type: prd",
      "---",
      "# Payouts",
      "",
      "## Glossary",
      "",
      "A settlement batch is the set of captured charges paid out to one merchant account together.",
      "",
      "## Requirements",
      "",
      "- REQ-001 Each settlement batch is paid out by 06:00 in the merchant account's time zone.",
      "",
      "## Branding",
      "",
      "Emails use the brand colours from the design system.",
      "",
    ].join("\n");
    const client = scriptedClient();
    const role = { client, model: "m" };
    const out = await runReview(
      input({
        bundle: { files: [{ path: "payouts.md", text }], mainPath: "payouts.md", linked: [] },
        roles: { reviewer: role, reader: role, judge: role },
      }),
    );
    expect(out.questions.map((q) => q.text)).toEqual(["What exactly does REQ-001 require?"]);
    const readerPrompts = client.calls.filter((c) => c.schemaName === "reader_answer").map((c) => c.prompt);
    expect(readerPrompts).toHaveLength(3);
    for (const prompt of readerPrompts) {
      // The question names only the ID; the statement it quotes shares "settlement batch" with the glossary.
      expect(prompt).toContain("A settlement batch is the set of captured charges");
      expect(prompt).not.toContain("brand colours");
    }
  });

  it("caches every step: a second run asks nothing, and an edit re-asks only what it changed", async () => {
    const cache = memoryCache();
    const first = await runReview(input({ cache }));
    expect(first.usage.cached).toBe(0);
    const steps = first.usage.steps;
    const again = await runReview(input({ cache }));
    expect(again.usage).toMatchObject({ steps, cached: steps, requests: 0 });
    expect(again.questions).toEqual(first.questions);

    const edited = SPEC.replace("two decimals", "no decimals");
    const client = scriptedClient();
    const role = { client, model: "m" };
    const third = await runReview(
      input({ cache, roles: { reviewer: role, reader: role, judge: role } }, edited),
    );
    const asked = client.calls.map((c) => c.stage).sort();
    // The Requirements section: its questions, claims and findings; the readers of its three
    // questions (they read that section); the judge of REQ-001 only, whose answers changed.
    expect(asked).toEqual(["claims", "findings", "judge", "questions", ...Array<string>(9).fill("readers")]);
    expect(client.calls.find((c) => c.stage === "judge")!.prompt).toContain("no decimals");
    expect(third.usage.cached).toBe(third.usage.steps - asked.length);
  });

  it("never has more than `parallel` calls at once", async () => {
    const client = scriptedClient({ latencyMs: 5 });
    const role = { client, model: "m" };
    await runReview(input({ parallel: 2, roles: { reviewer: role, reader: role, judge: role } }));
    expect(client.maxInFlight).toBe(2);
  });

  it("retries a 429 after its Retry-After, and a 500 with backoff", async () => {
    const waits: number[] = [];
    const client = scriptedClient({
      intercept: (_c, n) => {
        if (n === 1) throw new ModelCallError("slow down", "rate_limited", 2000);
        if (n === 2) throw new ModelCallError("boom", "server");
        return undefined;
      },
    });
    const role = { client, model: "m" };
    const out = await runReview(
      input({
        parallel: 1,
        roles: { reviewer: role, reader: role, judge: role },
        sleep: (ms) => {
          waits.push(ms);
          return Promise.resolve();
        },
      }),
    );
    expect(out.status).toBe("done");
    expect(waits).toEqual([2000, 1000]);
    expect(out.usage.requests).toBe(out.usage.steps + 2);
  });

  it("asks again once with the error after an invalid answer; invalid twice loses only that item", async () => {
    // The first questions call answers broken JSON (whichever stage gets a slot first).
    let broken = false;
    const once = scriptedClient({
      intercept: (c) => (c.stage === "questions" && !broken ? ((broken = true), "{ not json") : undefined),
    });
    const r1 = { client: once, model: "m" };
    const ok = await runReview(input({ parallel: 1, roles: { reviewer: r1, reader: r1, judge: r1 } }));
    expect(ok.status).toBe("done");
    const asks = once.calls.filter((c) => c.stage === "questions");
    expect(asks[1]!.prompt).toContain("Your previous answer was not valid: not JSON");
    expect(ok.stages.find((s) => s.name === "questions")).toMatchObject({ retried: 1, lost: 0 });

    // The judge never answers JSON: every judged question is unjudged, the judge stage
    // produced nothing usable, so the run fails naming it; what finished is kept.
    const always = scriptedClient({
      intercept: (c) => (c.stage === "judge" ? "They agree, I think." : undefined),
    });
    const r2 = { client: always, model: "m" };
    const bad = await runReview(input({ roles: { reviewer: r2, reader: r2, judge: r2 } }));
    expect(bad.status).toBe("failed");
    expect(bad.error).toBeInstanceOf(ReviewError);
    expect(bad.error!.code).toBe("model_output_invalid");
    expect(bad.error!.stage).toBe("judge");
    expect(bad.error!.message).toMatch(
      /^judge: no answer of this stage was usable \(3 lost\); the first error: judge: the model's answer is not valid twice in a row; last answer not JSON/,
    );
    expect(bad.questions.filter((q) => q.result === "unjudged")).toHaveLength(3);
    expect(bad.stages.find((s) => s.name === "judge")).toMatchObject({ calls: 6, retried: 3, lost: 3 });
    expect(bad.claims.length).toBeGreaterThan(0);
  });

  it("fails a call the model refuses for good (auth) at once", async () => {
    const client = scriptedClient({
      intercept: () => {
        throw new ModelCallError("bad key", "auth");
      },
    });
    const role = { client, model: "m" };
    const out = await runReview(input({ parallel: 1, roles: { reviewer: role, reader: role, judge: role } }));
    expect(out.status).toBe("failed");
    expect(out.error!.code).toBe("model_call_failed");
    expect(client.calls).toHaveLength(1);
  });

  it("stops with budget_exceeded when a call would pass the budget, keeping what finished", async () => {
    let left = 2500;
    const out = await runReview(
      input({
        parallel: 1,
        budget: {
          remaining: () => Promise.resolve(left),
          record: (i, o) => {
            left -= i + o;
            return Promise.resolve();
          },
        },
      }),
    );
    expect(out.status).toBe("failed");
    expect(out.error!.code).toBe("budget_exceeded");
    expect(out.usage.steps).toBeGreaterThan(0);
    expect(left).toBeGreaterThanOrEqual(0);
  });
});

describe("estimateReview", () => {
  it("counts calls and tokens before a run, and cached steps after one", async () => {
    const cache = memoryCache();
    const models = { reviewer: "m", reader: "m", judge: "m" };
    const bundle = { files: [{ path: "spec.md", text: SPEC }], mainPath: "spec.md", linked: [] };
    const before = await estimateReview({ bundle, profile, models, cache });
    expect(before.cached_steps).toBe(0);
    expect(before.calls).toBeGreaterThan(0);
    expect(before.tokens_in).toBeGreaterThan(0);
    const out = await runReview(input({ cache }));
    const after = await estimateReview({ bundle, profile, models, cache });
    expect(after).toMatchObject({ calls: 0, cached_steps: out.usage.steps, tokens_in: 0 });
    const key = await stepKey("questions", "m", "s", "p", "n");
    expect(key).toMatch(/^[0-9a-f]{64}$/);
  });

  it("counts one reviewer call for each external target the doc links to", async () => {
    const cache = memoryCache();
    const models = { reviewer: "m", reader: "m", judge: "m" };
    const bundle = { files: [{ path: "spec.md", text: SPEC }], mainPath: "spec.md", linked: [] };
    const none = await estimateReview({ bundle, profile, models, cache });
    const urls = [
      "https://github.com/acme/shop/issues/812",
      "https://example.com/pricing",
      "https://example.com/pricing",
    ];
    const two = await estimateReview({ bundle, profile, models, cache, externalUrls: urls });
    expect(two.calls - none.calls).toBe(2);
    expect(two.byRole.reviewer.calls - none.byRole.reviewer.calls).toBe(2);
    expect(two.byRole.reader).toEqual(none.byRole.reader);
    // Each call sends at least the doc itself.
    expect(two.tokens_in - none.tokens_in).toBeGreaterThan(2 * (SPEC.length / 8));
  });

  it("estimates a first review from the doc's statements: a question per requirement, read by every reader, judged once", async () => {
    const cache = memoryCache();
    const models = { reviewer: "m", reader: "m", judge: "m" };
    const text = [
      "---",
      "type: prd",
      "---",
      "# Quotas",
      "",
      "Quotas keep one tenant from starving the others. They are counted per hour.",
      "",
      "## Limits",
      "",
      "- QUO-1 A tenant sends at most 600 requests a minute.",
      "- QUO-2 Past the limit the API answers 429 with a Retry-After header.",
      "- QUO-3 Limits are read from the plan at each request.",
      "",
    ].join("\n");
    expect(statementsOf("## Limits\n\n- QUO-1 A tenant sends at most 600 requests a minute.\n")).toEqual({
      statements: ["QUO-1 A tenant sends at most 600 requests a minute."],
      requirements: true,
    });
    const bundle = { files: [{ path: "quotas.md", text }], mainPath: "quotas.md", linked: [] };
    const est = await estimateReview({ bundle, profile, models, cache });
    // Two sections: 2 prose sentences and 3 requirements raise 5 questions; 3 readers each, one judge each.
    expect(est.byRole.reader.calls).toBe(5 * 3);
    expect(est.byRole.judge.calls).toBe(5);
    expect(est.byRole.reviewer.calls).toBe(2 * 3);
    // A reader's answer restates a statement with its quote: more than the statement, less than three times it.
    const perReader = est.byRole.reader.tokensOut / est.byRole.reader.calls;
    expect(perReader).toBeGreaterThan(50 / 4);
    expect(perReader).toBeLessThan((3 * 70) / 4);
  });

  it("estimates a new bundle from what the model's past answers cost, within 25% of what its run uses", async () => {
    const cache = memoryCache();
    const models = { reviewer: "m", reader: "m", judge: "m" };
    await runReview(input({ cache }));
    const other = [
      "---",
      "type: prd",
      "---",
      "# Exports",
      "",
      "## CSV export",
      "",
      "- EXP-1 An export holds at most 50,000 rows and is split into numbered parts beyond that.",
      "- EXP-2 Dates are written in ISO 8601 with the account's time zone offset.",
      "",
      "## Scheduling",
      "",
      "- EXP-3 A scheduled export runs at the hour the owner picked, in their time zone.",
      "- EXP-4 A failed export is retried twice, 10 minutes apart, then the owner is emailed.",
      "",
    ].join("\n");
    const bundle = { files: [{ path: "exports.md", text: other }], mainPath: "exports.md", linked: [] };
    const est = await estimateReview({ bundle, profile, models, cache });
    const out = await runReview(input({ cache, bundle }));
    const used = out.usage.tokensIn + out.usage.tokensOut;
    expect(Math.abs((est.tokens_in + est.tokens_out) / used - 1)).toBeLessThanOrEqual(0.25);
  });
});
