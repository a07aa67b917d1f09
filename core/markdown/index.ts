/**
 * Markdown document model. `parseMarkdown(text).sections` gives each section's
 * `heading_path` and UTF-8 byte `start`/`end`; `sectionTexts(doc)` the own text of each
 * section, keyed, for a diff by section. See document.ts for the offsets' rules.
 */
export {
  parseMarkdown,
  sectionTexts,
  sectionAtChar,
  headingSlug,
  normalizeTitle,
  type MarkdownDoc,
  type Section,
  type SectionText,
  type Block,
  type BlockKind,
  type MarkdownLink,
} from "./document.js";
export { TextIndex, byteOffsetOf, lineColOfByte, utf8Length, countWords, type LineCol } from "./text.js";
