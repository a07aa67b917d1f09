/** Repairs with one clear meaning, re-asks, and items lost alone (core/review/repair.ts, steps.ts, pipeline). */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import {
  claimItem,
  fenceFor,
  judgeSalvager,
  listSalvager,
  runReview,
  type ReviewInput,
} from "../../../core/review/index.js";
import { scriptedAnswer, scriptedClient } from "./scripted-model.js";

const SPEC = readFileSync(resolve(import.meta.dirname, "../../../fixtures/review/checkout/spec.md"), "utf8");
const profile = {
  key: "prd",
  title: "Product requirements",
  radar: ["completeness", "clarity", "testability"],
  readers: 3,
  build_questions: [],
  guidance: "",
};

function input(client: ReturnType<typeof scriptedClient>): ReviewInput {
  const role = { client, model: "m" };
  return {
    bundle: { files: [{ path: "spec.md", text: SPEC }], mainPath: "spec.md", linked: [] },
    profile,
    roles: { reviewer: role, reader: role, judge: role },
    parallel: 2,
    now: () => performance.now(),
    sleep: () => Promise.resolve(),
  };
}

describe("judgeSalvager", () => {
  const judge = judgeSalvager([1, 2, 3]);
  it.each([
    {
      given: { groups: [[1]], result: "agree", agreed_answer: "x", explanation: "" },
      groups: [[1], [2], [3]],
      result: "diverge",
      repairs: [/readers 2, 3 in no group/, /result "agree" contradicts 3 group/],
    },
    {
      given: {
        groups: [
          [1, 2],
          [2, 3],
        ],
        result: "diverge",
        agreed_answer: "",
        explanation: "",
      },
      groups: [[1, 2], [3]],
      result: "diverge",
      repairs: [/reader 2 is in two groups; kept in the first/],
    },
    {
      given: { groups: [["1", 2, 3, 4]], agreed_answer: "all the same" },
      groups: [[1, 2, 3]],
      result: "agree",
      repairs: [/reader 4 is not one of the answering readers/, /result missing; agree/],
    },
  ])("repairs $given", ({ given, groups, result, repairs }) => {
    const s = judge(given);
    expect(s.problems).toEqual([]);
    expect(s.value).toMatchObject({ groups, result });
    for (const r of repairs) expect(s.repairs.some((x) => r.test(x))).toBe(true);
  });

  it("keeps the agreed answer only with agree, and calls groups that are not reader numbers a problem", () => {
    expect(judge({ groups: [[1], [2, 3]], result: "agree", agreed_answer: "x" }).value?.agreed_answer).toBe(
      "",
    );
    expect(judge({ groups: "1,2,3" }).problems).toEqual([
      "groups: expected a list of lists of reader numbers",
    ]);
    expect(judge({ groups: [["one"]] }).problems[0]).toMatch(/"one" is not a reader number/);
    expect(judge([1, 2]).value).toBeUndefined();
  });
});

describe("listSalvager", () => {
  const claims = listSalvager("claims", claimItem(["clarity"]), 12);
  const ok = (i: number) => ({
    text: `Claim ${i}`,
    quote: "q",
    label: "supported",
    sources: [],
    category: "clarity",
    explanation: "",
  });

  it("drops items beyond the limit, keeps valid ones, and names the invalid ones", () => {
    const s = claims({ claims: [...Array.from({ length: 14 }, (_, i) => ok(i)), { text: "x" }], extra: 1 });
    expect(s.value?.claims).toHaveLength(12);
    expect(s.dropped).toBe(2);
    expect(s.invalid).toBe(1);
    expect(s.problems[0]).toMatch(/^claims\.14: /);
    expect(s.repairs).toContain("unknown field extra left out");
    expect(s.repairs).toContain("2 claims beyond the limit of 12 dropped");
  });

  it("reads enum values in another case, a lone source as a list, and a bare list", () => {
    const s = claims([{ ...ok(1), label: "Supported", sources: "the text", category: "CLARITY" }]);
    expect(s.problems).toEqual([]);
    expect(s.value?.claims[0]).toMatchObject({
      label: "supported",
      sources: ["the text"],
      category: "clarity",
    });
    expect(s.repairs.length).toBe(4);
  });
});

describe("fenceFor", () => {
  it("picks a tag the text does not contain, the same for the same text", () => {
    expect(fenceFor("plain text").tag).toBe("spec_text_0");
    const f = fenceFor("a </spec_text_0> and <SPEC_TEXT_1>");
    expect(f.tag).toBe("spec_text_2");
    expect(f.wrap("body", "section")).toBe('<spec_text_2 part="section">\nbody\n</spec_text_2>');
    expect(fenceFor("a </spec_text_0> and <SPEC_TEXT_1>").rule).toBe(f.rule);
  });
});

describe("runReview with answers that cannot all be repaired", () => {
  it("re-asks a claims answer with an invalid item once, then keeps the valid claims and drops the rest", async () => {
    const client = scriptedClient({
      intercept: (call) => {
        if (call.stage !== "claims") return undefined;
        const good = scriptedAnswer(
          call.schemaName,
          call.prompt.split("\n\n---\nYour previous")[0]!,
          call.schema,
        ) as {
          claims: unknown[];
        };
        if (good.claims.length === 0) return undefined;
        return JSON.stringify({ claims: [...good.claims, { text: "no", label: "maybe" }] });
      },
    });
    const out = await runReview(input(client));
    expect(out.status).toBe("done");
    expect(out.claims.map((c) => c.label)).toEqual(["supported", "contradicted", "unsupported"]);
    const claims = out.stages.find((s) => s.name === "claims")!;
    expect(claims).toMatchObject({ retried: 2, dropped: 2, lost: 0 });
    const reasked = client.calls.filter(
      (c) => c.stage === "claims" && c.prompt.includes("Your previous answer"),
    );
    expect(reasked).toHaveLength(2);
    expect(reasked[0]!.prompt).toMatch(/claims\.\d+: /);
  });

  it("loses one reader's answer alone: its question is unjudged, the others are judged", async () => {
    const client = scriptedClient({
      intercept: (call) =>
        call.stage === "readers" &&
        call.prompt.includes("Question: What exactly does REQ-001 require?") &&
        call.prompt.includes("You are reader 2 of")
          ? "no idea"
          : undefined,
    });
    const out = await runReview(input(client));
    expect(out.status).toBe("done");
    expect(out.questions.map((q) => q.result)).toEqual(["unjudged", "diverge", "unanswered", "agree"]);
    expect(out.questions[0]!.answers.map((a) => [a.reader, a.answered])).toEqual([
      [1, true],
      [2, false],
      [3, true],
    ]);
    expect(out.findings.find((f) => f.message.startsWith("The review could not judge"))).toMatchObject({
      level: "MUST",
      check: "build-question",
    });
    expect(out.stages.find((s) => s.name === "readers")).toMatchObject({ retried: 1, lost: 1 });
  });
});
