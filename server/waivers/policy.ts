/**
 * The waiver policy of a profile (`waivers` in profile.yaml, docs/profiles.md) and who it
 * lets approve. The requester never approves their own waiver, whatever the policy says.
 */
import type { Actor } from "../auth/actor.js";
import type { Profile } from "../../core/profile/schema.js";

export type Approvers = "members" | "maintainers" | "admins";

export interface WaiverPolicy {
  approvals: number;
  allowMust: boolean;
  approvers: Approvers;
}

export const DEFAULT_POLICY: WaiverPolicy = { approvals: 1, allowMust: true, approvers: "members" };

export function policyOf(profile: Profile | undefined): WaiverPolicy {
  const w = profile?.waivers;
  if (!w) return DEFAULT_POLICY;
  return { approvals: w.approvals, allowMust: w.allow_must, approvers: w.approvers ?? "members" };
}

/** The policy in words, as a waiver shows it. */
export function policyText(p: { approvals: number; approvers: string }): string {
  if (p.approvals === 0) return "no approval needed";
  const who =
    p.approvers === "admins"
      ? "an admin"
      : p.approvers === "maintainers"
        ? "a maintainer of the profile or an admin"
        : "a member";
  return `${p.approvals} approval${p.approvals === 1 ? "" : "s"} by ${who}, never the requester`;
}

/** Whether a person in this role may approve under `approvers` (the requester check is separate). */
export function mayApprove(
  approvers: string,
  person: Pick<Actor, "id" | "kind" | "role">,
  maintainers: readonly string[],
): boolean {
  if (person.kind !== "user") return false;
  if (person.role !== "admin" && person.role !== "member") return false;
  if (approvers === "admins") return person.role === "admin";
  if (approvers === "maintainers") return person.role === "admin" || maintainers.includes(person.id);
  return true;
}
