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

/** What adoption did to a lint result, in words for people: the CLI, the Action comment, the HTML report. */
export interface AdoptionSummary {
  adopt?: Adopt;
  profile_key: string;
  size: string;
  findings: readonly { check: string; relaxed?: boolean }[];
}

/**
 * One or two sentences saying what adoption changed, or undefined when the doc names
 * both `type` and `size` (nothing adopted). Says which values were guessed, how many
 * findings of how many checks were reported one level lower, and how to get the full
 * checks. Plain text; callers add their own markup.
 */
export function adoptionNote(r: AdoptionSummary): string | undefined {
  const a = r.adopt;
  if (!a || (a.type === undefined && a.size === undefined)) return undefined;
  const guessed: string[] = [];
  if (a.type !== undefined) guessed.push(`no type, so it was read as '${a.type}'`);
  if (a.size !== undefined) guessed.push(`no size, so it was read at '${a.size}'`);
  const relaxed = r.findings.filter((f) => f.relaxed);
  const checks = new Set(relaxed.map((f) => f.check)).size;
  const lowered =
    relaxed.length === 0
      ? "No finding had to be lowered."
      : `${relaxed.length} finding${relaxed.length === 1 ? "" : "s"} of ${checks} check${checks === 1 ? "" : "s"} ${relaxed.length === 1 ? "was" : "were"} reported one level lower (MUST as SHOULD, SHOULD as INFO) while the doc is adopted.`;
  const keys = [
    ...(a.type !== undefined ? [`type: ${a.type}`] : []),
    ...(a.size !== undefined ? [`size: ${a.size}`] : []),
  ];
  return `Adoption: the doc names ${guessed.join(" and ")}. ${lowered} Add \`${keys.join("` and `")}\` to its frontmatter for the full checks.`;
}
