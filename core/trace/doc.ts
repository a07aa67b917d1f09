/** One doc's part of the trace: its links (cheap: the frontmatter only) and its IDs (a full parse). */
import { parseMarkdown, type MarkdownDoc } from "../markdown/document.js";
import { parseFrontmatter } from "../markdown/frontmatter.js";
import type { Profile } from "../profile/schema.js";
import {
  definedIds,
  idScheme,
  idUse,
  suggestIds,
  type DefinedId,
  type IdSuggestion,
  type IdUse,
} from "./ids.js";
import { frontmatterLinks, type LinkProblem, type WrittenLink } from "./links.js";

export interface DocLinks {
  links: WrittenLink[];
  problems: LinkProblem[];
}

/** The links a main doc's frontmatter writes (invalid frontmatter: none). */
export function docLinks(text: string): DocLinks {
  const fm = parseFrontmatter(text);
  if (fm.error || !fm.present) return { links: [], problems: [] };
  return frontmatterLinks(fm.data);
}

export interface DocDetail {
  ids: DefinedId[];
  use: IdUse;
  suggestions: IdSuggestion[];
  /** Heading paths of the doc's sections, in order. */
  sections: string[][];
}

/** IDs, their use and suggested IDs of a doc (no profile: nothing defined, nothing suggested). */
export function docDetail(text: string | MarkdownDoc, file: string, profile: Profile | undefined): DocDetail {
  const doc = typeof text === "string" ? parseMarkdown(text) : text;
  const scheme = profile ? idScheme(profile) : undefined;
  return {
    ids: scheme ? definedIds(doc, file, scheme) : [],
    use: idUse(doc),
    suggestions: scheme ? suggestIds(doc, file, scheme) : [],
    sections: doc.sections.slice(1).map((s) => s.heading_path),
  };
}
