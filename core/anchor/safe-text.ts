/**
 * Text that can always be stored. A file may hold anything: lone UTF-16 surrogates (a
 * cut emoji), NUL characters. JSON in Postgres rejects both (`invalid input syntax for
 * type json`), and a finding that cannot be stored would fail the whole run. Every string
 * a finding carries goes through `safeText` before it leaves the core.
 */

// NUL is matched on purpose: it is what must be replaced.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]|\u0000/g;
// eslint-disable-next-line no-control-regex
const UNSAFE_TEST = /[\uD800-\uDFFF\u0000]/;

/** The string with lone surrogates and NUL replaced by U+FFFD; the same string when it is already safe. Never throws. */
export function safeText(s: string): string {
  // Most text holds no surrogate or NUL at all: one scan, no copy.
  if (!UNSAFE_TEST.test(s)) return s;
  UNSAFE.lastIndex = 0;
  return s.replace(UNSAFE, "\uFFFD");
}

/** A JSON-like value with every string in it (keys included) made safe. Returns the input when nothing changes. */
export function safeJson<T>(value: T): T {
  if (typeof value === "string") return safeText(value) as T;
  if (Array.isArray(value)) {
    let changed = false;
    const out = (value as unknown[]).map((v) => {
      const s = safeJson(v);
      if (s !== v) changed = true;
      return s;
    });
    return (changed ? out : value) as T;
  }
  if (value !== null && typeof value === "object" && !(value instanceof Date)) {
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const sk = safeText(k);
      const sv = safeJson(v);
      if (sk !== k || sv !== v) changed = true;
      out[sk] = sv;
    }
    return (changed ? out : value) as T;
  }
  return value;
}
