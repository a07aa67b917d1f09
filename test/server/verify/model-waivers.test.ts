/**
 * Verification with a model (a real local OpenAI-compatible server): each code target is
 * checked against the requirement (`holds`, `fault`); verification waivers excuse one
 * trace ID in one repo once approved, never in the sidecar; a run taken from a handoff
 * that finds a MUST ID missing opens a blocking thread and says so.
 */
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DB_KINDS, json, makeTestApp, problem, type TestApp } from "../../helpers/app.js";
import { startFakeOpenAI, type FakeOpenAI } from "../../helpers/fake-openai.js";
import { decideVerificationWaiver } from "../../../server/verify/waivers.js";
import type { BlockingThreadInput } from "../../../server/verify/ports.js";
import { SHOP_CODE, makeRepo } from "./git-helpers.js";
import type { Run } from "./verification.test.js";

const FIXTURE = resolve(import.meta.dirname, "../../../fixtures/verify");

for (const kind of DB_KINDS) {
  describe(`verification with a model, waivers, blocking (${kind})`, () => {
    let t: TestApp;
    let fake: FakeOpenAI;
    let docId: string;
    let dir: string;

    beforeAll(async () => {
      fake = await startFakeOpenAI();
      dir = makeRepo(SHOP_CODE);
    });
    afterAll(async () => {
      await fake.close();
      rmSync(dir, { recursive: true, force: true });
    });
    beforeEach(async () => {
      t = await makeTestApp({ kind, fixture: FIXTURE });
      await t.runs.idle();
      const list = await json<{ items: { slug: string; docs: { id: string }[] }[] }>(
        t.req("GET", "/bundles"),
      );
      docId = list.items.find((b) => b.slug === "giftcards")!.docs[0]!.id;
    }, 120_000);
    afterEach(() => t?.close());

    async function verify(body: Record<string, unknown>): Promise<Run> {
      const res = await t.req("POST", `/docs/${docId}/verifications`, body);
      const text = await res.text();
      expect(res.status, text).toBe(202);
      await t.services.verify.idle();
      return json<Run>(t.req("GET", `/verifications/${(JSON.parse(text) as Run).id}`));
    }

    it("checks each code target against the requirement: holds or fault", async () => {
      const backend = await json<{ id: string }>(
        t.req("POST", "/admin/backends", {
          kind: "provider_1",
          name: "fake",
          base_url: fake.baseUrl,
          secret: "sk-test-verify-1234",
        }),
      );
      expect(
        (await t.req("PUT", "/admin/roles/reviewer", { backend_id: backend.id, model: "gpt-check" })).status,
      ).toBe(200);
      fake.handler = (req) =>
        req.prompt.includes("Requirement REQ-003")
          ? { json: { holds: false, fault: "locks for 24 hours but never counts wrong PINs" } }
          : { json: { holds: true, fault: "" } };
      const run = await verify({ target: dir });
      expect(run.check).toBe("model");
      const o = new Map(run.outcomes.map((x) => [x.trace_id, x]));
      expect(o.get("REQ-001")).toMatchObject({ outcome: "implemented" });
      expect(o.get("REQ-001")!.targets[0]).toMatchObject({ holds: true });
      expect(o.get("REQ-003")).toMatchObject({ outcome: "fault" });
      expect(o.get("REQ-003")!.targets[0]).toMatchObject({
        holds: false,
        fault: "locks for 24 hours but never counts wrong PINs",
      });
      // The model read the code around the hit and the requirement's text; tests are never sent.
      const asked = fake.requests.filter((r) => r.path.endsWith("/chat/completions"));
      expect(asked).toHaveLength(2);
      expect(asked.some((r) => r.prompt.includes("if (!/^\\d{16}$/.test(number)"))).toBe(true);
      expect(asked.every((r) => !r.prompt.includes("balance.test.ts"))).toBe(true);
      expect(run.verdict).toBe("not_verified");
      fake.handler = undefined;
    });

    it("an approved verification waiver excuses one trace ID in that repo only; never in the sidecar", async () => {
      const first = await verify({ target: dir });
      const res = await t.req("POST", `/docs/${docId}/verification-waivers`, {
        trace_id: "REQ-002",
        repo: dir,
        reason: "The balance is shown by the payments team's widget, not in this repo.",
        run_id: first.id,
      });
      const text = await res.text();
      expect(res.status, text).toBe(201);
      const w = JSON.parse(text) as Record<string, unknown>;
      expect(w).toMatchObject({
        status: "requested",
        approvals_needed: 1,
        can_decide: true,
        verification: { trace_id: "REQ-002", repo: dir, run_id: first.id },
      });
      // Requested only: not yet an excuse.
      expect((await verify({ target: dir })).outcomes.find((o) => o.trace_id === "REQ-002")!.outcome).toBe(
        "missing",
      );
      await decideVerificationWaiver(t.database.db, w.id as string, {
        approve: true,
        by: "admin",
        now: new Date(),
        selfAllowed: true,
      });
      const after = await verify({ target: dir });
      expect(after.outcomes.find((o) => o.trace_id === "REQ-002")).toMatchObject({
        outcome: "waived",
        provenance: "waiver",
      });
      // Another folder is not excused.
      const other = makeRepo(SHOP_CODE);
      expect((await verify({ target: other })).outcomes.find((o) => o.trace_id === "REQ-002")!.outcome).toBe(
        "missing",
      );
      // No sidecar file was written next to the spec.
      expect(readdirSync(join(t.root, "giftcards")).sort()).toEqual(["assets", "prd.md"]);
      expect(existsSync(join(t.root, "giftcards", ".spec-review"))).toBe(false);

      await problem(
        await t.req("POST", `/docs/${docId}/verification-waivers`, {
          trace_id: "REQ-002",
          repo: dir,
          reason: "Shown by the payments widget, again please.",
        }),
        409,
        "verification_waiver_exists",
      );
      await problem(
        await t.req("POST", `/docs/${docId}/verification-waivers`, {
          trace_id: "REQ-004",
          repo: dir,
          reason: "too short",
        }),
        400,
        "validation_failed",
      );
      await problem(
        await t.req("POST", `/docs/${docId}/verification-waivers`, {
          trace_id: "REQ-004",
          repo: other,
          reason: "The receipt email is out of scope for this repo.",
          run_id: first.id,
        }),
        400,
        "validation_failed",
      );
    });

    it("a run from a handoff that finds a MUST ID missing opens a blocking thread and flags it", async () => {
      const opened: BlockingThreadInput[] = [];
      t.services.verify.ports.threads = {
        openBlocking: (input) => {
          opened.push(input);
          return Promise.resolve({ threadId: "0f7e2d1c-3b4a-4c5d-8e9f-a0b1c2d3e4f5" });
        },
      };
      const packet = await json<{ handoff_id: string }>(t.req("POST", `/docs/${docId}/handoff`, {}));
      const run = await verify({ target: dir, handoff_id: packet.handoff_id });
      expect(run.opened_blocking_thread).toBe(true);
      expect(opened).toHaveLength(1);
      expect(opened[0]).toMatchObject({ docId, handoffId: packet.handoff_id, handoffVersion: 1 });
      expect(opened[0]!.body).toContain("REQ-002");
      expect(opened[0]!.body).not.toContain("REQ-004"); // SHOULD: not blocking
      // Without a handoff, nothing is opened.
      expect((await verify({ target: dir })).opened_blocking_thread).toBe(false);
      expect(opened).toHaveLength(1);
    });
  });
}
