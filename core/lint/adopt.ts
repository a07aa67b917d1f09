/** Write the values a review guessed (the `adopt` object) into a doc's frontmatter. */
import { parseFrontmatter, setFrontmatterKeys } from "../markdown/frontmatter.js";
import type { Adopt } from "./engine.js";

export class FrontmatterInvalidError extends Error {
  readonly code = "frontmatter_invalid";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "FrontmatterInvalidError";
  }
}

/**
 * The text with `type` and `size` set in its frontmatter (a block is added when there is
 * none), keeping comments, key order and the body byte for byte. Keys the doc already
 * names are left alone. Throws FrontmatterInvalidError when the block is not valid YAML:
 * the author must fix it first (the lint reports it as `frontmatter-invalid`).
 */
export function adoptFrontmatter(text: string, adopt: Adopt): string {
  const fm = parseFrontmatter(text);
  if (fm.error)
    throw new FrontmatterInvalidError(
      `frontmatter is not valid YAML (line ${fm.error.line}, column ${fm.error.column}): ${fm.error.message}`,
    );
  const values: Record<string, string> = {};
  for (const key of ["type", "size"] as const) {
    const v = adopt[key];
    const existing = fm.data[key];
    if (v !== undefined && (existing === undefined || existing === null || existing === "")) values[key] = v;
  }
  if (Object.keys(values).length === 0) return text;
  try {
    return setFrontmatterKeys(text, values);
  } catch (err) {
    throw new FrontmatterInvalidError(err instanceof Error ? err.message : String(err), { cause: err });
  }
}
