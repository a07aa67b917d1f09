/**
 * Lint findings for frontmatter links to bundles that do not resolve (a slug that names no
 * bundle, or the doc itself): SHOULD findings of the profile's `links-resolve` check, added
 * to the lint run by the server (only it knows the bundles). Profiles without that check
 * get none.
 */
import { anchorAt } from "../../core/anchor/anchor.js";
import { stableId } from "../../core/lint/ids.js";
import { parseMarkdown } from "../../core/markdown/document.js";
import type { Profile } from "../../core/profile/schema.js";
import type { Finding } from "../../core/lint/types.js";
import type { BrokenLink } from "./upstream.js";

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
    // The target as written in the frontmatter, else the frontmatter's first line.
    let at = text.indexOf(b.target, Math.max(0, doc.frontmatterCharStart));
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
