/** Administration operations under /admin (contract section 5): one router for all of them. */
import type { Context } from "hono";
import { createRouter, deps, type Env, type Router } from "../../http.js";
import { ApiError, ValidationError } from "../../errors.js";
import { DbBudget } from "../../models/budget.js";
import { isRoleName, ModelService, presetViews, ROLE_NAMES } from "../../models/service.js";
import type { RoleName } from "../../models/types.js";
import { repohostOf } from "../../repohost/routes.js";
import {
  getRepohostConnection,
  registerMcpRoutes,
  removeRepohostToken,
  setRepohostToken,
} from "./connections.js";
import {
  assignRole,
  createBackend,
  deleteBackend,
  listBackends,
  listPresets,
  listRoles,
  testBackend,
  unassignRole,
  updateBackend,
} from "./models.js";
import { getBudget, getSettings, putBudget, putSettings } from "./workspace.js";
import { mountInvites } from "./invites.js";

/** The backends and roles service; a server started without a secret key has none. */
function models(c: Context<Env>): ModelService {
  const m = deps(c).models;
  if (m instanceof ModelService) return m;
  throw new ApiError(
    "secret_key_missing",
    "model backends are not available: this server has no secret key configured (SPEC_REVIEW_SECRET_KEY)",
  );
}

function budget(c: Context<Env>): DbBudget {
  const b = deps(c).budget;
  return b instanceof DbBudget ? b : new DbBudget(deps(c).db);
}

function roleParam(role: string): RoleName {
  if (isRoleName(role)) return role;
  const message = `no role ${JSON.stringify(role)}; roles are ${ROLE_NAMES.join(", ")}`;
  throw new ValidationError(message, [{ field: "path.role", message }]);
}

export default function adminRoutes(): Router {
  const r = createRouter();
  r.openapi(getSettings, async (c) => c.json(await deps(c).settings.read(), 200));
  r.openapi(putSettings, async (c) =>
    c.json(await deps(c).settings.write(c.req.valid("json"), deps(c).clock.now()), 200),
  );
  mountInvites(r);
  r.openapi(getBudget, async (c) => c.json(await budget(c).status(deps(c).clock.now()), 200));
  r.openapi(putBudget, async (c) => {
    const now = deps(c).clock.now();
    await budget(c).setLimit(c.req.valid("json").limit_tokens, now);
    return c.json(await budget(c).status(now), 200);
  });
  r.openapi(listBackends, async (c) => c.json({ items: await models(c).listBackends() }, 200));
  r.openapi(createBackend, async (c) => c.json(await models(c).createBackend(c.req.valid("json")), 201));
  r.openapi(updateBackend, async (c) =>
    c.json(await models(c).updateBackend(c.req.valid("param").backendId, c.req.valid("json")), 200),
  );
  r.openapi(deleteBackend, async (c) => {
    await models(c).deleteBackend(c.req.valid("param").backendId);
    return c.body(null, 204);
  });
  r.openapi(testBackend, async (c) =>
    c.json(await models(c).testBackend(c.req.valid("param").backendId, c.req.valid("json").model), 200),
  );
  r.openapi(listPresets, (c) => c.json({ items: presetViews() }, 200));
  r.openapi(listRoles, async (c) => c.json({ items: await models(c).listRoles() }, 200));
  r.openapi(assignRole, async (c) =>
    c.json(await models(c).assignRole(roleParam(c.req.valid("param").role), c.req.valid("json")), 200),
  );
  r.openapi(unassignRole, async (c) => {
    await models(c).unassignRole(roleParam(c.req.valid("param").role));
    return c.body(null, 204);
  });
  registerMcpRoutes(r);
  r.openapi(getRepohostConnection, async (c) => c.json(await repohostOf(c).connection.view(), 200));
  r.openapi(setRepohostToken, async (c) => {
    const body = c.req.valid("json");
    return c.json(await repohostOf(c).connection.set(body.token, body.api_url), 200);
  });
  r.openapi(removeRepohostToken, async (c) => {
    await repohostOf(c).connection.remove();
    return c.body(null, 204);
  });
  return r;
}
