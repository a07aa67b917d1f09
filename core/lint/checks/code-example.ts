/** code-example: a section holds fenced code examples (requests, responses, schemas). */
import { z } from "zod";
import { blocksIn, docAnchorRange, headingRange, sectionsMatching } from "../helpers.js";
import { defineCheck } from "./define.js";

export const options = z.strictObject({
  section: z
    .string()
    .min(1)
    .optional()
    .describe("Heading pattern of the section to look in; absent: the whole doc"),
  min: z.number().int().min(1).default(1).describe("Fenced code blocks needed"),
  languages: z
    .array(z.string().min(1))
    .default([])
    .describe("Info strings that count (json, http, yaml...); empty: any fence"),
});

export const codeExample = defineCheck({
  kind: "code-example",
  description: "A section holds at least min fenced code examples, optionally in given languages",
  options,
  defaultMessage: "{detail}",
  check(ctx) {
    const { doc, params } = ctx;
    const sections = params.section ? sectionsMatching(doc, params.section) : [doc.sections[0]!];
    // A missing section is required-section's finding, not this one's.
    if (sections.length === 0) return [];
    const langs = params.languages.map((l) => l.toLowerCase());
    let count = 0;
    for (const section of sections)
      for (const b of blocksIn(doc, section)) {
        if (b.kind !== "code" || b.info === undefined || b.info === "") continue;
        const lang = b.info.split(/\s+/)[0]!.toLowerCase();
        if (langs.length === 0 || langs.includes(lang)) count++;
      }
    if (count >= params.min) return [];
    const [s, e] = params.section ? headingRange(doc, sections[0]!) : docAnchorRange(doc);
    const kinds = langs.length > 0 ? ` (${langs.join(", ")})` : "";
    return [
      ctx.finding({
        charStart: s,
        charEnd: e,
        detail: `${params.section ? `Section '${sections[0]!.title}'` : "The doc"} has ${count} code example${count === 1 ? "" : "s"}${kinds}; it needs ${params.min}`,
        vars: { count: String(count) },
      }),
    ];
  },
});
