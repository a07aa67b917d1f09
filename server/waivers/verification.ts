/**
 * Verification waivers (server/verify/waivers.ts, never in the sidecar) go through the
 * same waiver endpoints as finding waivers: listed with the doc's waivers, approved and
 * rejected by waiver id. The approve permission of the route decides who may; the
 * requester never decides their own, but in local mode, where the local admin is the only
 * person.
 */
import type { Actor } from "../auth/actor.js";
import { decide } from "../auth/permissions.js";
import type { Deps } from "../deps.js";
import {
  decideVerificationWaiver,
  verificationWaiver,
  verificationWaiversOf,
  verificationWaiverView,
} from "../verify/waivers.js";

function callerOf(d: Pick<Deps, "mode">, actor: Actor | undefined) {
  const mayApprove = decide({ mode: d.mode, actor, operation: "POST /waivers/{waiverId}/approve" }).allowed;
  return { id: actor?.id ?? "", mayApprove, alone: d.mode === "local" };
}

/** The doc's verification waivers as the Waiver schema shows them, newest first. */
export async function verificationWaiverViews(d: Pick<Deps, "db" | "mode">, docId: string, actor?: Actor) {
  const rows = await verificationWaiversOf(d.db, docId);
  return rows.map((row) => verificationWaiverView(row, callerOf(d, actor)));
}

/** Approves or rejects a verification waiver; undefined when the id is not one. */
export async function decideVerification(
  d: Pick<Deps, "db" | "mode" | "clock">,
  waiverId: string,
  actor: Actor,
  approve: boolean,
  reason?: string,
) {
  if (!(await verificationWaiver(d.db, waiverId))) return undefined;
  const row = await decideVerificationWaiver(d.db, waiverId, {
    approve,
    by: actor.id,
    ...(reason !== undefined ? { reason } : {}),
    now: d.clock.now(),
    selfAllowed: d.mode === "local",
  });
  return verificationWaiverView(row, callerOf(d, actor));
}
