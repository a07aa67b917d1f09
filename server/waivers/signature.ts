/**
 * Signatures of sidecar entries: an HMAC-SHA256 under a key derived from the service's
 * secret key (server/models/secrets.ts), over the entry's fields in a canonical order and
 * the doc it belongs to. An entry typed by hand, or edited after the service wrote it, has
 * no valid signature and is never honoured on the strength of the names it carries.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

const PREFIX = "v1:";

/** JSON with object keys sorted, so the same fields always give the same bytes. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value as Record<string, unknown>)
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

export class SidecarSigner {
  private readonly key: Buffer;

  constructor(secretKey: Uint8Array) {
    // A key of its own, so a sidecar signature never doubles as anything sealed with the secret key.
    this.key = createHmac("sha256", secretKey).update("spec-review sidecar signature v1").digest();
  }

  /** The signature of `entry` (its `signature` field left out) for the doc `docId`. */
  sign(docId: string, entry: Record<string, unknown>): string {
    const { signature: _omit, ...fields } = entry;
    void _omit;
    return (
      PREFIX +
      createHmac("sha256", this.key)
        .update(canonical({ doc: docId, fields }))
        .digest("base64url")
    );
  }

  /** True when `entry.signature` is the service's signature of the entry for this doc. */
  verify(docId: string, entry: Record<string, unknown>): boolean {
    const given = entry.signature;
    if (typeof given !== "string" || !given.startsWith(PREFIX)) return false;
    const want = Buffer.from(this.sign(docId, entry));
    const got = Buffer.from(given);
    return want.length === got.length && timingSafeEqual(want, got);
  }
}
