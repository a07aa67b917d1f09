/**
 * POST /docs/{docId}/verification-waivers: ask to excuse one trace ID in one code repo or
 * folder (server/verify/waivers.ts). The route is declared with the other waivers
 * (routes/waivers/index.ts) and built here.
 */
import { caller } from "../../auth/actor.js";
import { decide } from "../../auth/permissions.js";
import { deps, type Router } from "../../http.js";
import { addInboxItems } from "../../inbox/items.js";
import { ApiError } from "../../errors.js";
import { requestVerificationWaiver as request, verificationWaiverView } from "../../verify/waivers.js";
import type { requestVerificationWaiver } from "../waivers/index.js";

export function verificationWaiverRoute(r: Router, route: typeof requestVerificationWaiver): void {
  r.openapi(route, async (c) => {
    const { docId } = c.req.valid("param");
    const body = c.req.valid("json");
    const d = deps(c);
    const who = caller(c);
    const rec = await d.store.doc(docId);
    if (body.run_id) {
      const run = await d.verify.get(body.run_id);
      const name = (run.target as { name?: string }).name;
      if (run.docId !== docId || name !== body.repo)
        throw new ApiError(
          "validation_failed",
          `run ${body.run_id} is not a verification of this doc in ${body.repo}`,
          { errors: [{ field: "body.run_id", message: "not a run of this doc in this repo" }] },
        );
    }
    const row = await request(d.db, {
      docId,
      bundleId: rec.bundle.id,
      traceId: body.trace_id,
      repo: body.repo,
      reason: body.reason,
      runId: body.run_id,
      by: who.id,
      now: d.clock.now(),
    });
    // The bundle's author decides (an admin too); the inbox link opens the run it came from.
    if (rec.bundle.createdBy)
      await addInboxItems(
        d.db,
        [
          {
            userId: rec.bundle.createdBy,
            kind: "waiver_to_decide",
            summary: `${who.name} asks to waive ${body.trace_id} in ${body.repo}`,
            bundleId: rec.bundle.id,
            docId,
            waiverId: row.id,
            runId: body.run_id ?? null,
            actorId: who.id,
          },
        ],
        d.clock.now(),
      );
    const mayApprove = decide({
      mode: d.mode,
      actor: who,
      operation: "POST /waivers/{waiverId}/approve",
    }).allowed;
    return c.json(verificationWaiverView(row, { id: who.id, mayApprove, alone: d.mode === "local" }), 201);
  });
}
