/**
 * Which network addresses the service may read external targets from (docs/security.md,
 * "Reading external targets"): public unicast addresses only. Loopback, link-local (the
 * cloud metadata address 169.254.169.254), private (RFC 1918), carrier-grade NAT, unique-local
 * IPv6, multicast, reserved and documentation ranges are refused; an IPv4-mapped IPv6
 * address (`::ffff:127.0.0.1`) is judged as the IPv4 address it carries. The ranges come
 * from `ipaddr.js`, not from hand-written masks.
 */
import ipaddr from "ipaddr.js";

/** Set to `1` to let the service read private and loopback targets (tests, internal wikis on purpose). */
export const ALLOW_PRIVATE_ENV = "SPEC_REVIEW_ALLOW_PRIVATE_TARGETS";

export function allowPrivateFromEnv(env: Record<string, string | undefined> = process.env): boolean {
  return env[ALLOW_PRIVATE_ENV] === "1";
}

/**
 * The range an address is in (`unicast` for a public address), after unwrapping an
 * IPv4-mapped IPv6 address; `invalid` when it is not an IP address.
 */
export function addressRange(address: string): string {
  const bare = address.replace(/^\[|\]$/g, "");
  if (!ipaddr.isValid(bare)) return "invalid";
  // `process` turns ::ffff:a.b.c.d into a.b.c.d, so a mapped loopback is loopback.
  return ipaddr.process(bare).range();
}

/** True for a public unicast address: the only kind a target may be read from by default. */
export function isPublicAddress(address: string): boolean {
  return addressRange(address) === "unicast";
}

/** Decides, for each resolved address, whether a connection to it is allowed. */
export type AddressPolicy = (address: string) => boolean;

/** The policy in force: public addresses only, unless private targets are allowed. */
export function addressPolicy(allowPrivate: boolean): AddressPolicy {
  return allowPrivate ? (address) => addressRange(address) !== "invalid" : isPublicAddress;
}
