/** Invites and reset links (admins; hosted mode): the handlers of the routes defined in workspace.ts. */
import { caller } from "../../auth/actor.js";
import { deps, type Router } from "../../http.js";
import { hostedOnly } from "../auth/index.js";
import { createInvite, createResetLink, listInvites, revokeInvite } from "./workspace.js";

export function mountInvites(r: Router): void {
  // Local mode has no accounts: its list is empty, and making links is refused.
  r.openapi(listInvites, async (c) =>
    c.json({ items: deps(c).mode === "hosted" ? await deps(c).accounts.listInvites() : [] }, 200),
  );
  r.openapi(createInvite, async (c) => {
    hostedOnly(c);
    return c.json(await deps(c).accounts.createInvite(c.req.valid("json").role, caller(c).id), 201);
  });
  r.openapi(revokeInvite, async (c) => {
    hostedOnly(c);
    return c.json(await deps(c).accounts.revokeInvite(c.req.valid("param").inviteId), 200);
  });
  r.openapi(createResetLink, async (c) => {
    hostedOnly(c);
    return c.json(await deps(c).accounts.createResetLink(c.req.valid("json").user_id, caller(c).id), 201);
  });
}
