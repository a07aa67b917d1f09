/**
 * Sidecar signatures: the service's HMAC over an entry and its doc. A changed field, the
 * same entry in another doc, or another service's key: not valid. And the sidecar path.
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { SidecarSigner } from "../../../server/waivers/signature.js";
import { parseSidecar, renderSidecar, sidecarPath } from "../../../core/waivers/sidecar.js";

const DOC = "5f0c7a52-3f7e-4c55-9d8e-0b9f1a2c3d4e";
const OTHER = "8a1d2e3f-4b5c-4d6e-8f70-112233445566";

describe("sidecar signatures", () => {
  const key = randomBytes(32);
  const signer = new SidecarSigner(key);
  const entry = {
    id: "0f7c3a9e-1111-4222-8333-444455556666",
    check: "undecided",
    quote: "TBD",
    reason: "Column retention is decided per service by its owners in Q3.",
    requested_by: "Aki Author",
    approved_by: ["Rui Reviewer"],
  };

  it("verifies what it signed, through a YAML round trip, and nothing else", () => {
    const signed = { ...entry, signature: signer.sign(DOC, entry) };
    expect(signed.signature).toMatch(/^v1:[\w-]{43}$/);
    const back = parseSidecar(renderSidecar({ waivers: [signed], acknowledgements: [] })).waivers[0]!;
    expect(signer.verify(DOC, back as Record<string, unknown>)).toBe(true);
    expect(signer.verify(DOC, { ...back, reason: `${entry.reason}!` })).toBe(false);
    expect(signer.verify(DOC, { ...back, approved_by: ["Rui Reviewer", "CTO"] })).toBe(false);
    expect(signer.verify(OTHER, back as Record<string, unknown>)).toBe(false);
    expect(new SidecarSigner(randomBytes(32)).verify(DOC, back as Record<string, unknown>)).toBe(false);
    expect(signer.verify(DOC, { ...entry })).toBe(false);
    expect(signer.verify(DOC, { ...entry, signature: "v1:" })).toBe(false);
  });

  it("names the sidecar beside the main doc", () => {
    expect(sidecarPath("utc.md")).toBe("utc.review.yaml");
    expect(sidecarPath("specs/prd.md")).toBe("specs/prd.review.yaml");
    expect(sidecarPath("README.markdown")).toBe("README.review.yaml");
  });

  it("reads a broken sidecar as no entries and a problem, never a throw", () => {
    expect(parseSidecar("waivers: [oops").problem).toMatch(/not valid YAML/);
    expect(parseSidecar("- a\n- b\n").problem).toBe("the sidecar is not a YAML mapping");
    expect(parseSidecar("")).toEqual({ waivers: [], acknowledgements: [] });
  });
});
