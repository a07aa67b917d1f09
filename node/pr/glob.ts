/**
 * The `paths` input: glob patterns over repository paths, matched by picomatch: `**`
 * (any number of folders), `*` and `?` (within one path segment), `{a,b}`
 * alternatives, `[abc]` classes, and a leading `!` to exclude. A pattern naming a folder
 * (`specs`, `specs/`) covers what is under it.
 */
import picomatch from "picomatch";

const cache = new Map<string, (path: string) => boolean>();

/** A matcher for one glob pattern (whole path, posix separators). */
export function globMatcher(pattern: string): (path: string) => boolean {
  let m = cache.get(pattern);
  if (!m) {
    m = picomatch(pattern, { dot: true });
    cache.set(pattern, m);
  }
  return m;
}

/** Strip `./` and trailing slashes; posix separators. */
export function normalizePattern(pattern: string): string {
  let p = pattern.trim().replace(/\\/g, "/");
  while (p.startsWith("./")) p = p.slice(2);
  p = p.replace(/\/+$/, "");
  return p === "" ? "." : p;
}

/** Split the `paths` input: one pattern a line, or separated by commas outside braces. */
export function splitPatterns(input: string): string[] {
  const out: string[] = [];
  let current = "";
  let depth = 0;
  for (const ch of input) {
    if (ch === "{") depth++;
    else if (ch === "}") depth = Math.max(0, depth - 1);
    if ((ch === "\n" || ch === "\r" || ch === ",") && depth === 0) {
      out.push(current);
      current = "";
      continue;
    }
    current += ch;
  }
  out.push(current);
  return out.map((p) => p.trim()).filter((p) => p !== "" && !p.startsWith("#"));
}

function matchesOne(pattern: string, path: string): boolean {
  const p = normalizePattern(pattern);
  if (p === "." || p === "**") return true;
  return globMatcher(p)(path) || globMatcher(`${p}/**`)(path);
}

/**
 * True when one of the candidate paths (a bundle's folder, its doc) is selected by the
 * patterns: some pattern without `!` matches (or there is none) and no `!` pattern does.
 */
export function selected(patterns: readonly string[], candidates: readonly string[]): boolean {
  const include = patterns.filter((p) => !p.startsWith("!"));
  const exclude = patterns.filter((p) => p.startsWith("!")).map((p) => p.slice(1));
  const hit = (list: string[]) => list.some((p) => candidates.some((c) => matchesOne(p, c)));
  return (include.length === 0 || hit(include)) && !hit(exclude);
}
