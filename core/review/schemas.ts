/**
 * The shape of every model answer, as zod schemas: the JSON Schema sent with the call
 * (`z.toJSONSchema`) and the validation of what comes back are the same definition.
 * Schemas that name categories are built per profile, so the radar keys are an enum.
 */
import { z } from "zod";
import type { JsonSchema } from "./model.js";

export const LEVELS = ["MUST", "SHOULD", "INFO"] as const;
const Level = z.enum(LEVELS);

function category(radarKeys: readonly string[]) {
  const [first, ...rest] = radarKeys;
  return first === undefined
    ? z.string().min(1)
    : z.enum([first, ...rest]).describe("the radar category of the profile this is about");
}

/** The most items one answer may list; more are dropped (a recorded repair). */
export const MAX_ITEMS = 12;

/** Stage 2: one build question. */
export function questionItem(radarKeys: readonly string[]) {
  return z.strictObject({
    text: z.string().min(5).describe("the question a builder must answer to build from this doc"),
    level: Level.describe("MUST: builders cannot build without the answer; SHOULD: they would guess"),
    category: category(radarKeys),
    quote: z.string().describe("verbatim text of the section the question comes from"),
    trace_ids: z.array(z.string()).describe("trace IDs (e.g. REQ-001) the question is about"),
  });
}

/** Stage 2: the build questions one section raises. */
export function questionsAnswer(radarKeys: readonly string[]) {
  return z.strictObject({ questions: z.array(questionItem(radarKeys)).max(MAX_ITEMS) });
}

/** Stage 3: one reader's answer to one question. */
export const readerAnswer = z.strictObject({
  not_specified: z.boolean().describe("true when the text does not say; then answer is NOT SPECIFIED"),
  answer: z.string().describe("the answer as the text states it, or NOT SPECIFIED"),
  quotes: z.array(z.string()).describe("verbatim quotes of the text that give the answer"),
});

/** Stage 4: the judge's grouping of the answers that count (readers with a found quote). */
export function judgeAnswer(answered: readonly number[]) {
  const allowed = new Set(answered);
  return z
    .strictObject({
      groups: z
        .array(z.array(z.int()).min(1))
        .min(1)
        .describe("reader numbers grouped by the meaning of their answers; every answering reader once"),
      result: z
        .enum(["agree", "diverge"])
        .describe("agree: one group (same meaning); diverge: more than one group"),
      agreed_answer: z.string().describe("with agree: the answer in one sentence; else empty"),
      explanation: z.string().describe("how the groups differ, in one or two sentences"),
    })
    .superRefine((v, ctx) => {
      const seen = new Set<number>();
      for (const g of v.groups)
        for (const r of g) {
          if (!allowed.has(r))
            ctx.addIssue({
              code: "custom",
              path: ["groups"],
              message: `reader ${r} is not one of the answering readers ${[...allowed].join(", ")}`,
            });
          if (seen.has(r))
            ctx.addIssue({ code: "custom", path: ["groups"], message: `reader ${r} is in two groups` });
          seen.add(r);
        }
      const missing = [...allowed].filter((r) => !seen.has(r));
      if (missing.length > 0)
        ctx.addIssue({
          code: "custom",
          path: ["groups"],
          message: `readers ${missing.join(", ")} are in no group`,
        });
      const expected = v.groups.length === 1 ? "agree" : "diverge";
      if (v.result !== expected)
        ctx.addIssue({
          code: "custom",
          path: ["result"],
          message: `result must be ${expected} with ${v.groups.length} group(s)`,
        });
    });
}

export const CLAIM_LABELS = ["supported", "unsupported", "contradicted", "assumption"] as const;

/** Stage 5: one factual claim, labelled. */
export function claimItem(radarKeys: readonly string[]) {
  return z.strictObject({
    text: z.string().min(3).describe("the claim in one sentence"),
    quote: z.string().describe("verbatim text of the section that makes the claim"),
    label: z
      .enum(CLAIM_LABELS)
      .describe(
        "supported: other text backs it (quote it); contradicted: other text says otherwise (quote it); " +
          "unsupported: nothing backs it; assumption: the doc states it as an assumption",
      ),
    sources: z.array(z.string()).describe("verbatim quotes of the text that support or contradict it"),
    category: category(radarKeys),
    explanation: z.string(),
  });
}

/** Stage 5: factual claims of one section, labelled. */
export function claimsAnswer(radarKeys: readonly string[]) {
  return z.strictObject({ claims: z.array(claimItem(radarKeys)).max(MAX_ITEMS) });
}

/** Stage 6: one finding of the reviewer. */
export function findingItem(radarKeys: readonly string[]) {
  return z.strictObject({
    level: Level.describe("MUST blocks building; SHOULD would cost rework; INFO is a suggestion"),
    category: category(radarKeys),
    message: z.string().min(5).describe("what is wrong and what to do, in one or two sentences"),
    quote: z.string().describe("verbatim text of the section the finding is about"),
  });
}

/** Stage 6: the reviewer's findings on one section. */
export function findingsAnswer(radarKeys: readonly string[]) {
  return z.strictObject({ findings: z.array(findingItem(radarKeys)).max(MAX_ITEMS) });
}

/** A fix: text to replace in the file, and its replacement. */
export const fixAnswer = z.strictObject({
  find: z.string().min(1).describe("verbatim text of the doc to replace (unique, from the quoted section)"),
  replace: z.string().describe("the new text"),
  explanation: z.string(),
});

/** What changed in meaning between two versions. */
export const diffSummaryAnswer = z.strictObject({
  summary: z.string().describe("what changed in meaning, in short markdown bullets"),
});

export function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  return z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io: "input",
    unrepresentable: "any",
  });
}
