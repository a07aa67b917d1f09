/** The caller's inbox: list, mark everything seen, mark one item read (server/waivers/inbox.ts). */
import { caller } from "../../auth/actor.js";
import { deps, type Router } from "../../http.js";
import type { getInbox, markInboxItemRead, markInboxSeen } from "./index.js";

export function inboxRoutes(
  r: Router,
  routes: {
    getInbox: typeof getInbox;
    markInboxSeen: typeof markInboxSeen;
    markInboxItemRead: typeof markInboxItemRead;
  },
): void {
  r.openapi(routes.getInbox, async (c) => {
    const { limit, cursor, archived } = c.req.valid("query");
    const page = await deps(c).waivers.inbox.list(caller(c).id, {
      ...(limit !== undefined ? { limit } : {}),
      ...(cursor !== undefined ? { cursor } : {}),
      archived: archived === "true",
    });
    return c.json(page, 200);
  });
  r.openapi(routes.markInboxSeen, async (c) => {
    await deps(c).waivers.inbox.seen(caller(c).id);
    return c.body(null, 204);
  });
  r.openapi(routes.markInboxItemRead, async (c) => {
    const { id } = c.req.valid("json");
    await deps(c).waivers.inbox.read(caller(c).id, id);
    return c.body(null, 204);
  });
}
