/**
 * The `paths` input: glob patterns over repository paths. Small on purpose: `**` (any
 * number of folders), `*` and `?` (within one path segment), `{a,b}` alternatives, and a
 * leading `!` to exclude. A pattern naming a folder (`specs`, `specs/`) covers what is
 * under it.
 */

const cache = new Map<string, RegExp>();

function escape(ch: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(ch) ? `\\${ch}` : ch;
}

/** The regular expression a glob pattern stands for, anchored at both ends. */
export function globToRegExp(pattern: string): RegExp {
  let re = cache.get(pattern);
  if (re) return re;
  let out = "";
  let depth = 0;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === "*") {
      if (pattern[i + 1] === "*") {
        const atStart = i === 0 || pattern[i - 1] === "/";
        const atEnd = i + 2 === pattern.length || pattern[i + 2] === "/";
        if (atStart && atEnd) {
          // `**/` matches zero or more folders; a trailing `**` matches anything below.
          if (pattern[i + 2] === "/") {
            out += "(?:[^/]*/)*";
            i += 2;
          } else {
            // `a/**` also matches `a` itself.
            out = out.endsWith("\\/") ? `${out.slice(0, -2)}(?:/.*)?` : `${out}.*`;
            i += 1;
          }
          continue;
        }
        i += 1;
      }
      out += "[^/]*";
    } else if (ch === "?") out += "[^/]";
    else if (ch === "{") {
      depth++;
      out += "(?:";
    } else if (ch === "}" && depth > 0) {
      depth--;
      out += ")";
    } else if (ch === "," && depth > 0) out += "|";
    else out += escape(ch);
  }
  if (depth > 0) out = `${out}${")".repeat(depth)}`;
  re = new RegExp(`^${out}$`);
  cache.set(pattern, re);
  return re;
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
  return globToRegExp(p).test(path) || globToRegExp(`${p}/**`).test(path);
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
