/**
 * Secrets at rest: AES-256-GCM (node:crypto) under one 32-byte key. The key comes from
 * `SPEC_REVIEW_SECRET_KEY` (base64 of 32 bytes) or, in local mode, from `<data-dir>/secret.key`,
 * created with mode 0600 on first start. Sealed text is `v1:<iv>:<tag>:<ciphertext>`
 * (base64 parts); the backend id is bound in as associated data, so a sealed secret copied
 * to another row does not open.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { registerSecret } from "../redact.js";

export const SECRET_KEY_ENV = "SPEC_REVIEW_SECRET_KEY";
export const SECRET_KEY_FILE = "secret.key";

function decodeKey(text: string, where: string): Buffer {
  const key = Buffer.from(text.trim(), "base64");
  if (key.length !== 32) throw new Error(`${where} must be base64 of 32 bytes (it decodes to ${key.length})`);
  return key;
}

export class SecretBox {
  readonly #key: Buffer;

  constructor(key: Uint8Array) {
    if (key.length !== 32) throw new Error(`a secret key is 32 bytes, not ${key.length}`);
    this.#key = Buffer.from(key);
    // The key never appears in an answer, a log line or a stored error, in any spelling.
    registerSecret(this.#key.toString("base64"));
    registerSecret(this.#key.toString("base64url"));
    registerSecret(this.#key.toString("hex"));
  }

  /** A fresh random key (tests). */
  static random(): SecretBox {
    return new SecretBox(randomBytes(32));
  }

  seal(plain: string, context = ""): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.#key, iv);
    cipher.setAAD(Buffer.from(context, "utf8"));
    const ct = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
    return ["v1", iv.toString("base64"), cipher.getAuthTag().toString("base64"), ct.toString("base64")].join(
      ":",
    );
  }

  open(sealed: string, context = ""): string {
    const [version, iv, tag, ct] = sealed.split(":");
    if (version !== "v1" || iv === undefined || tag === undefined || ct === undefined)
      throw new Error("sealed secret has an unknown format");
    const decipher = createDecipheriv("aes-256-gcm", this.#key, Buffer.from(iv, "base64"));
    decipher.setAAD(Buffer.from(context, "utf8"));
    decipher.setAuthTag(Buffer.from(tag, "base64"));
    return Buffer.concat([decipher.update(Buffer.from(ct, "base64")), decipher.final()]).toString("utf8");
  }
}

/**
 * The key: the environment variable when set; otherwise, in local mode, the key file in the
 * data directory (made on first use, mode 0600). Hosted mode needs the variable.
 */
export function loadSecretKey(opts: {
  env?: Record<string, string | undefined>;
  dataDir?: string;
  mode: "local" | "hosted";
}): Buffer {
  const fromEnv = (opts.env ?? process.env)[SECRET_KEY_ENV];
  if (fromEnv) return decodeKey(fromEnv, SECRET_KEY_ENV);
  if (opts.mode === "hosted" || !opts.dataDir)
    throw new Error(`${SECRET_KEY_ENV} is not set (base64 of 32 random bytes: openssl rand -base64 32)`);
  const file = join(opts.dataDir, SECRET_KEY_FILE);
  if (existsSync(file)) return decodeKey(readFileSync(file, "utf8"), file);
  mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  writeFileSync(file, key.toString("base64") + "\n", { mode: 0o600, flag: "wx" });
  chmodSync(file, 0o600);
  return key;
}

/** What a response may show of a secret: its last 4 characters, and only of one of 8 or more. */
export function last4(secret: string): string {
  return secret.length >= 8 ? secret.slice(-4) : "";
}

/**
 * The secret columns of a write-only secret in a request: `undefined` keeps the stored one
 * (no columns), `""` removes it, anything else is sealed (bound to `context`) and remembered
 * by the redactor.
 */
export function secretColumns(
  box: SecretBox,
  secret: string | undefined,
  context: string,
): { secretCipher: string | null; secretLast4: string } | undefined {
  if (secret === undefined) return undefined;
  if (secret === "") return { secretCipher: null, secretLast4: "" };
  registerSecret(secret);
  return { secretCipher: box.seal(secret, context), secretLast4: last4(secret) };
}
