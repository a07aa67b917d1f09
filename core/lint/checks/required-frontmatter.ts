/**
 * required-frontmatter: a piece of metadata (status, date, owners...) is given, and
 * optionally one of given values or matching a pattern. Found where teams keep it: the
 * frontmatter, a `Status: accepted` line (or `**Status:** accepted`, `| Status | accepted |`)
 * in the body, a `## Status` section, or a sibling metadata file the profile names
 * (`kep.yaml` beside the README). A key may have other names (`decision-makers` beside
 * the older `deciders`).
 */
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { docAnchorRange, escapeRegExp, matchForm, normalizedTitle } from "../helpers.js";
import { defineCheck } from "./define.js";
import { resolveInBundle } from "./links-resolve.js";
import type { MarkdownDoc } from "../../markdown/document.js";
import { plainYamlMap } from "../../markdown/frontmatter.js";
import type { CheckContext } from "../types.js";

export const options = z.strictObject({
  key: z.string().min(1).describe("The metadata key"),
  aliases: z
    .array(z.string().min(1))
    .default([])
    .describe("Other names of the key (MADR's `decision-makers` for `deciders`)"),
  values: z
    .array(z.string())
    .optional()
    .describe(
      "Allowed values, case-insensitive; a value may go on after one ('superseded by ADR-0005' is 'superseded')",
    ),
  pattern: z
    .string()
    .optional()
    .describe("Regular expression the value must open with ('2024-05-01 (revised)' matches a date)"),
  body: z
    .boolean()
    .default(true)
    .describe("Also accept a `Key: value` line or a `## Key` section in the body"),
  files: z
    .array(z.string().min(1))
    .default([])
    .describe(
      "Sibling metadata files (YAML or JSON, relative to the doc) that may hold the key, e.g. kep.yaml",
    ),
});

type Params = z.output<typeof options>;

function valueText(v: unknown): string | undefined {
  if (v === null || v === undefined) return undefined;
  if (typeof v === "string") return v.trim() === "" ? undefined : v.trim();
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  if (Array.isArray(v)) {
    const parts = v.map((x) => valueText(x)).filter((x): x is string => x !== undefined);
    return parts.length === 0 ? undefined : parts.join(", ");
  }
  if (typeof v === "object") return Object.keys(v).length === 0 ? undefined : JSON.stringify(v);
  return undefined;
}

/** The words a key is written with in prose: "decision-makers" -> "decision makers". */
const spoken = (key: string) => matchForm(key.replace(/[_-]+/g, " "));

/** A value found somewhere, with the range to anchor a finding about it. */
interface Found {
  value: string | undefined;
  range: [number, number];
  where: string;
}

function lookUp(data: Record<string, unknown>, names: readonly string[]): unknown {
  const wanted = new Set(names.map(spoken));
  for (const [k, v] of Object.entries(data)) if (wanted.has(spoken(k))) return v;
  return undefined;
}

function inFrontmatter(doc: MarkdownDoc, names: readonly string[]): Found | undefined {
  const fm = doc.frontmatter;
  if (!fm.present) return undefined;
  for (const name of names) {
    if (!(name in fm.data)) continue;
    const line = new RegExp(`^${escapeRegExp(name)}[ \\t]*:.*$`, "m").exec(fm.raw);
    const at = line ? doc.frontmatterCharStart + line.index : doc.frontmatterCharStart;
    return {
      value: valueText(fm.data[name]),
      range: [at, at + (line ? line[0].trimEnd().length : 0)],
      where: "frontmatter",
    };
  }
  const v = lookUp(fm.data, names);
  if (v === undefined) return undefined;
  const open = doc.text.indexOf("---");
  return { value: valueText(v), range: [open, open + 3], where: "frontmatter" };
}

const EMPH = "(?:\\*\\*|__|\\*|_)?";

interface BodyPatterns {
  /** A name then a colon or a cell's end, anywhere: a text without one holds no `Key: value` line or row. */
  any: RegExp;
  line: RegExp;
  row: RegExp;
}

const bodyPatterns = new Map<string, BodyPatterns>();

/** The patterns of a key's names in the body, built once per list of names (every doc asks for the same keys). */
function bodyPatternsOf(names: readonly string[]): BodyPatterns {
  const id = names.join("\u0000");
  let p = bodyPatterns.get(id);
  if (p) return p;
  const alts = names.map((n) => spoken(n).split(" ").map(escapeRegExp).join("[\\s_-]+")).join("|");
  p = {
    any: new RegExp(`(?:${alts})${EMPH}(?:[ \\t]*:|:?[ \\t]*\\|)`, "iu"),
    // `Status: accepted`, `* **Status:** accepted`, `- Status - accepted` in a paragraph or list item.
    line: new RegExp(
      `^[ \\t]*(?:[-*+][ \\t]+)?${EMPH}(?:${alts})${EMPH}[ \\t]*:${EMPH}[ \\t]*(.*?)[ \\t]*$`,
      "imu",
    ),
    // `| Status | accepted |` in a table.
    row: new RegExp(
      `^[ \\t]*\\|[ \\t]*${EMPH}(?:${alts})${EMPH}:?[ \\t]*\\|[ \\t]*([^|\\n]*?)[ \\t]*\\|`,
      "imu",
    ),
  };
  if (bodyPatterns.size >= 1000) bodyPatterns.clear();
  bodyPatterns.set(id, p);
  return p;
}

function inBody(doc: MarkdownDoc, names: readonly string[]): Found | undefined {
  const { any, line, row } = bodyPatternsOf(names);
  // Every block's source is a part of the text: where the names are nowhere, no block holds them.
  for (const b of any.test(doc.text) ? doc.blocks : []) {
    if (b.kind !== "paragraph" && b.kind !== "table") continue;
    const source = doc.text.slice(b.charStart, b.charEnd);
    const m = (b.kind === "table" ? row : line).exec(source);
    if (!m) continue;
    const at = b.charStart + m.index;
    const value = m[1]!.replace(/^(?:\*\*|__|\*|_)+|(?:\*\*|__|\*|_)+$/g, "").trim();
    return {
      value: value === "" ? undefined : value,
      range: [at + (m[0].length - m[0].trimStart().length), at + m[0].trimEnd().length],
      where: "body",
    };
  }
  // A `## Status` section: its first paragraph is the value.
  const wanted = new Set(names.map(spoken));
  for (const s of doc.sections) {
    if (s.level === 0 || !wanted.has(normalizedTitle(s.title))) continue;
    const first = doc.blocks.find(
      (b) => b.charStart >= s.contentCharStart && b.charStart < s.ownCharEnd && b.kind === "paragraph",
    );
    const text = first?.text.replace(/[*_`]/g, "").trim();
    return {
      value: text === undefined || text === "" ? undefined : text,
      range: first ? [first.charStart, first.charEnd] : [s.charStart, s.contentCharStart],
      where: "body",
    };
  }
  return undefined;
}

const siblingCache = new WeakMap<MarkdownDoc, Map<string, { text: string; data: unknown }>>();

/** A sibling metadata file's data, parsed once per doc (a profile asks it for several keys); undefined when it is not YAML. */
function siblingData(doc: MarkdownDoc, path: string, text: string): unknown {
  let perDoc = siblingCache.get(doc);
  if (!perDoc) {
    perDoc = new Map<string, { text: string; data: unknown }>();
    siblingCache.set(doc, perDoc);
  }
  const cached = perDoc.get(path);
  if (cached?.text === text) return cached.data;
  let data: unknown = plainYamlMap(text);
  if (data === undefined)
    try {
      data = parseYaml(text, { maxAliasCount: 100 });
    } catch {
      data = undefined;
    }
  perDoc.set(path, { text, data });
  return data;
}

function inFiles(ctx: CheckContext<Params>, names: readonly string[]): Found | undefined {
  for (const f of ctx.params.files) {
    const path = resolveInBundle(ctx.file, f);
    if (path === undefined) continue;
    const text = ctx.readFile(path);
    if (text === undefined) continue;
    const data = siblingData(ctx.doc, path, text);
    if (data === null || typeof data !== "object" || Array.isArray(data)) continue;
    const v = lookUp(data as Record<string, unknown>, names);
    if (v === undefined) continue;
    const [s, e] = docAnchorRange(ctx.doc);
    return { value: valueText(v), range: [s, e], where: path };
  }
  return undefined;
}

export const requiredFrontmatter = defineCheck({
  kind: "required-frontmatter",
  description:
    "A piece of metadata is given (frontmatter, a `Key: value` line or `## Key` section, or a sibling metadata file), optionally with an allowed value",
  options,
  defaultMessage: "Metadata '{key}' {detail}",
  check(ctx) {
    const { doc, params } = ctx;
    const fm = doc.frontmatter;
    // A broken block is reported once by the engine (frontmatter-invalid); do not pile on.
    if (fm.error) return [];
    const names = [params.key, ...params.aliases];
    const vars = { key: params.key };
    // The first place holding a value, in this order; looked at only as far as needed.
    const inFm = inFrontmatter(doc, names);
    const given = (f: Found | undefined) => (f?.value !== undefined ? f : undefined);
    const found =
      given(inFm) ??
      (params.body ? given(inBody(doc, names)) : undefined) ??
      given(inFiles(ctx, names)) ??
      inFm;
    if (found?.value === undefined) {
      const range: [number, number] = found
        ? found.range
        : fm.present
          ? [doc.text.indexOf("---"), doc.text.indexOf("---") + 3]
          : docAnchorRange(doc);
      const where =
        params.files.length > 0
          ? `, the body or ${params.files.join(", ")}`
          : params.body
            ? " or the body"
            : "";
      return [
        ctx.finding({
          charStart: range[0],
          charEnd: range[1],
          detail: `is missing or empty (looked in the frontmatter${where})`,
          vars,
        }),
      ];
    }
    const value = found.value;
    const [s, e] = found.range;
    if (params.values) {
      const v = value.toLowerCase();
      const ok = params.values.some((a) => {
        const w = a.toLowerCase();
        return v === w || (v.startsWith(w) && !/[\p{L}\p{N}]/u.test(v.charAt(w.length)));
      });
      if (!ok)
        return [
          ctx.finding({
            charStart: s,
            charEnd: e,
            detail: `is '${value}'; expected one of ${params.values.join(", ")}`,
            vars,
          }),
        ];
    }
    if (params.pattern) {
      let ok: boolean;
      try {
        ok = new RegExp(`^(?:${params.pattern})(?![\\p{L}\\p{N}])`, "u").test(value);
      } catch {
        ok = false;
      }
      if (!ok)
        return [
          ctx.finding({
            charStart: s,
            charEnd: e,
            detail: `is '${value}'; it must match ${params.pattern}`,
            vars,
          }),
        ];
    }
    return [];
  },
});

/**
 * The value of a piece of metadata wherever the doc gives it (frontmatter, a `Key: value`
 * line or `## Key` section, a sibling file such as `kep.yaml`), for checks that read the
 * doc's status or stage. Undefined when it is given nowhere.
 */
export function metadataValue(
  ctx: Pick<CheckContext<unknown>, "doc" | "file" | "readFile">,
  names: readonly string[],
  files: readonly string[] = [],
): string | undefined {
  if (ctx.doc.frontmatter.error) return undefined;
  const fm = inFrontmatter(ctx.doc, names)?.value ?? inBody(ctx.doc, names)?.value;
  if (fm !== undefined) return fm;
  for (const f of files) {
    const path = resolveInBundle(ctx.file, f);
    const text = path === undefined ? undefined : ctx.readFile(path);
    if (path === undefined || text === undefined) continue;
    const data = siblingData(ctx.doc, path, text);
    if (data === null || typeof data !== "object" || Array.isArray(data)) continue;
    const v = valueText(lookUp(data as Record<string, unknown>, names));
    if (v !== undefined) return v;
  }
  return undefined;
}
