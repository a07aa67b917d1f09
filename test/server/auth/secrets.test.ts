/** Password hashing at the service's real cost, the password rule, tokens and their hashes. */
import { describe, expect, it } from "vitest";
import {
  hashPassword,
  newToken,
  safeEqual,
  SCRYPT_LOG2N,
  tokenHash,
  verifyPassword,
  weakPasswordReason,
} from "../../../server/auth/secrets.js";

describe("passwords", () => {
  it("hashes with scrypt at N = 2^15 by default, salted, and verifies only the right password", async () => {
    const a = await hashPassword("correct horse battery staple");
    const b = await hashPassword("correct horse battery staple");
    expect(a).toMatch(new RegExp(`^scrypt\\$${2 ** SCRYPT_LOG2N}\\$8\\$1\\$`));
    expect(a).not.toBe(b);
    expect(await verifyPassword("correct horse battery staple", a)).toBe(true);
    expect(await verifyPassword("correct horse battery stapl", a)).toBe(false);
    expect(await verifyPassword("anything", "md5$abc")).toBe(false);
  });

  it("verifies a hash made at another cost (the cost is read from the hash)", async () => {
    const cheap = await hashPassword("a fine passphrase", 10);
    expect(cheap).toMatch(/^scrypt\$1024\$/);
    expect(await verifyPassword("a fine passphrase", cheap)).toBe(true);
  });

  it("states why a weak password is refused", () => {
    expect(weakPasswordReason("")).toMatch(/at least 12/);
    expect(weakPasswordReason("abababababababab")).toMatch(/5 different/);
    expect(weakPasswordReason("x".repeat(257))).toMatch(/at most 256/);
    expect(weakPasswordReason("ada.lovelace-rocks", { email: "ada.lovelace@example.com" })).toMatch(/email/);
    expect(weakPasswordReason("I am Grace Hopper!", { name: "Grace Hopper" })).toMatch(/name/);
    expect(weakPasswordReason("😀 emoji count as one each 😀")).toBeUndefined();
    expect(weakPasswordReason("correct horse battery staple")).toBeUndefined();
  });
});

describe("tokens", () => {
  it("are random, prefixed by kind, and kept as a SHA-256 that compares in constant time", () => {
    const t = newToken("api");
    expect(t).toMatch(/^srt_[A-Za-z0-9_-]{43}$/);
    expect(newToken("api")).not.toBe(t);
    expect(tokenHash(t)).toMatch(/^[0-9a-f]{64}$/);
    expect(safeEqual(tokenHash(t), tokenHash(t))).toBe(true);
    expect(safeEqual(tokenHash(t), tokenHash(t + "x"))).toBe(false);
    expect(safeEqual("a", "ab")).toBe(false);
  });
});
