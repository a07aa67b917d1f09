/** required-frontmatter: a frontmatter key is present, and optionally one of given values or matching a pattern. */
import { z } from "zod";
import { docAnchorRange, escapeRegExp } from "../helpers.js";
import { defineCheck } from "./define.js";

export const options = z.strictObject({
  key: z.string().min(1).describe("The frontmatter key"),
  values: z.array(z.string()).optional().describe("Allowed values"),
  pattern: z.string().optional().describe("Regular expression the value must match (whole value)"),
});

function valueText(v: unknown): string | undefined {
  if (v === null || v === undefined) return undefined;
  if (typeof v === "string") return v.trim() === "" ? undefined : v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  if (Array.isArray(v)) return v.length === 0 ? undefined : v.map((x) => valueText(x) ?? "").join(", ");
  return JSON.stringify(v);
}

export const requiredFrontmatter = defineCheck({
  kind: "required-frontmatter",
  description: "A frontmatter key is present and not empty, optionally with an allowed value",
  options,
  defaultMessage: "Frontmatter key '{key}' {detail}",
  check(ctx) {
    const { doc, params } = ctx;
    const fm = doc.frontmatter;
    // A broken block is reported once by the engine (frontmatter-invalid); do not pile on.
    if (fm.error) return [];
    const value = valueText(fm.data[params.key]);
    const vars = { key: params.key };
    // The key's line in the file, else the opening fence, else the doc's first line.
    const keyLine = fm.present
      ? new RegExp(`^${escapeRegExp(params.key)}[ \\t]*:.*$`, "m").exec(fm.raw)
      : null;
    let range: [number, number];
    if (keyLine) {
      const at = doc.frontmatterCharStart + keyLine.index;
      range = [at, at + keyLine[0].trimEnd().length];
    } else if (fm.present) {
      const open = doc.text.indexOf("---");
      range = [open, open + 3];
    } else range = docAnchorRange(doc);
    if (value === undefined)
      return [ctx.finding({ charStart: range[0], charEnd: range[1], detail: "is missing or empty", vars })];
    if (params.values && !params.values.includes(value))
      return [
        ctx.finding({
          charStart: range[0],
          charEnd: range[1],
          detail: `is '${value}'; expected one of ${params.values.join(", ")}`,
          vars,
        }),
      ];
    if (params.pattern) {
      let ok: boolean;
      try {
        ok = new RegExp(`^(?:${params.pattern})$`, "u").test(value);
      } catch {
        ok = false;
      }
      if (!ok)
        return [
          ctx.finding({
            charStart: range[0],
            charEnd: range[1],
            detail: `is '${value}'; it must match ${params.pattern}`,
            vars,
          }),
        ];
    }
    return [];
  },
});
