/**
 * What a built operation cannot do answers a 4xx with a code of its own, never 501
 * `not_implemented` (which is left for an operation of the contract not built yet):
 * model backends and roles on a server without a secret key, and deleting or creating a
 * bundle of a repohost source (its files live in its repo). The DELETE of a repohost
 * bundle through the API: test/server/repohost/sources.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../server/app.js";
import { ApiError } from "../../server/errors.js";
import { noModels } from "../../server/models/types.js";
import { CompositeStore } from "../../server/repohost/composite.js";
import { makeTestApp, problem, type TestApp } from "../helpers/app.js";
import { ACTORS } from "../helpers/actors.js";

describe("model backends and roles on a server without a secret key", () => {
  let t: TestApp;
  let app: ReturnType<typeof createApp>;
  beforeAll(async () => {
    t = await makeTestApp();
    // The graph of a server that could not seal backend secrets: no model service.
    app = createApp({ ...t.services, models: noModels });
  });
  afterAll(async () => {
    await t.close();
  });

  const ID = "00000000-0000-4000-8000-000000000000";
  it.each([
    ["GET", "/admin/backends", undefined],
    [
      "POST",
      "/admin/backends",
      { kind: "provider_1", name: "x", base_url: "http://127.0.0.1:9", secret: "sk-1" },
    ],
    ["PUT", `/admin/backends/${ID}`, { kind: "provider_1", name: "y", base_url: "http://127.0.0.1:9" }],
    ["DELETE", `/admin/backends/${ID}`, undefined],
    ["POST", `/admin/backends/${ID}/test`, { model: "m" }],
    ["GET", "/admin/roles", undefined],
    ["PUT", "/admin/roles/reviewer", { backend_id: ID, model: "m" }],
    ["DELETE", "/admin/roles/reviewer", undefined],
  ] as const)("%s %s answers 409 secret_key_missing", async (method, path, body) => {
    const init: RequestInit = { method };
    if (body) {
      init.body = JSON.stringify(body);
      init.headers = { "content-type": "application/json" };
    }
    const res = await app.request(`/api/v1${path}`, init);
    const p = await problem(res, 409, "secret_key_missing");
    expect(p.detail).toContain("SPEC_REVIEW_SECRET_KEY");
  });

  it("still answers what needs no secret key", async () => {
    const res = await app.request("/api/v1/admin/presets");
    expect(res.status).toBe(200);
  });
});

describe("bundles of a repohost source", () => {
  let t: TestApp;
  beforeAll(async () => {
    // No source is read: the store's refusals do not reach the repo host.
    t = await makeTestApp({
      mode: "hosted",
      actor: ACTORS.admin,
      repohost: { apiUrl: "http://127.0.0.1:9/api/v3" },
    });
  });
  afterAll(async () => {
    await t.close();
  });

  it("are neither deleted nor made by the service: 409 with a code of their own", async () => {
    expect(t.store).toBeInstanceOf(CompositeStore);
    const repohost = (t.store as CompositeStore).repohost;
    const deleting = repohost.deleteBundle();
    await expect(deleting).rejects.toBeInstanceOf(ApiError);
    await expect(deleting).rejects.toMatchObject({ code: "repohost_bundle_in_repo", status: 409 });
    const adding = repohost.addFolder();
    await expect(adding).rejects.toMatchObject({ code: "repohost_bundle_create", status: 409 });
    // New bundles go to the service's own store: POST /bundles never writes into a source.
    const res = await t.req("POST", "/bundles", { profile: "prd", name: "plans/new-one" });
    expect(res.status, await res.clone().text()).toBe(201);
  });
});
