/**
 * required-section: a section with a given role exists (by any of its names, at any
 * depth) and says something: a sentence, a list, a table or a code block.
 */
import { z } from "zod";
import type { MarkdownDoc } from "../../markdown/document.js";
import { docShape } from "../doc-shape.js";
import {
  blocksIn,
  docAnchorRange,
  escapeRegExp,
  headingRange,
  matchesHeadingPattern,
  parseHeadingPattern,
  patternLabel,
  readerWords,
  sectionContent,
  sectionHasContent,
  sectionsMatching,
  withoutPlaceholders,
} from "../helpers.js";
import { defineCheck } from "./define.js";
import type { CheckContext, Finding } from "../types.js";

export const options = z.strictObject({
  section: z
    .string()
    .min(1)
    .describe(
      'Heading pattern: names of the role joined by "|" (a name, a "prefix*" or a "/regex/"), levels by ">"',
    ),
  min_words: z
    .number()
    .int()
    .min(0)
    .default(2)
    .describe(
      "Words of prose that count as content (a sentence); a list, table or code block always counts. 0 only needs the heading",
    ),
  inline: z
    .array(z.string().min(1))
    .optional()
    .describe(
      'Labels that record the section inline: a paragraph or list item opening with "Label:" or "**Label:**" (MADR\'s "Chosen option:", "**Decision:**") with words after it counts as the section',
    ),
  freeform: z
    .boolean()
    .optional()
    .describe(
      "A doc that does not follow the template (fewer than two of the sections the profile's other required-section checks ask for) and writes at least 300 words or code under headings of its own has its design under its own names: reported at INFO, not at the check's level",
    ),
});

type Params = z.output<typeof options>;

/** A paragraph or list item opening with one of the labels and a colon, with words after it. */
function inlineLabelled(doc: MarkdownDoc, labels: readonly string[] | undefined): boolean {
  if (!labels || labels.length === 0) return false;
  const alt = labels.map((l) => escapeRegExp(l).replace(/\\? /g, "\\s+")).join("|");
  const re = new RegExp(
    `^(?:\\s*(?:[-*+]|\\d+[.)])\\s+)?\\s*(?:[*_]{1,2})?(?:${alt})(?:[*_]{1,2})?\\s*:(?:[*_]{1,2})?\\s*(\\S[\\s\\S]*)$`,
    "i",
  );
  for (const b of doc.blocks) {
    if (b.kind !== "paragraph") continue;
    const m = re.exec(b.text);
    if (m && readerWords(withoutPlaceholders(m[1]!)) >= 1) return true;
  }
  return false;
}

/**
 * Does the doc write its design under headings of its own? It follows no template (at
 * most one of its sections answers to a known role: the profile's other roles, or the
 * motivation, alternatives and apparatus around a design), and its other sections hold
 * at least 300 words, or code. A proposal whose design was deleted keeps its template's
 * other sections (an introduction, a motivation, alternatives) and stays reported.
 */
function freeformDesign(ctx: CheckContext<Params>): boolean {
  const { doc, profile, entry } = ctx;
  const roles = profile.checks
    .filter((c) => c !== entry && c.kind === "required-section")
    .map((c) => (c.params as { section?: unknown } | undefined)?.section)
    .filter((p): p is string => typeof p === "string");
  const known = [...roles, "@not-design"].map(parseHeadingPattern);
  let knownSections = 0;
  let words = 0;
  let code = false;
  for (const s of doc.sections) {
    if (s.level < 2) continue;
    if (known.some((p) => matchesHeadingPattern(s, p))) {
      if (++knownSections > 1) return false;
      continue;
    }
    // Inside a known role (a subsection of the alternatives) it is that role's.
    let inKnown = false;
    for (let q = s.parent; q > 0 && !inKnown; q = doc.sections[q]!.parent)
      inKnown = known.some((p) => matchesHeadingPattern(doc.sections[q]!, p));
    if (inKnown) continue;
    for (const b of blocksIn(doc, s, true)) {
      if (b.kind === "code" && b.text.trim() !== "") code = true;
      if (b.kind === "paragraph" || b.kind === "table") words += readerWords(withoutPlaceholders(b.text));
    }
  }
  return code || words >= 300;
}

/** A MUST about a doc that is no spec (a stub, an index, a process doc) or that names its design its own way: INFO, saying why. */
function lowered(ctx: CheckContext<Params>, f: Finding, missing: boolean): Finding {
  if (f.level === "INFO") return f;
  const shape = f.level === "MUST" ? docShape(ctx.doc, ctx.file, ctx.files) : undefined;
  if (shape) return { ...f, level: "INFO", message: `${f.message} (not required here: ${shape.why})` };
  if (missing && ctx.params.freeform && freeformDesign(ctx))
    return {
      ...f,
      level: "INFO",
      message: `${f.message} (the doc's own sections are taken for it: name one of them '${patternLabel(ctx.params.section)}' to make it plain)`,
    };
  return f;
}

export const requiredSection = defineCheck({
  kind: "required-section",
  description:
    "A section with this role exists, at any depth, and holds content: a sentence, a list, a table or code",
  options,
  defaultMessage: "Section '{section}' {detail}",
  check(ctx) {
    const { doc, params } = ctx;
    const found = sectionsMatching(doc, params.section);
    if (found.length === 0) {
      if (inlineLabelled(doc, params.inline)) return [];
      const [s, e] = docAnchorRange(doc);
      return [
        lowered(
          ctx,
          ctx.finding({
            charStart: s,
            charEnd: e,
            detail: "is missing",
            vars: { section: patternLabel(params.section) },
          }),
          true,
        ),
      ];
    }
    if (params.min_words === 0) return [];
    if (found.some((section) => sectionHasContent(doc, section, params.min_words))) return [];
    if (inlineLabelled(doc, params.inline)) return [];
    let best = 0;
    for (const section of found)
      best = Math.max(best, sectionContent(doc, section, params.min_words).rawWords);
    const [s, e] = headingRange(doc, found[0]!);
    return [
      lowered(
        ctx,
        ctx.finding({
          charStart: s,
          charEnd: e,
          detail:
            best === 0
              ? "is empty: write a sentence or a list"
              : `has ${best} word${best === 1 ? "" : "s"} and no content yet: write a sentence or a list`,
          vars: { section: found[0]!.title },
        }),
        false,
      ),
    ];
  },
});
