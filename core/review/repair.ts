/**
 * Degrade, do not die (docs/review.md, "Repaired, retried, dropped"). A model's answer
 * that fails its schema is first repaired where the fix has one clear meaning, and each
 * repair is recorded; what no repair can fix is a problem, and the step is asked again
 * once with the problems. After that second try, the items with problems are dropped and
 * the rest is kept.
 *
 * A salvager turns parsed JSON into a value of the step's schema (or nothing usable).
 */
import { z } from "zod";

export interface Salvaged<T> {
  /** The usable value (items with problems left out); undefined when nothing is usable. */
  value?: T;
  /** Repairs with one clear meaning that were applied. */
  repairs: string[];
  /** Items left out for a clear reason (beyond a schema limit). */
  dropped: number;
  /** What no repair fixes; the step is asked again with these. */
  problems: string[];
  /** Items with problems, left out of `value`. */
  invalid: number;
}

export type Salvager<T> = (data: unknown) => Salvaged<T>;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function issuesText(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => `${i.path.length > 0 ? i.path.join(".") : "(root)"}: ${i.message}`)
    .join("; ");
}

/**
 * Clear repairs of one object against an object schema: unknown keys are left out, an enum
 * value in another letter case takes the enum's case, a lone string where a list of strings
 * is expected becomes a list of one.
 */
function tidy(
  item: Record<string, unknown>,
  schema: z.ZodObject,
  where: string,
  repairs: string[],
): Record<string, unknown> {
  const shape = schema.shape as Record<string, z.ZodType>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(item)) {
    const field = shape[k];
    if (!field) {
      repairs.push(`${where}: unknown field ${k} left out`);
      continue;
    }
    if (field instanceof z.ZodEnum && typeof v === "string") {
      const options = field.options as string[];
      const match = options.find((o) => o.toLowerCase() === v.trim().toLowerCase());
      if (match !== undefined && match !== v) {
        repairs.push(`${where}: ${k} ${JSON.stringify(v)} read as ${match}`);
        out[k] = match;
        continue;
      }
    }
    if (field instanceof z.ZodArray && typeof v === "string" && field.element instanceof z.ZodString) {
      repairs.push(`${where}: ${k} given as one string, read as a list of one`);
      out[k] = [v];
      continue;
    }
    out[k] = v;
  }
  return out;
}

/**
 * An answer `{ [key]: item[] }` with at most `max` items: valid items are kept (the first
 * `max`; the rest dropped), invalid ones are problems. A bare array is read as the list.
 */
export function listSalvager<K extends string, I extends z.ZodObject>(
  key: K,
  itemSchema: I,
  max: number,
): Salvager<{ [P in K]: Array<z.output<I>> }> {
  return (data) => {
    const repairs: string[] = [];
    const problems: string[] = [];
    let list: unknown;
    if (Array.isArray(data)) {
      repairs.push(`the answer is a bare list; read as ${key}`);
      list = data;
    } else if (isObject(data)) {
      for (const k of Object.keys(data)) if (k !== key) repairs.push(`unknown field ${k} left out`);
      list = data[key];
    }
    if (!Array.isArray(list))
      return { repairs, dropped: 0, invalid: 0, problems: [`${key}: expected a list of items`] };
    const items: Array<z.output<I>> = [];
    let invalid = 0;
    list.forEach((raw, i) => {
      const where = `${key}.${i}`;
      if (!isObject(raw)) {
        invalid++;
        problems.push(`${where}: expected an object`);
        return;
      }
      const r = itemSchema.safeParse(tidy(raw, itemSchema, where, repairs));
      if (r.success) items.push(r.data);
      else {
        invalid++;
        problems.push(`${where}: ${issuesText(r.error).replaceAll("(root)", where)}`);
      }
    });
    const dropped = Math.max(0, items.length - max);
    if (dropped > 0) repairs.push(`${dropped} ${key} beyond the limit of ${max} dropped`);
    const value = { [key]: items.slice(0, max) } as { [P in K]: Array<z.output<I>> };
    return { value, repairs, dropped, problems, invalid };
  };
}

/** A single object answer: clear repairs, then the schema. */
export function objectSalvager<S extends z.ZodObject>(
  schema: S,
  fill?: (o: Record<string, unknown>, repairs: string[]) => void,
): Salvager<z.output<S>> {
  return (data) => {
    const repairs: string[] = [];
    if (!isObject(data))
      return { repairs, dropped: 0, invalid: 0, problems: ["(root): expected a JSON object"] };
    const o = tidy(data, schema, "answer", repairs);
    fill?.(o, repairs);
    const r = schema.safeParse(o);
    if (r.success) return { value: r.data, repairs, dropped: 0, invalid: 0, problems: [] };
    return { repairs, dropped: 0, invalid: 0, problems: [issuesText(r.error)] };
  };
}

export interface JudgeValue {
  groups: number[][];
  result: "agree" | "diverge";
  agreed_answer: string;
  explanation: string;
}

/**
 * The judge's groups, repaired against the answering readers: a reader that did not answer
 * (or does not exist) is left out; a reader named twice stays in its first group; an
 * answering reader in no group becomes a group of its own (divergence: the safe side);
 * `result` is derived from the groups. Groups that are not lists of reader numbers are a
 * problem.
 */
export function judgeSalvager(answered: readonly number[]): Salvager<JudgeValue> {
  const allowed = new Set(answered);
  return (data) => {
    const repairs: string[] = [];
    const fail = (p: string): Salvaged<JudgeValue> => ({ repairs, dropped: 0, invalid: 0, problems: [p] });
    if (!isObject(data)) return fail("(root): expected a JSON object");
    const raw = data["groups"];
    if (!Array.isArray(raw) || raw.some((g) => !Array.isArray(g)))
      return fail("groups: expected a list of lists of reader numbers");
    const groups: number[][] = [];
    const seen = new Set<number>();
    for (const g of raw as unknown[][]) {
      const keep: number[] = [];
      for (const x of g) {
        const r = typeof x === "string" && /^\d+$/.test(x.trim()) ? Number(x) : x;
        if (typeof r !== "number" || !Number.isInteger(r))
          return fail(`groups: ${JSON.stringify(x)} is not a reader number`);
        if (!allowed.has(r)) {
          repairs.push(`reader ${r} is not one of the answering readers; left out`);
          continue;
        }
        if (seen.has(r)) {
          repairs.push(`reader ${r} is in two groups; kept in the first`);
          continue;
        }
        seen.add(r);
        keep.push(r);
      }
      if (keep.length > 0) groups.push(keep);
    }
    const missing = answered.filter((r) => !seen.has(r));
    if (missing.length > 0) {
      repairs.push(
        `reader${missing.length === 1 ? "" : "s"} ${missing.join(", ")} in no group; each made a group of its own`,
      );
      for (const r of missing) groups.push([r]);
    }
    const result = groups.length === 1 ? "agree" : "diverge";
    if (data["result"] !== result)
      repairs.push(
        data["result"] === undefined
          ? `result missing; ${result} from ${groups.length} group(s)`
          : `result ${JSON.stringify(data["result"])} contradicts ${groups.length} group(s); set to ${result}`,
      );
    const text = (k: string) => (typeof data[k] === "string" ? data[k] : "");
    for (const k of Object.keys(data))
      if (!["groups", "result", "agreed_answer", "explanation"].includes(k))
        repairs.push(`unknown field ${k} left out`);
    return {
      value: {
        groups,
        result,
        agreed_answer: result === "agree" ? text("agreed_answer") : "",
        explanation: text("explanation"),
      },
      repairs,
      dropped: 0,
      invalid: 0,
      problems: [],
    };
  };
}
