/**
 * The repository's own configuration for spec-review, `.spec-review/config.yaml` at the
 * repository root (docs/app.md):
 *
 * ```yaml
 * # Types of markdown files that name none in their frontmatter (path or glob from the repo root).
 * types:
 *   docs/checkout/requirements.md: prd
 *   "docs/adr/*.md": adr
 * ```
 *
 * The scan of a repohost source reads `types` (core/bundle/types-map.ts: an exact path wins
 * over a glob, a longer glob over a shorter one) as if each file's frontmatter named it;
 * `POST /repohost/sources/{id}/mapping` writes the types accepted in the service into it
 * through a pull request. Other keys are kept as they are.
 */
import { isMap, parseDocument } from "yaml";
import { REPO_CONFIG_PATH } from "../../core/bundle/types-map.js";

// One reading of `types` (paths and globs) for lint, serve, the Action and the App.
export { configTypes, REPO_CONFIG_PATH, typesMap } from "../../core/bundle/types-map.js";

/** The config text with these types added (comments, other keys and other types kept). */
export function withTypes(text: string | undefined, types: Record<string, string>): string {
  const doc = parseDocument(text ?? "");
  if (doc.errors.length > 0 || (doc.contents !== null && !isMap(doc.contents)))
    throw new Error(`${REPO_CONFIG_PATH} is not a YAML mapping: fix it first`);
  if (!text || doc.contents === null)
    doc.commentBefore =
      " spec-review: types of markdown files that name none in their frontmatter (docs/app.md)";
  for (const [path, type] of Object.entries(types).sort(([a], [b]) => (a < b ? -1 : 1)))
    doc.setIn(["types", path], type);
  return doc.toString({ lineWidth: 0 });
}
