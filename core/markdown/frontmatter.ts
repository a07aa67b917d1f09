/**
 * YAML frontmatter: split it off a markdown text, parse it, and edit keys in place.
 *
 * We use `yaml` rather than gray-matter because we need line/column positions in
 * parse errors and round-trip edits that keep the author's comments and key order.
 */
import { parseDocument, isMap } from "yaml";

export interface FrontmatterError {
  message: string;
  /** 1-based line in the whole file. */
  line: number;
  /** 1-based column. */
  column: number;
}

export interface Frontmatter {
  /** True when the text opens with a `---` fence that is closed. */
  present: boolean;
  /** Parsed mapping; empty when absent or invalid. */
  data: Record<string, unknown>;
  /** Set when the block is present but is not a valid YAML mapping. */
  error?: FrontmatterError;
  /** The YAML text between the fences. */
  raw: string;
  /** String index where the markdown body starts (after the closing fence line). */
  bodyStart: number;
  /** 1-based line where the body starts. */
  bodyLine: number;
}

const OPEN = /^---[ \t]*\r?\n/;
const CLOSE = /^(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/m;

export function splitFrontmatter(text: string): { raw: string; bodyStart: number; rawStart: number } | null {
  const start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const open = OPEN.exec(text.slice(start, start + 8));
  if (!open) return null;
  const rawStart = start + open[0].length;
  // An empty block: the closing fence right after the opening one.
  const rest = text.slice(rawStart);
  const close = CLOSE.exec(rest);
  if (!close) return null;
  return { raw: rest.slice(0, close.index), rawStart, bodyStart: rawStart + close.index + close[0].length };
}

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** A `key: value` line whose value is a plain word or phrase: no quotes, flow, anchors, tags, comments or colons. */
const PLAIN_LINE = /^([A-Za-z_][A-Za-z0-9_-]*):(?:[ ]+([\p{L}\p{N}_(/][\p{L}\p{N}_ ./()+=,'’-]*?))?[ ]*$/u;
/** Words YAML's core schema reads as null or a boolean (as values: converted; as keys: left to the parser). */
const NULL_WORD = /^(?:~|[Nn]ull|NULL)$/;
const BOOL_WORD = /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/;
const INT = /^[-+]?[0-9]+$/;
/** Other numbers of the core schema (floats, exponents, octal, hex, infinities): left to the parser. */
const OTHER_NUMBER =
  /^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;

/**
 * A YAML mapping made only of plain `key: value` lines (blank lines and `#` comments
 * aside), read without the YAML parser, as YAML 1.2's core schema reads it: a decimal
 * integer is a number, `true`/`false` a boolean, an empty value or `null` is null,
 * anything else a string. Undefined for anything else (quotes, lists, nesting, other
 * numbers, a key given twice, no key at all), which the parser then reads. Lint reads a
 * frontmatter and a sibling `kep.yaml` for every doc, and their parse was a fifth of it;
 * test/core/markdown/frontmatter.test.ts holds the two readings equal.
 */
export function plainYamlMap(raw: string): Record<string, unknown> | undefined {
  if (raw.length > 8192 || raw.includes("\r")) return undefined;
  const data: Record<string, unknown> = {};
  let keys = 0;
  for (const line of raw.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const m = PLAIN_LINE.exec(line);
    if (!m) return undefined;
    const key = m[1]!;
    if (Object.hasOwn(data, key) || key === "__proto__" || NULL_WORD.test(key) || BOOL_WORD.test(key))
      return undefined;
    const v = m[2];
    if (v === undefined || NULL_WORD.test(v)) data[key] = null;
    else if (BOOL_WORD.test(v)) data[key] = v.toLowerCase() === "true";
    else if (INT.test(v)) data[key] = parseInt(v, 10);
    else if (OTHER_NUMBER.test(v)) return undefined;
    else data[key] = v;
    keys++;
  }
  return keys > 0 ? data : undefined;
}

export function parseFrontmatter(text: string): Frontmatter {
  const split = splitFrontmatter(text);
  if (!split) return { present: false, data: {}, raw: "", bodyStart: 0, bodyLine: 1 };
  const bodyLine = lineOf(text, split.bodyStart);
  const firstLine = lineOf(text, split.rawStart);
  const result: Frontmatter = {
    present: true,
    data: {},
    raw: split.raw,
    bodyStart: split.bodyStart,
    bodyLine,
  };
  // Whatever the YAML holds (an alias bomb, nesting deep enough to exhaust the stack), the
  // answer is a frontmatter error on the block, never a thrown error.
  const unreadable = (err: unknown): Frontmatter => {
    const why = err instanceof Error ? err.message.split("\n")[0] : String(err);
    result.error = { message: `frontmatter cannot be read: ${why}`, line: firstLine, column: 1 };
    return result;
  };
  const plain = plainYamlMap(split.raw);
  if (plain) {
    result.data = plain;
    return result;
  }
  let doc: ReturnType<typeof parseDocument>;
  try {
    doc = parseDocument(split.raw, { uniqueKeys: true });
  } catch (err) {
    return unreadable(err);
  }
  const err = doc.errors[0];
  if (err) {
    const pos = err.linePos?.[0];
    // yaml may place an unclosed construct at the end of input: keep the line inside the block.
    const lastLine = firstLine + Math.max(0, split.raw.split("\n").length - 2);
    result.error = {
      message: (err.message.split("\n")[0] ?? err.message).replace(/ at line \d+, column \d+:?$/, ""),
      line: Math.min((pos?.line ?? 1) + firstLine - 1, lastLine),
      column: pos?.col ?? 1,
    };
    return result;
  }
  if (doc.contents === null) return result;
  if (!isMap(doc.contents)) {
    result.error = {
      message: "frontmatter must be a YAML mapping (key: value lines)",
      line: firstLine,
      column: 1,
    };
    return result;
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    return unreadable(err);
  }
  if (data && typeof data === "object" && !Array.isArray(data)) result.data = data as Record<string, unknown>;
  return result;
}

/** The `type` key of a doc's frontmatter, when it is a non-empty string. */
export function frontmatterType(fm: Frontmatter): string | undefined {
  const t = fm.data["type"];
  return typeof t === "string" && t.trim() !== "" ? t.trim() : undefined;
}

/**
 * Set keys in the frontmatter of `text`, keeping comments and the order of other keys.
 * Adds a frontmatter block when the text has none. Throws when the block is invalid YAML.
 */
export function setFrontmatterKeys(text: string, values: Record<string, string>): string {
  const split = splitFrontmatter(text);
  if (!split) {
    const lines = Object.entries(values).map(
      ([k, v]) => `${k}: ${/^[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(v) ? v : JSON.stringify(v)}`,
    );
    const bom = text.charCodeAt(0) === 0xfeff ? "\ufeff" : "";
    return `${bom}---\n${lines.join("\n")}\n---\n\n${bom ? text.slice(1) : text}`;
  }
  const doc = parseDocument(split.raw);
  if (doc.errors.length > 0) throw doc.errors[0]!;
  if (doc.contents !== null && !isMap(doc.contents)) throw new Error("frontmatter must be a YAML mapping");
  for (const [k, v] of Object.entries(values)) doc.set(k, v);
  let yamlText = doc.toString({ lineWidth: 0 });
  if (!yamlText.endsWith("\n")) yamlText += "\n";
  const close = text.slice(split.rawStart + split.raw.length, split.bodyStart);
  return text.slice(0, split.rawStart) + yamlText + close + text.slice(split.bodyStart);
}
