/**
 * Lint findings for frontmatter links to bundles that do not resolve (a slug that names no
 * bundle, or the doc itself): SHOULD findings of the profile's `links-resolve` check. Only
 * whoever knows every bundle can tell: the server's lint runs, and `spec-review lint` for
 * the bundles under each folder it is given. Profiles without that check get none.
 */
import { anchorAt } from "../anchor/anchor.js";
import { stableId } from "../lint/ids.js";
import { parseMarkdown } from "../markdown/document.js";
import type { Profile } from "../profile/schema.js";
import type { Finding } from "../lint/types.js";
import type { LinkKind } from "./links.js";

/** A frontmatter link to a bundle that does not resolve. */
export interface BrokenLink {
  kind: LinkKind;
  target: string;
  /** The slug is the linking doc's own bundle. */
  self: boolean;
}

export function linkFindings(
  text: string,
  file: string,
  profile: Profile | undefined,
  broken: readonly BrokenLink[],
): (Finding & { stage: string })[] {
  const entry = profile?.checks.find((c) => c.kind === "links-resolve");
  if (!entry || broken.length === 0) return [];
  const doc = parseMarkdown(text);
  const fmEnd = doc.bodyCharStart;
  return broken.map((b, n) => {
    // The target as written in the frontmatter, after its key when the key is on a line
    // of its own (`supersedes: a/b`), else the frontmatter's first line.
    const fmStart = Math.max(0, doc.frontmatterCharStart);
    const key = new RegExp(`^${b.kind}[ \\t]*:`, "m").exec(text.slice(fmStart, fmEnd));
    let at = text.indexOf(b.target, fmStart + (key?.index ?? 0));
    if (at < 0 || at >= fmEnd) at = Math.max(0, doc.frontmatterCharStart);
    const end = at + (text.startsWith(b.target, at) ? b.target.length : 0) || Math.min(fmEnd, at + 3);
    const message = b.self
      ? `Link \`${b.kind}: ${b.target}\` names this doc's own bundle`
      : `Link \`${b.kind}: ${b.target}\` names no bundle`;
    return {
      id: stableId([file, entry.slug, "frontmatter-link", b.kind, b.target, String(n)]),
      check: entry.slug,
      level: "SHOULD",
      category: entry.category,
      message,
      anchor: anchorAt(doc, file, at, end),
      stage: "lint",
      relaxed: false,
    };
  });
}
