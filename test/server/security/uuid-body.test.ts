/**
 * Issue 9: UUIDs compare case-insensitively, in a JSON body too. An id written in upper
 * case names the same thing as in lower case (the schemas' shared `Uuid` reads it in
 * lower case), on every operation taking ids in its body.
 */
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, makeTestApp, type TestApp } from "../../helpers/app.js";
import type { BundleList } from "../../helpers/types.js";
import { Uuid } from "../../../server/schemas/common.js";

const DEMO = resolve(import.meta.dirname, "../../../fixtures/demo");

describe("ids in a JSON body compare case-insensitively", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp({ fixture: DEMO });
  });
  afterAll(async () => {
    await t.close();
  });

  it("PUT /admin/roles/{role}: an upper-case backend_id assigns that backend", async () => {
    const created = await t.req("POST", "/admin/backends", {
      kind: "provider_1",
      name: "Upper case test",
      base_url: "http://127.0.0.1:9/v1",
    });
    expect(created.status).toBe(201);
    const backend = (await created.json()) as { id: string };
    const upper = backend.id.toUpperCase();
    expect(upper).not.toBe(backend.id);
    const role = await json<{ role: string; backend_id: string }>(
      t.req("PUT", "/admin/roles/reader", { backend_id: upper, model: "m" }),
    );
    // Answered, and stored, in the one form ids have.
    expect(role).toMatchObject({ role: "reader", backend_id: backend.id });
    const roles = await json<{ items: Array<{ role: string; backend_id?: string }> }>(
      t.req("GET", "/admin/roles"),
    );
    expect(roles.items.find((r) => r.role === "reader")?.backend_id).toBe(backend.id);
    // The backend counts the role as its own, so it cannot be deleted while used.
    expect((await t.req("DELETE", `/admin/backends/${upper}`)).status).toBe(409);
  });

  it("POST /docs/{docId}/diff/summary: an upper-case version id is the same version", async () => {
    const list = await json<BundleList>(t.req("GET", "/bundles"));
    const doc = list.items.find((b) => b.slug === "checkout")!.docs[0]!;
    const summary = async (from: string) => {
      const res = await t.req("POST", `/docs/${doc.id.toUpperCase()}/diff/summary`, { from });
      return { status: res.status, body: (await res.json()) as { code?: string } };
    };
    const lower = await summary(doc.current_version.id);
    const upper = await summary(doc.current_version.id.toUpperCase());
    expect(upper.status).toBe(lower.status);
    expect(upper.body.code).toBe(lower.body.code);
    // A version that does not exist is still refused, in either case.
    const none = await summary("0B9E4E7A-1C2D-4E5F-8A9B-0C1D2E3F4A5B");
    expect(none.status).toBeGreaterThanOrEqual(400);
    expect(none.body.code).not.toBe(lower.body.code);
  });

  it("every id field of a body reads an upper-case UUID in lower case", () => {
    // The database compares uuid columns case-insensitively already; code comparing ids
    // (maps, ===) sees one form only because the schemas hand it lower case.
    expect(Uuid.parse("0B9E4E7A-1C2D-4E5F-8A9B-0C1D2E3F4A5B")).toBe("0b9e4e7a-1c2d-4e5f-8a9b-0c1d2e3f4a5b");
    expect(Uuid.optional().parse(undefined)).toBeUndefined();
  });

  it("refuses a value that is not a UUID in any case", async () => {
    const res = await t.req("PUT", "/admin/roles/judge", { backend_id: "NOT-A-UUID", model: "m" });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { code: string }).code).toBe("validation_failed");
  });
});
