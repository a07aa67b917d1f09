/**
 * The secrets of accounts: random tokens (session cookies, API tokens, invite and reset
 * links) kept only as their SHA-256, passwords hashed with scrypt (memory-hard, node:crypto),
 * and every comparison of secrets in constant time.
 */
import {
  createHash,
  randomBytes,
  scrypt as scryptCb,
  timingSafeEqual,
  type ScryptOptions,
} from "node:crypto";

/** Prefixes tell a leaked secret's kind at a glance (and let secret scanners find them). */
export type TokenKind = "session" | "api" | "invite" | "reset";
const PREFIX: Record<TokenKind, string> = { session: "srs_", api: "srt_", invite: "sri_", reset: "srr_" };

/** A new random token: the prefix of its kind and 32 random bytes, base64url. */
export function newToken(kind: TokenKind): string {
  return PREFIX[kind] + randomBytes(32).toString("base64url");
}

/** What the database keeps of a token: its SHA-256, hex. A token has 256 random bits, so no salt is needed. */
export function tokenHash(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/** Equal strings, compared in time that does not depend on where they differ. */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, "utf8");
  const y = Buffer.from(b, "utf8");
  // Lengths are not secret (hashes have a fixed length); compare something of equal length anyway.
  return x.length === y.length ? timingSafeEqual(x, y) : (timingSafeEqual(x, x), false);
}

// ---- passwords ----

/** scrypt cost: N = 2^15, r = 8 (32 MiB of memory per hash), p = 1: tens of ms per sign-in on a quiet core. */
export const SCRYPT_LOG2N = 15;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
const MAX_MEM = 64 * 1024 * 1024;

function scrypt(password: string, salt: Buffer, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCb(password.normalize("NFC"), salt, KEY_LENGTH, { ...opts, maxmem: MAX_MEM }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

/**
 * `scrypt$N$r$p$<salt>$<hash>` (base64): verifying reads the cost from the hash, so the
 * cost can change without losing old hashes. `log2N` below 15 is for tests only.
 */
export async function hashPassword(password: string, log2N = SCRYPT_LOG2N): Promise<string> {
  const salt = randomBytes(16);
  const N = 2 ** log2N;
  const key = await scrypt(password, salt, { N, r: R, p: P });
  return ["scrypt", N, R, P, salt.toString("base64"), key.toString("base64")].join("$");
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64");
  const key = await scrypt(password, Buffer.from(salt, "base64"), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** A hash no password matches, verified when the email is unknown so that the answer takes as long. */
const decoys = new Map<number, Promise<string>>();
export function decoyHash(log2N = SCRYPT_LOG2N): Promise<string> {
  let decoy = decoys.get(log2N);
  if (!decoy) decoys.set(log2N, (decoy = hashPassword(randomBytes(24).toString("base64"), log2N)));
  return decoy;
}

// ---- the password rule (docs/accounts.md) ----

export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 256;

/**
 * Why a password is refused, or undefined when it is good enough: 12 to 256 characters,
 * at least 5 different characters, and not the person's email address or name (nor a
 * password that contains either).
 */
export function weakPasswordReason(
  password: string,
  person: { email?: string; name?: string } = {},
): string | undefined {
  const length = [...password].length;
  if (length < PASSWORD_MIN)
    return `a password needs at least ${PASSWORD_MIN} characters (this one has ${length})`;
  if (length > PASSWORD_MAX) return `a password has at most ${PASSWORD_MAX} characters`;
  if (new Set(password).size < 5) return "a password needs at least 5 different characters";
  const lower = password.toLowerCase();
  for (const own of [person.email, person.email?.split("@")[0], person.name]) {
    const o = own?.trim().toLowerCase();
    if (o && o.length >= 4 && lower.includes(o))
      return "a password must not contain your email address or name";
  }
  return undefined;
}
