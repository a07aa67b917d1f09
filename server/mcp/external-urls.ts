/**
 * The external targets of a spec doc: the http(s) URLs among the values of its frontmatter
 * link keys (contract 2.8: `implements`, `refines`, `references`, `supersedes`,
 * `implemented-by`; a value is one string or a list). Bundle slugs are not targets here.
 * (The trace view's `externalTargets` in core/trace replaces this at merge.)
 */

export const LINK_KEYS = ["implements", "refines", "references", "supersedes", "implemented-by"] as const;

function isHttpUrl(value: string): boolean {
  try {
    return ["http:", "https:"].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

/** The distinct external target URLs of a frontmatter mapping, in the order written. */
export function externalTargetUrls(frontmatter: Record<string, unknown>): string[] {
  const out = new Set<string>();
  for (const key of LINK_KEYS) {
    const value = frontmatter[key];
    const values: unknown[] = Array.isArray(value) ? value : [value];
    for (const v of values) if (typeof v === "string" && isHttpUrl(v.trim())) out.add(v.trim());
  }
  return [...out];
}
