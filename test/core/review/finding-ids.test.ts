/**
 * An AI finding's id is what it is and where (check, file, section, anchored text), never the
 * model's wording: a re-review that words the same problem differently gives the same id, so
 * a waiver of it survives (docs/waivers.md).
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { runReview, type ReviewInput } from "../../../core/review/index.js";
import type { ModelClient } from "../../../core/review/model.js";
import { scriptedClient } from "./scripted-model.js";

const SPEC = readFileSync(resolve(import.meta.dirname, "../../../fixtures/review/checkout/spec.md"), "utf8");

/** The scripted model, its findings' messages reworded. */
function rewording(client: ModelClient): ModelClient {
  return {
    async call(call) {
      const answer = await client.call(call);
      try {
        const value = JSON.parse(answer.text) as { findings?: Array<{ message: string }> };
        if (!Array.isArray(value.findings)) return answer;
        for (const f of value.findings) f.message = `Put differently: ${f.message}`;
        return { ...answer, text: JSON.stringify(value) };
      } catch {
        return answer;
      }
    },
  };
}

async function review(client: ModelClient, text = SPEC) {
  const role = { client, model: "m" };
  const input: ReviewInput = {
    bundle: { files: [{ path: "spec.md", text }], mainPath: "spec.md", linked: [] },
    profile: { key: "prd", title: "PRD", radar: ["clarity"], readers: 3, build_questions: [], guidance: "" },
    roles: { reviewer: role, reader: role, judge: role },
    parallel: 4,
    now: () => performance.now(),
    sleep: () => Promise.resolve(),
  };
  return (await runReview(input)).findings;
}

describe("AI finding ids", () => {
  it("do not depend on the model's wording", async () => {
    const first = await review(scriptedClient());
    const again = await review(rewording(scriptedClient()));
    expect(first.length).toBeGreaterThan(0);
    expect(again.map((f) => f.message)).not.toEqual(first.map((f) => f.message));
    expect(again.map((f) => f.id)).toEqual(first.map((f) => f.id));
  });

  it("are the same for a CRLF checkout of the doc (git autocrlf)", async () => {
    const lf = SPEC.replace(/\r\n/g, "\n");
    const first = await review(scriptedClient(), lf);
    const crlf = await review(scriptedClient(), lf.replace(/\n/g, "\r\n"));
    expect(first.length).toBeGreaterThan(0);
    expect(crlf.map((f) => [f.check, f.id])).toEqual(first.map((f) => [f.check, f.id]));
  });
});
