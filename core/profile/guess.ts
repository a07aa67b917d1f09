/** Guess a doc's profile from its headings, and its size from its length. */
import { normalizeTitle, parseMarkdown, type MarkdownDoc } from "../markdown/document.js";
import { countWords } from "../markdown/text.js";
import type { Profile } from "./schema.js";

export interface ProfileGuess {
  key: string;
  /** Share of the profile's heading hints the doc matches, 0 to 1. */
  score: number;
  /** The hints that matched. */
  matched: string[];
}

/**
 * Rank profiles by how many of their `heading_hints` match a heading of the doc (a hint
 * matches a heading equal to it or containing it as words; "A|B" gives alternatives).
 * Best first; profiles matching nothing are left out. Ties keep the order of `profiles`.
 */
export function rankProfiles(markdown: string | MarkdownDoc, profiles: readonly Profile[]): ProfileGuess[] {
  const doc = typeof markdown === "string" ? parseMarkdown(markdown) : markdown;
  const titles = doc.sections.filter((s) => s.level > 0).map((s) => ` ${normalizeTitle(s.title)} `);
  const guesses: ProfileGuess[] = [];
  for (const p of profiles) {
    if (p.heading_hints.length === 0) continue;
    const matched = p.heading_hints.filter((hint) =>
      hint
        .split("|")
        .map((h) => normalizeTitle(h))
        .some((h) => h !== "" && titles.some((t) => t.includes(` ${h} `))),
    );
    if (matched.length > 0)
      guesses.push({ key: p.key, score: matched.length / p.heading_hints.length, matched });
  }
  return guesses
    .map((g, i) => ({ g, i }))
    .sort((a, b) => b.g.score - a.g.score || b.g.matched.length - a.g.matched.length || a.i - b.i)
    .map(({ g }) => g);
}

/** The best profile for a doc by its headings, or undefined when no hint matches. */
export function guessProfile(
  markdown: string | MarkdownDoc,
  profiles: readonly Profile[],
): ProfileGuess | undefined {
  return rankProfiles(markdown, profiles)[0];
}

/** Words of the doc's body (prose, tables and code), as sizes count them. */
export function bodyWords(doc: MarkdownDoc): number {
  let words = 0;
  for (const b of doc.blocks)
    if (b.kind === "paragraph" || b.kind === "table" || b.kind === "heading") words += countWords(b.text);
  return words;
}

/** The size for a doc that names none: the smallest size whose max_words holds it, else the default. */
export function guessSize(doc: MarkdownDoc, profile: Profile): string {
  const words = bodyWords(doc);
  const fitting = profile.sizes.values
    .filter((v) => v.max_words !== undefined && words <= v.max_words)
    .sort((a, b) => a.max_words! - b.max_words!);
  return fitting[0]?.key ?? profile.sizes.default;
}
