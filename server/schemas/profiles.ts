/**
 * Profiles (document types) and their versions, maintainers, diffs and
 * suggestion threads; adopting a profile for a doc; assumptions. The profile
 * record is "not shown" beyond its parts' names (2.17): see
 * docs/api-decisions.md, "profiles".
 */
import { z } from "@hono/zod-openapi";
import { AnchorSchema } from "./common.js";

export const ProfileVersionSchema = z
  .looseObject({
    number: z.int().min(1),
    created_by: z.string(),
    created_at: z.iso.datetime(),
    message: z.string(),
  })
  .openapi("ProfileVersion");

export const ProfileSummarySchema = z
  .looseObject({
    key: z.string().openapi({ example: "prd" }),
    title: z.string(),
    builtin: z.boolean(),
    current_version: ProfileVersionSchema,
    bundles: z.int().openapi({ description: "bundles whose docs name this key" }),
  })
  .openapi("ProfileSummary");

export const ProfileSchema = ProfileSummarySchema.extend({
  yaml: z.string().openapi({ description: "the profile's checks and settings, as YAML, as written" }),
  extends: z
    .string()
    .optional()
    .openapi({ description: "the profile it extends (`extends:` in its YAML), when it extends one" }),
  resolved_yaml: z.string().optional().openapi({
    description: "with `extends`: the profile the lint uses, the parent's fields merged in, as YAML",
  }),
  template: z.string().openapi({ description: "markdown a new bundle starts from" }),
  versions: z.array(ProfileVersionSchema).openapi({ description: "newest first" }),
  maintainers: z.array(z.string()),
}).openapi("Profile");

export const ProfileListSchema = z.object({ items: z.array(ProfileSummarySchema) }).openapi("ProfileList");

export const NewProfileBodySchema = z
  .object({
    key: z
      .string()
      .regex(/^[a-z][a-z0-9-]{0,63}$/)
      .openapi({ description: "the doc type; what `type:` names in frontmatter" }),
    yaml: z.string().min(1),
    template: z.string(),
    message: z.string().optional(),
  })
  .openapi("NewProfile");

export const SaveProfileBodySchema = z
  .object({
    yaml: z.string().min(1),
    template: z.string(),
    message: z.string().optional(),
    base_version: z.int().min(1).optional().openapi({
      description: "the profile version the change is based on; a newer one fails with `version_conflict`",
    }),
  })
  .openapi("SaveProfile");

export const MaintainersBodySchema = z
  .object({ maintainers: z.array(z.string()).openapi({ description: "ids of workspace members" }) })
  .openapi("ProfileMaintainers");

export const ProfileDiffQuery = z.object({
  from: z.coerce.number().int().min(1).openapi({ description: "older version number" }),
  to: z.coerce
    .number()
    .int()
    .min(1)
    .optional()
    .openapi({ description: "newer version number; default current" }),
});

export const ProfileDiffSchema = z
  .object({
    from: z.int(),
    to: z.int(),
    yaml: z.string().openapi({ description: "unified diff of the YAML" }),
    template: z.string().openapi({ description: "unified diff of the template" }),
  })
  .openapi("ProfileDiff");

export const RollbackBodySchema = z
  .object({
    version: z.int().min(1).openapi({ description: "the earlier version whose text the new one repeats" }),
  })
  .openapi("ProfileRollback");

export const NewProfileThreadBodySchema = z
  .object({
    target: z.enum(["check", "template", "limit"]),
    check_slug: z
      .string()
      .optional()
      .openapi({ description: "with `check`: the check the suggestion is about" }),
    title: z.string().min(1).max(200),
    body: z.string().min(1),
  })
  .openapi("NewProfileThread");

export const GuessProfileBodySchema = z
  .object({
    markdown: z.string().openapi({ description: "the doc's text" }),
    path: z.string().optional(),
  })
  .openapi("GuessProfileRequest");

export const ProfileGuessSchema = z
  .looseObject({
    profile_key: z.string().optional().openapi({ description: "absent when no profile fits" }),
    candidates: z
      .array(z.object({ profile_key: z.string(), score: z.number() }))
      .openapi({ description: "best first" }),
  })
  .openapi("ProfileGuess");

export const AdoptBodySchema = z
  .object({
    keys: z
      .array(z.enum(["type", "size"]))
      .optional()
      .openapi({ description: "which of `adopt`'s keys to write; default both" }),
  })
  .openapi("AdoptRequest");

export const ChangeProfileBodySchema = z
  .object({
    profile: z.string().min(1).openapi({ description: "profile key the main doc's `type` will name" }),
  })
  .openapi("ChangeProfile");

export const AssumptionsSchema = z
  .object({ items: z.array(z.object({ text: z.string(), anchor: AnchorSchema })) })
  .openapi("Assumptions", { description: "sentences of the current main doc that start with `Assumption:`" });

export const InferProfileBodySchema = z
  .object({
    key: z
      .string()
      .regex(/^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/)
      .max(64)
      .openapi({
        description: "the key of the learned profile: lowercase words joined by `-`",
        example: "team-proposal",
      }),
    source_id: z
      .uuid()
      .optional()
      .openapi({ description: "hosted mode: the repohost source whose docs to learn from" }),
    folder: z.string().max(1024).optional().openapi({
      description: "local mode: a folder of the served tree, relative to it (`.` for the whole tree)",
      example: "proposals",
    }),
    extends: z.string().min(1).optional().openapi({
      description:
        "a profile the learned one extends: it keeps that profile's checks and overrides what it learned",
    }),
    title: z.string().min(1).max(200).optional().openapi({ description: "the profile's title" }),
    save: z.boolean().optional().openapi({
      description:
        "create the profile: local mode also writes its files and maps the folder's docs in `.spec-review/config.yaml`; default false (only answered)",
    }),
  })
  .openapi("InferProfileRequest");

export const InferredProfileSchema = z
  .object({
    key: z.string(),
    profile_yaml: z.string().openapi({ description: "the learned profile.yaml" }),
    template: z.string().openapi({ description: "the learned template.md" }),
    elements: z
      .array(
        z.object({
          kind: z.enum(["section", "metadata", "id-pattern", "link-pattern", "design-section"]),
          name: z.string(),
          share: z
            .number()
            .min(0)
            .max(1)
            .openapi({ description: "share of the learned docs that have it, 0 to 1" }),
          detail: z.string().optional(),
        }),
      )
      .openapi({ description: "what was learned, each with the share of docs that have it" }),
    misfits: z
      .array(z.object({ path: z.string(), why: z.string() }))
      .openapi({ description: "docs that did not fit: not learned from, or failing the learned profile" }),
    types: z.record(z.string(), z.string()).openapi({
      description: "the `types:` entries (glob: key) of `.spec-review/config.yaml` that map the learned docs",
    }),
    docs_read: z.int().min(0).openapi({ description: "markdown files read" }),
    saved: z.boolean().openapi({ description: "true when the profile was created" }),
    written: z
      .array(z.string())
      .optional()
      .openapi({ description: "local mode, with `save`: the files written, relative to the served folder" }),
  })
  .openapi("InferredProfile");
