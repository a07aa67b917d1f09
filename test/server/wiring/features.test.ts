/**
 * Features built apart meet where a user sees them: a verification waiver is listed,
 * approved and rejected through the waiver endpoints, and a thread someone answered
 * becomes the doc's next action ("decide") for the person who opened it.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DB_KINDS, json, makeTestApp, problem, type TestApp } from "../../helpers/app.js";
import type { SpecDoc } from "../../helpers/types.js";
import { docBySlug, payoutsFolder } from "../threads/fixture.js";

interface Waiver {
  id: string;
  status: string;
  can_decide?: boolean;
  rejection_reason?: string;
  verification?: { trace_id: string; repo: string };
}

describe.each(DB_KINDS)("features wired together on %s", (kind) => {
  let t: TestApp;
  let doc: SpecDoc;

  beforeEach(async () => {
    t = await makeTestApp({ kind, fixture: payoutsFolder() });
    await t.runs.idle();
    doc = await docBySlug(t, "payouts");
  });
  afterEach(async () => {
    await t.close();
  });

  const askWaiver = async (traceId: string) => {
    const res = await t.req("POST", `/docs/${doc.id}/verification-waivers`, {
      trace_id: traceId,
      repo: "acme/payouts",
      reason: "Built by the ledger team in their own service; verified there.",
    });
    expect(res.status, await res.clone().text()).toBe(201);
    return json<Waiver>(res);
  };

  it("lists, approves and rejects verification waivers through the waiver endpoints", async () => {
    const first = await askWaiver("PAY-1");
    const second = await askWaiver("PAY-2");
    const listed = await json<{ items: Waiver[] }>(t.req("GET", `/docs/${doc.id}/waivers`));
    expect(
      listed.items.filter((w) => w.verification).map((w) => [w.verification!.trace_id, w.status]),
    ).toEqual(
      expect.arrayContaining([
        ["PAY-1", "requested"],
        ["PAY-2", "requested"],
      ]),
    );
    // Local mode: the local admin is the only person, so they decide their own request.
    expect(listed.items.find((w) => w.id === first.id)!.can_decide).toBe(true);
    const approved = await json<Waiver>(t.req("POST", `/waivers/${first.id}/approve`));
    expect(approved).toMatchObject({ id: first.id, status: "approved" });
    const rejected = await json<Waiver>(
      t.req("POST", `/waivers/${second.id}/reject`, { reason: "The ledger service does not exist yet." }),
    );
    expect(rejected).toMatchObject({
      status: "rejected",
      rejection_reason: "The ledger service does not exist yet.",
    });
    // Deciding twice is refused; nothing changes.
    await problem(await t.req("POST", `/waivers/${first.id}/approve`), 403, "forbidden");
    const after = await json<{ items: Waiver[] }>(t.req("GET", `/docs/${doc.id}/waivers`));
    expect(after.items.find((w) => w.id === first.id)!.status).toBe("approved");
    await problem(
      await t.req("POST", `/waivers/00000000-0000-4000-8000-000000000000/approve`),
      404,
      "not_found",
    );
  });

  it("makes an answered thread the next action of the person who opened it", async () => {
    const res = await t.req("POST", `/docs/${doc.id}/threads`, {
      anchor_kind: "section",
      anchor: { heading_path: [] },
      addressed_to: "humans",
      title: "Which currency do payouts use?",
      body: "EUR only, or the seller's currency?",
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const thread = await json<{ id: string }>(res);
    const before = await json<{ next_action?: { kind: string } }>(t.req("GET", `/docs/${doc.id}`));
    expect(before.next_action?.kind).not.toBe("decide");
    await json(
      t.req("POST", `/threads/${thread.id}/messages`, { body: "The seller's currency, converted daily." }),
    );
    const after = await json<{ next_action?: { kind: string; sentence: string } }>(
      t.req("GET", `/docs/${doc.id}`),
    );
    expect(after.next_action).toMatchObject({
      kind: "decide",
      sentence: expect.stringContaining("Which currency do payouts use?"),
    });
  });
});
