/**
 * One verdict type: core/verdict's `Verdict` is what runs store, what the API answers
 * (VerdictSchema is its wire form) and what the HTML report reads. This keeps the schema
 * and the type in step, at compile time (tsc checks tests) and at run time.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import type { z } from "@hono/zod-openapi";
import { computeVerdict, staleVerdict, type Verdict } from "../../core/verdict/index.js";
import { VerdictSchema, type Verdict as ApiVerdict } from "../../server/schemas/common.js";
import type { ReportVerdict } from "../../core/report/html.js";

describe("the Verdict type", () => {
  it("is one type: the API's is core's, the schema names the same fields, the report takes it", () => {
    expectTypeOf<ApiVerdict>().toEqualTypeOf<Verdict>();
    expectTypeOf<keyof z.infer<typeof VerdictSchema>>().toEqualTypeOf<keyof Verdict>();
    expectTypeOf<Verdict>().toExtend<z.infer<typeof VerdictSchema>>();
    expectTypeOf<Verdict>().toExtend<ReportVerdict>();
  });

  it("validates every verdict a run computes, fresh or stale, against the API schema", () => {
    const fresh = computeVerdict({
      findings: [
        { id: "f1", level: "MUST", category: "clarity", relaxed: false },
        { id: "f2", level: "SHOULD", category: "scope", relaxed: true },
      ],
      waived: ["f2"],
      kind: "full",
      runId: "6f1c1f5e-4a59-4c4e-9d0b-2f6f6d1c1a01",
      versionNumber: 3,
      radarCategories: ["clarity", "scope", "testability"],
      aiRunId: "6f1c1f5e-4a59-4c4e-9d0b-2f6f6d1c1a01",
    });
    const stale: Verdict = {
      ...staleVerdict(fresh),
      stale_reason: "upstream_changed",
      stale_upstream: [
        {
          id: "0b6f2d8e-8a55-4a43-9e0e-5b8d1b7e6c11",
          bundle_id: "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f",
          slug: "prd-checkout",
          title: "Checkout PRD",
          profile_key: "prd",
        },
      ],
    };
    for (const v of [fresh, stale]) expect(VerdictSchema.parse(v)).toEqual(v);
    expect(Object.keys(VerdictSchema.shape).sort()).toEqual(
      expect.arrayContaining(Object.keys(stale).sort()),
    );
  });
});
