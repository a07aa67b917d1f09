/** POST /bundles: a new bundle folder from a profile's template (docs/import.md). */
import { createRoute, z } from "@hono/zod-openapi";
import { setFrontmatterKeys } from "../../../core/markdown/frontmatter.js";
import type { Profile } from "../../../core/profile/index.js";
import { deps, errorResponses, jsonBody, jsonResponse, type Router } from "../../http.js";
import { ApiError } from "../../errors.js";
import { SpecDocSchema } from "../../schemas/common.js";
import { baseName } from "../../../core/bundle/discover.js";
import { checkBundleName } from "../../store/import.js";
import { docView } from "../../views.js";
import { caller } from "../../auth/actor.js";
import { recordCreated } from "../../auth/share-links.js";

export const CreateBundleBody = z
  .object({
    profile: z.string().min(1).openapi({ description: "profile key (doc type) whose template is written" }),
    name: z.string().min(1).max(1024).openapi({
      description: "folder of the new bundle under the served folder: one name, or nested as `team/feature`",
    }),
    title: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .openapi({ description: "written as the frontmatter `title` and the first `# heading`" }),
  })
  .openapi("CreateBundle");

/**
 * The template of `profile` as a new doc: `type` names the profile; with a title, the
 * frontmatter `title` and the first level-1 heading carry it.
 */
export function docFromTemplate(profile: Profile, title?: string): string {
  let text = profile.templateText ?? `---\ntype: ${profile.key}\n---\n\n# ${title ?? profile.title}\n`;
  const keys: Record<string, string> = { type: profile.key };
  if (title !== undefined) keys["title"] = title;
  text = setFrontmatterKeys(text, keys);
  if (title !== undefined) {
    const flat = title.replace(/[\r\n]+/g, " ").trim();
    text = /^# .*$/m.test(text)
      ? text.replace(/^# .*$/m, () => `# ${flat}`)
      : `${text.trimEnd()}\n\n# ${flat}\n`;
  }
  return text;
}

export const createBundle = createRoute({
  method: "post",
  path: "/bundles",
  summary: "create a bundle from a profile's template",
  tags: ["bundles"],
  request: { body: jsonBody(CreateBundleBody) },
  responses: {
    201: jsonResponse(SpecDocSchema, "The new bundle's spec doc"),
    ...errorResponses,
  },
});

export function registerCreateBundle(r: Router): void {
  r.openapi(createBundle, async (c) => {
    const { store, profiles, runs } = deps(c);
    const body = c.req.valid("json");
    const name = checkBundleName(body.name);
    const profile = profiles.get(body.profile);
    if (!profile)
      throw new ApiError(
        "unknown_profile",
        `no profile ${JSON.stringify(body.profile)}; GET /profiles lists them`,
      );
    const file = `${baseName(name)}.md`;
    const [id] = await store.addFolder(
      name,
      new Map([[file, new TextEncoder().encode(docFromTemplate(profile, body.title))]]),
      { author: caller(c).id },
    );
    if (id === undefined) throw new Error(`the new bundle ${name} was not found by the scan`);
    await recordCreated(deps(c), [id], caller(c));
    const row = await store.bundle(id);
    await runs.settled(row.doc.id);
    return c.json(docView(row, (await runs.latestRuns([row.doc.id])).get(row.doc.id)), 201);
  });
}
