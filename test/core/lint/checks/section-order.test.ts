import { describe, expect, it } from "vitest";
import { FM, hits, runCheck } from "../run-check.js";

const order = { order: ["Problem", "Goals", "Requirements"] };
const cases: { name: string; doc: string; params: object; expected: [number, string][] }[] = [
  { name: "in order", doc: `${FM}## Problem\n\n## Goals\n\n## Requirements\n`, params: order, expected: [] },
  {
    name: "missing ones are skipped",
    doc: `${FM}## Problem\n\n## Requirements\n`,
    params: order,
    expected: [],
  },
  {
    name: "one out of order",
    doc: `${FM}## Goals\n\n## Problem\n\n## Requirements\n`,
    params: order,
    expected: [[5, "## Goals"]],
  },
  {
    name: "last one first",
    doc: `${FM}## Requirements\n\n## Problem\n\n## Goals\n`,
    params: order,
    expected: [[5, "## Requirements"]],
  },
];

describe("section-order", () => {
  it.each(cases)("$name", ({ doc, params, expected }) => {
    expect(hits(doc, runCheck("section-order", doc, params))).toEqual(expected);
  });
});
