/**
 * The repository's own configuration for spec-review, `.spec-review/config.yaml` at the
 * repository root (docs/app.md):
 *
 * ```yaml
 * # Types of markdown files that name none in their frontmatter (path from the repo root).
 * types:
 *   docs/checkout/requirements.md: prd
 *   docs/adr/0007-outbox.md: adr
 * ```
 *
 * The scan of a repohost source reads `types` as if each file's frontmatter named it;
 * `POST /repohost/sources/{id}/mapping` writes the types accepted in the service into it
 * through a pull request. Other keys are kept as they are.
 */
import { isMap, parseDocument } from "yaml";

export const REPO_CONFIG_PATH = ".spec-review/config.yaml";

/** The `types` of a config file; a file that does not parse, or odd entries, count as none. */
export function configTypes(text: string | undefined): Record<string, string> {
  if (!text) return {};
  try {
    const doc = parseDocument(text);
    if (doc.errors.length > 0) return {};
    const types = (doc.toJS({ maxAliasCount: 100 }) as { types?: unknown } | null)?.types;
    if (!types || typeof types !== "object" || Array.isArray(types)) return {};
    return Object.fromEntries(
      Object.entries(types as Record<string, unknown>).filter(
        (e): e is [string, string] => typeof e[1] === "string" && e[1] !== "",
      ),
    );
  } catch {
    return {};
  }
}

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
