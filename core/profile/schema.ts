/**
 * The profile format: one zod schema, the single source of validation, of the
 * TypeScript types and of `schemas/profile.schema.json` (scripts/generate-profile-schema.ts).
 * Documented in docs/profiles.md.
 */
import { z } from "zod";
import { CHECK_KINDS } from "../lint/checks/index.js";

const slug = z
  .string()
  .regex(/^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/, "lowercase words joined by '-', e.g. 'problem-statement'");

export const LevelSchema = z
  .enum(["MUST", "SHOULD", "INFO"])
  .describe("MUST blocks Build Ready; SHOULD and INFO do not");

const checkBase = {
  slug: slug.describe("Unique id of the check in this profile; findings carry it"),
  level: LevelSchema,
  category: z.string().min(1).describe("The radar category the check counts toward: a key of `radar`"),
  message: z
    .string()
    .min(1)
    .optional()
    .describe(
      "What the finding says; `{detail}` and the kind's placeholders are filled in. Defaults to the kind's message",
    ),
  relaxed: z
    .boolean()
    .default(false)
    .describe("In adoption mode (the doc names no type or size) report one level lower"),
  description: z.string().optional().describe("Why the check exists, for people reading the profile"),
};

function checkVariant<K extends string, S extends z.ZodType>(kind: K, description: string, options: S) {
  return z
    .strictObject({
      ...checkBase,
      kind: z.literal(kind).describe(description),
      params: options.prefault({} as z.input<S>).describe(`Parameters of ${kind}`),
    })
    .describe(`${kind}: ${description}`);
}

const variants = CHECK_KINDS.map((k) => checkVariant(k.kind, k.description, k.options));

export const ProfileCheckSchema = z.discriminatedUnion(
  "kind",
  variants as unknown as [(typeof variants)[number], ...(typeof variants)[number][]],
);

export const SizeSchema = z.strictObject({
  key: slug.describe("A value of the `size` frontmatter key"),
  title: z.string().optional(),
  description: z.string().optional(),
  max_words: z
    .number()
    .int()
    .positive()
    .optional()
    .describe(
      "When guessing a size for a doc that names none: the smallest size whose max_words holds the doc",
    ),
  skip: z.array(slug).default([]).describe("Slugs of the checks that do not apply at this size"),
});

export const RadarCategorySchema = z.strictObject({
  key: slug,
  title: z.string().min(1),
  description: z.string().optional(),
});

export const ProfileSchema = z
  .strictObject({
    $schema: z.string().optional().describe("Path or URL of profile.schema.json, for editors"),
    key: slug.describe("The profile key: the `type` a spec doc's frontmatter names; equals the folder name"),
    extends: slug
      .optional()
      .describe(
        "Key of the profile this one extends (a built-in): its fields, replaced by the ones given here; checks merged by slug",
      ),
    title: z.string().min(1),
    description: z.string().default(""),
    template: z.string().default("template.md").describe("File of the template, next to profile.yaml"),
    upstream: slug
      .optional()
      .describe(
        "Profile key of the document type this one derives from (link suggestions: a design links to a prd)",
      ),
    heading_hints: z
      .array(z.string().min(1))
      .default([])
      .describe("Headings typical of this type; used to guess the profile of a doc that names none"),
    radar: z
      .array(RadarCategorySchema)
      .min(1)
      .describe("Radar categories: every check counts toward one; the verdict scores each"),
    verify_prefixes: z
      .array(z.string().regex(/^[A-Z][A-Z0-9]*$/, "uppercase letters and digits, e.g. REQ"))
      .default([])
      .describe("Trace ID prefixes (REQ for REQ-001) that the verification gate checks"),
    waivers: z
      .strictObject({
        approvals: z.number().int().min(0).max(10).default(1).describe("Approvals a waiver needs"),
        allow_must: z.boolean().default(true).describe("Whether MUST findings can be waived at all"),
        approvers: z
          .enum(["members", "maintainers", "admins"])
          .default("members")
          .describe(
            "Who may approve a waiver: any member, the profile's maintainers (and admins), or admins only; never its requester",
          ),
      })
      .default({ approvals: 1, allow_must: true, approvers: "members" })
      .describe("Waiver policy"),
    review: z
      .strictObject({
        readers: z.number().int().min(1).max(12).default(3).describe("How many AI readers review the doc"),
        build_questions: z
          .array(z.string().min(1))
          .default([])
          .describe("Guidance: questions a builder must be able to answer from the doc"),
        guidance: z.string().default("").describe("Extra guidance for the AI review"),
      })
      .default({ readers: 3, build_questions: [], guidance: "" })
      .describe("Settings of the full (AI) review"),
    sizes: z
      .strictObject({
        default: slug.describe("The size used when the doc names none and no max_words fits"),
        values: z.array(SizeSchema).min(1),
      })
      .default({ default: "standard", values: [{ key: "standard", skip: [] }] })
      .describe("Values of the `size` frontmatter key and the checks each skips"),
    checks: z.array(ProfileCheckSchema).describe("The lint checks, run in this order"),
  })
  .superRefine((p, ctx) => {
    const radar = new Set(p.radar.map((r) => r.key));
    const slugs = new Set<string>();
    p.checks.forEach((c, i) => {
      if (slugs.has(c.slug))
        ctx.addIssue({
          code: "custom",
          path: ["checks", i, "slug"],
          message: `duplicate check slug '${c.slug}'`,
        });
      slugs.add(c.slug);
      if (!radar.has(c.category))
        ctx.addIssue({
          code: "custom",
          path: ["checks", i, "category"],
          message: `category '${c.category}' is not a radar key (${[...radar].join(", ")})`,
        });
    });
    {
      const keys = p.sizes.values.map((v) => v.key);
      if (!keys.includes(p.sizes.default))
        ctx.addIssue({
          code: "custom",
          path: ["sizes", "default"],
          message: `default size '${p.sizes.default}' is not one of ${keys.join(", ")}`,
        });
      p.sizes.values.forEach((v, i) => {
        if (keys.indexOf(v.key) !== i)
          ctx.addIssue({
            code: "custom",
            path: ["sizes", "values", i, "key"],
            message: `duplicate size '${v.key}'`,
          });
        v.skip.forEach((s, j) => {
          if (!slugs.has(s))
            ctx.addIssue({
              code: "custom",
              path: ["sizes", "values", i, "skip", j],
              message: `no check with slug '${s}'`,
            });
        });
      });
    }
  });

export type Profile = z.output<typeof ProfileSchema> & {
  /** The template's markdown, when loaded. */
  templateText?: string;
};
export type ProfileInput = z.input<typeof ProfileSchema>;
export type ProfileCheck = z.output<typeof ProfileCheckSchema>;
export type ProfileSize = z.output<typeof SizeSchema>;
