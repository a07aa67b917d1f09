/**
 * The one redactor: every answer, log line, run error and run event passes through it before it
 * leaves the process or reaches the database. It replaces
 * - every known secret: the backend secrets this process has opened or been given, and the key
 *   that seals them (registered with `registerSecret`);
 * - anything shaped like a credential: `Bearer …`/`Basic …`, OpenAI/Anthropic style `sk-…`, GitHub
 *   `ghp_…`/`gho_…`/`github_pat_…`, Slack `xox?-…`, AWS `AKIA…`, Google `AIza…`, and a long
 *   value after `key=`, `token=`, `secret=`, `password=`, `api_key:` and the like.
 */

const MASK = "****";

/** Known secrets, longest first so a secret holding another is replaced whole. */
const known = new Set<string>();
let knownSorted: string[] = [];

/** Secrets shorter than this are not searched for (they would mask ordinary words). */
export const MIN_SECRET_LENGTH = 6;

/** Remember a secret so it is masked wherever it appears from now on. */
export function registerSecret(secret: string | undefined | null): void {
  if (!secret || secret.length < MIN_SECRET_LENGTH || known.has(secret)) return;
  known.add(secret);
  knownSorted = [...known].sort((a, b) => b.length - a.length);
}

const PATTERNS: Array<[RegExp, string | ((...m: string[]) => string)]> = [
  [/\b(Bearer)\s+[A-Za-z0-9._~+/=-]{6,}/gi, (_m, scheme) => `${scheme} ${MASK}`],
  [/\b(Basic)\s+(?=[A-Za-z0-9+/=]*[0-9+/=])[A-Za-z0-9+/]{8,}={0,2}/g, (_m, scheme) => `${scheme} ${MASK}`],
  [/\bsk-(?:[a-z]+-)?[A-Za-z0-9_-]{8,}/g, `sk-${MASK}`],
  [/\bgithub_pat_[A-Za-z0-9_]{20,}/g, `github_pat_${MASK}`],
  [/\bgh[pousr]_[A-Za-z0-9]{20,}/g, (m) => `${m.slice(0, 4)}${MASK}`],
  [/\bxox[abposre]-[A-Za-z0-9-]{8,}/g, (m) => `${m.slice(0, 5)}${MASK}`],
  [/\bAKIA[0-9A-Z]{16}\b/g, `AKIA${MASK}`],
  [/\bAIza[0-9A-Za-z_-]{30,}/g, `AIza${MASK}`],
  [
    /(?<![A-Za-z0-9])((?:api[_-]?key|apikey|access[_-]?key|access[_-]?token|auth[_-]?token|refresh[_-]?token|client[_-]?secret|secret[_-]?key|private[_-]?key|secret|password|passwd|token|key)["']?\s*[=:]\s*["']?)([A-Za-z0-9+/_.~=-]{12,})/gi,
    (_m, name) => `${name}${MASK}`,
  ],
];

/**
 * The text with every known secret and credential-shaped value masked; `also`: secrets of
 * this call (masked at 4 characters or more). `keep`: values left as they are, whatever
 * masks them otherwise; only the log's start-up record keeps any (the first admin invite's
 * token and the local API token, which the operator needs: server/log.ts).
 */
export function redact(
  text: string,
  also: ReadonlyArray<string | undefined> = [],
  keep: readonly string[] = [],
): string {
  let out = text;
  // Kept values are set aside as placeholders no mask matches (a NUL never occurs in a JSON line).
  const kept = keep.filter((v) => v.length > 0 && out.includes(v));
  kept.forEach((v, i) => (out = out.replaceAll(v, `\u0000${i}\u0000`)));
  for (const secret of also) if (secret && secret.length >= 4) out = out.replaceAll(secret, MASK);
  for (const secret of knownSorted) if (out.includes(secret)) out = out.replaceAll(secret, MASK);
  for (const [re, by] of PATTERNS) out = typeof by === "string" ? out.replace(re, by) : out.replace(re, by);
  kept.forEach((v, i) => (out = out.replaceAll(`\u0000${i}\u0000`, v)));
  return out;
}

/** A copy of a JSON-like value with every string redacted (object keys are kept). */
export function redactDeep<T>(value: T, depth = 0): T {
  if (typeof value === "string") return redact(value) as T;
  if (value === null || typeof value !== "object" || depth > 20) return value;
  if (Array.isArray(value)) return value.map((v: unknown) => redactDeep(v, depth + 1)) as T;
  if (value instanceof Date) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = redactDeep(v, depth + 1);
  return out as T;
}

/** An error's message, redacted (for answers, logs and stored errors). */
export function redactedMessage(err: unknown): string {
  return redact(err instanceof Error ? err.message : String(err));
}
