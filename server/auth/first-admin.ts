/**
 * The first start of a hosted workspace: with nobody signed up yet, one single-use invite
 * with the admin role, printed as `admin invite: <url>`. `spec-review admin invite --role
 * admin` makes another when this one is lost.
 */
import type { Deps } from "../deps.js";

/** Makes the first admin invite when the workspace has no user; returns the line to print, or undefined. */
export async function ensureFirstAdminInvite(
  services: Pick<Deps, "accounts" | "mode">,
): Promise<string | undefined> {
  if (services.mode !== "hosted" || (await services.accounts.hasUsers())) return undefined;
  const invite = await services.accounts.createInvite("admin", "first start");
  return `admin invite: ${invite.url}`;
}
