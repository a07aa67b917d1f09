/**
 * Where a frontmatter's YAML error really is. `parseFrontmatter` reports errors at the
 * block's first line (it parses without line positions); this finds the line and column
 * of the first error in the whole file. Only called when there is an error.
 */
import { LineCounter, parseDocument } from "yaml";
import type { Frontmatter, FrontmatterError } from "./frontmatter.js";
import type { TextIndex } from "./text.js";

/** The first YAML error of the frontmatter with its 1-based line and column in the file. */
export function locateFrontmatterError(
  fm: Frontmatter,
  rawCharStart: number,
  index: TextIndex,
): FrontmatterError | undefined {
  if (!fm.error) return undefined;
  const lineCounter = new LineCounter();
  const doc = parseDocument(fm.raw, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const err = doc.errors[0];
  if (!err) return fm.error;
  const pos = lineCounter.linePos(err.pos[0]);
  const firstLine = index.lineOfChar(rawCharStart) + 1;
  return { message: fm.error.message, line: pos.line + firstLine - 1, column: pos.col };
}
