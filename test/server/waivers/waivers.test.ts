/**
 * Waivers in hosted mode with several people: request (a reason of 20 characters or more),
 * the profile's policy, approval by someone else, the signed sidecar as a new version, the
 * verdict that stops counting the finding, a hand-edited sidecar entry that becomes a
 * request, rejection with a reason the requester reads, and every bad input.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { eq } from "drizzle-orm";
import { waivers } from "../../../server/db/schema.js";
import { DB_KINDS, json, problem } from "../../helpers/app.js";
import type { FileList, Items, Version } from "../../helpers/types.js";
import {
  ADR_WITH_TBD,
  bundleWith,
  findingsOf,
  hostedWorkspace,
  readDoc,
  type InboxView,
  type WaiverView,
  type Workspace,
} from "./helpers.js";

const REASON = "The retention of old columns is decided per service by its owners in Q3.";

describe.each(DB_KINDS)("waivers in hosted mode on %s", (kind) => {
  let w: Workspace;
  beforeEach(async () => {
    w = await hostedWorkspace(kind);
  }, 180_000);
  afterEach(async () => {
    await w.t.close();
  });

  async function adrWithMust() {
    const doc = await bundleWith(w, "author", "decisions/utc", "adr", ADR_WITH_TBD);
    expect(doc.verdict).toMatchObject({ result: "not_build_ready", must: 1, waiver_count: 0 });
    const finding = (await findingsOf(w, doc)).find((f) => f.check_slug === "undecided")!;
    expect(finding.level).toBe("MUST");
    return { doc, finding };
  }

  // The bundle `decisions/utc` holds `utc.md`: its sidecar is `utc.review.yaml` beside it.
  const sidecarOf = async (docId: string) => {
    const path = (await readDoc(w, "author", docId)).path.replace(/\.md$/, ".review.yaml");
    const res = await w.req("author", "GET", `/docs/${docId}/files/content?path=${path}`);
    return res.status === 200 ? res.text() : undefined;
  };
  const waiversOf = async (docId: string, who: "author" | "reviewer" = "author") =>
    (await json<Items<WaiverView>>(w.req(who, "GET", `/docs/${docId}/waivers`))).items;

  it("a MUST finding waived: requested, approved by another member, signed into the sidecar, no longer counted", async () => {
    const { doc, finding } = await adrWithMust();
    expect(doc.path).toBe("utc.md");

    const res = await w.req("author", "POST", `/docs/${doc.id}/waivers`, {
      finding_id: finding.id,
      reason: REASON,
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const requested = await json<WaiverView>(res);
    expect(requested).toMatchObject({
      kind: "finding",
      status: "requested",
      finding_id: finding.id,
      check_slug: "undecided",
      reason: REASON,
      approvals_needed: 1,
      approvals: [],
      approvers: "members",
      can_decide: false,
      standalone: false,
      source: "service",
      created_by: w.ids.author,
      lapsed: false,
    });
    expect(requested.policy).toBe("1 approval by a member, never the requester");
    // The byte range of the Decision section in the current main doc.
    const bytes = Buffer.from(ADR_WITH_TBD.replace(/^/, ""));
    const section = bytes.subarray(requested.section!.start, requested.section!.end).toString();
    expect(section.startsWith("## Decision\r\n")).toBe(true);
    expect(section).toContain("TBD");

    // Who may decide sees it, and it waits in their inbox; the requester does not.
    expect((await waiversOf(doc.id, "reviewer"))[0]!.can_decide).toBe(true);
    const inbox = await json<InboxView>(w.req("reviewer", "GET", "/inbox"));
    expect(inbox.items).toEqual([
      expect.objectContaining({
        kind: "waiver_to_decide",
        waiver_id: requested.id,
        url: `/api/v1/docs/${doc.id}/waivers`,
        read: false,
      }),
    ]);
    expect(inbox.items[0]!.sentence).toContain("Aki Author asks to waive finding undecided");
    expect((await json<InboxView>(w.req("author", "GET", "/inbox"))).items).toEqual([]);
    expect((await json<InboxView>(w.req("viewer", "GET", "/inbox"))).items).toEqual([]);
    // The reviewer's next action on the doc is that waiver.
    const forReviewer = await readDoc(w, "reviewer", doc.id);
    expect(forReviewer.next_action).toMatchObject({ kind: "waiver", waiver_id: requested.id });
    const forAuthor = await readDoc(w, "author", doc.id);
    expect(forAuthor.next_action).toMatchObject({ kind: "fix", finding_id: finding.id });

    // The requester never approves their own; a viewer may not decide at all.
    await problem(await w.req("author", "POST", `/waivers/${requested.id}/approve`), 403, "own_waiver");
    await problem(await w.req("viewer", "POST", `/waivers/${requested.id}/approve`), 403, "forbidden");
    expect(await sidecarOf(doc.id)).toBeUndefined();

    const approved = await json<WaiverView>(
      w.req("reviewer", "POST", `/waivers/${requested.id}/approve`, {}),
    );
    expect(approved).toMatchObject({
      status: "approved",
      approvals: [{ by: w.ids.reviewer, name: "Rui Reviewer" }],
      can_decide: false,
    });
    // Approving twice: the waiver is no longer open.
    await problem(await w.req("admin", "POST", `/waivers/${requested.id}/approve`), 409, "waiver_not_open");

    // The sidecar is a new version by the approver, each entry signed.
    const versions = (await json<Items<Version>>(w.req("author", "GET", `/docs/${doc.id}/versions`))).items;
    expect(versions[0]).toMatchObject({ created_by: w.ids.reviewer });
    expect(versions[0]!.message).toMatch(/^spec-review sidecar: approved waiver of undecided/);
    const sidecar = (await sidecarOf(doc.id))!;
    expect(sidecar).toContain(`id: ${requested.id}`);
    expect(sidecar).toContain(`finding: ${finding.id}`);
    expect(sidecar).toContain("check: undecided");
    expect(sidecar).toMatch(/signature: v1:[\w-]{43}/);
    expect(sidecar).toContain("approved_by:\n      - Rui Reviewer");

    // The verdict of that version counts the waiver, not the finding.
    const after = await readDoc(w, "author", doc.id);
    expect(after.verdict).toMatchObject({ result: "build_ready", must: 0, waiver_count: 1 });
    expect(after.next_action?.kind).not.toBe("fix");

    // A database restored from an older backup: the signed entry brings the waiver back on the next version.
    await w.t.database.db.delete(waivers).where(eq(waivers.id, requested.id));
    const edit = await w.req(
      "author",
      "PUT",
      `/docs/${doc.id}/files/content?path=utc.md&base_version=${after.current_version.id}`,
      ADR_WITH_TBD.replace("one service per sprint", "two services per sprint"),
    );
    expect(edit.status).toBe(200);
    let back: WaiverView[] = [];
    for (let i = 0; i < 40 && back.length === 0; i++) {
      back = await waiversOf(doc.id);
      if (back.length === 0) await new Promise((r) => setTimeout(r, 25));
    }
    expect(back).toMatchObject([{ id: requested.id, status: "approved", source: "sidecar", reason: REASON }]);
    expect((await readDoc(w, "author", doc.id)).verdict).toMatchObject({
      result: "build_ready",
      waiver_count: 1,
    });
  });

  it("a hand-edited sidecar entry is not honoured: it becomes a request that says so, and counts once approved", async () => {
    const { doc, finding } = await adrWithMust();
    const created = await json<WaiverView>(
      w.req("author", "POST", `/docs/${doc.id}/waivers`, { finding_id: finding.id, reason: REASON }),
    );
    await w.req("reviewer", "POST", `/waivers/${created.id}/approve`);
    const signed = (await sidecarOf(doc.id))!;
    // Someone widens the reason by hand in a pull request: the signature no longer matches.
    const head = (await readDoc(w, "author", doc.id)).current_version.id;
    const edited = signed.replace(REASON, `${REASON} Also approved by the CTO.`);
    const put = await w.req(
      "author",
      "PUT",
      `/docs/${doc.id}/files/content?path=utc.review.yaml&base_version=${head}`,
      edited,
    );
    expect(put.status).toBe(200);
    const now = await readDoc(w, "author", doc.id);
    expect(now.verdict).toMatchObject({ result: "not_build_ready", must: 1, waiver_count: 0 });
    const still = (await findingsOf(w, now)).find((f) => f.check_slug === "undecided")!;
    expect(still.message).toContain("is written in utc.review.yaml but not approved through spec-review");

    const list = await waiversOf(doc.id);
    // The signed entry left the file (withdrawn by whoever wrote that version); the typed one is a request.
    expect(list.find((x) => x.id === created.id)).toMatchObject({
      status: "withdrawn",
      withdrawn_by: w.ids.author,
    });
    const request = list.find((x) => x.source === "sidecar")!;
    expect(request).toMatchObject({
      status: "requested",
      reason: `${REASON} Also approved by the CTO.`,
      created_by: "sidecar:Aki Author",
      check_slug: "undecided",
    });
    // It reaches the people who may decide.
    const inbox = await json<InboxView>(w.req("admin", "GET", "/inbox"));
    expect(inbox.items.some((i) => i.waiver_id === request.id && i.kind === "waiver_to_decide")).toBe(true);

    // Approved through the service, it is written signed again and counts.
    const ok = await w.req("admin", "POST", `/waivers/${request.id}/approve`);
    expect(ok.status, await ok.clone().text()).toBe(200);
    const final = await readDoc(w, "author", doc.id);
    expect(final.verdict).toMatchObject({ result: "build_ready", waiver_count: 1 });
    const files = (await json<FileList>(w.req("author", "GET", `/docs/${doc.id}/files`))).items.map(
      (f) => f.path,
    );
    expect(files).toContain("utc.review.yaml");
  });

  it("a rejected waiver: the decision reason reaches the requester's inbox, the finding keeps counting", async () => {
    const { doc, finding } = await adrWithMust();
    const created = await json<WaiverView>(
      w.req("author", "POST", `/docs/${doc.id}/waivers`, { finding_id: finding.id, reason: REASON }),
    );
    await problem(
      await w.req("reviewer", "POST", `/waivers/${created.id}/reject`, { reason: "" }),
      400,
      "validation_failed",
    );
    await problem(
      await w.req("author", "POST", `/waivers/${created.id}/reject`, { reason: "no" }),
      403,
      "own_waiver",
    );
    const rejected = await json<WaiverView>(
      w.req("reviewer", "POST", `/waivers/${created.id}/reject`, {
        reason: "Decide retention before building.",
      }),
    );
    expect(rejected).toMatchObject({
      status: "rejected",
      rejection_reason: "Decide retention before building.",
    });
    const inbox = await json<InboxView>(w.req("author", "GET", "/inbox"));
    expect(inbox.items[0]).toMatchObject({ kind: "waiver_rejected", waiver_id: created.id });
    expect(inbox.items[0]!.sentence).toContain("Decide retention before building.");
    await problem(await w.req("admin", "POST", `/waivers/${created.id}/approve`), 409, "waiver_not_open");
    expect((await readDoc(w, "author", doc.id)).verdict).toMatchObject({ must: 1, waiver_count: 0 });
    expect(await sidecarOf(doc.id)).toBeUndefined();
    // A new request for the same finding is allowed once the old one is rejected.
    const again = await w.req("author", "POST", `/docs/${doc.id}/waivers`, {
      finding_id: finding.id,
      reason: REASON,
    });
    expect(again.status).toBe(201);
  });

  it("the profile's policy: two approvals by maintainers, and MUST findings not waivable", async () => {
    const adrYaml = readFileSync(resolve(import.meta.dirname, "../../../profiles/adr/profile.yaml"), "utf8");
    const template = readFileSync(resolve(import.meta.dirname, "../../../profiles/adr/template.md"), "utf8");
    const strict = adrYaml
      .replace(/^key: adr$/m, "key: adr-strict")
      .replace(
        "waivers:\n  approvals: 1\n  allow_must: true\n",
        "waivers:\n  approvals: 2\n  allow_must: false\n  approvers: maintainers\n",
      );
    expect(strict).toContain("approvers: maintainers");
    const made = await w.req("admin", "POST", "/profiles", { key: "adr-strict", yaml: strict, template });
    expect(made.status, await made.clone().text()).toBe(201);
    expect(
      (await w.req("admin", "PUT", "/profiles/adr-strict/maintainers", { maintainers: [w.ids.maintainer] }))
        .status,
    ).toBe(200);

    // A hedge in the Decision section is a SHOULD finding (`hedging`).
    const text = ADR_WITH_TBD.replace("type: adr", "type: adr-strict").replace(
      "in the display layer.",
      "in the display layer, for now.",
    );
    const doc = await bundleWith(w, "author", "decisions/strict", "adr-strict", text);
    const findings = await findingsOf(w, doc);
    const must = findings.find((f) => f.level === "MUST")!;
    const should = findings.find((f) => f.level === "SHOULD")!;
    expect(should).toBeDefined();

    await problem(
      await w.req("author", "POST", `/docs/${doc.id}/waivers`, { finding_id: must.id, reason: REASON }),
      409,
      "must_not_waivable",
    );
    const created = await json<WaiverView>(
      w.req("author", "POST", `/docs/${doc.id}/waivers`, { finding_id: should.id, reason: REASON }),
    );
    expect(created).toMatchObject({ approvals_needed: 2, approvers: "maintainers" });
    expect(created.policy).toBe(
      "2 approvals by a maintainer of the profile or an admin, never the requester",
    );
    // Only the maintainer and the admin heard of it.
    expect((await json<InboxView>(w.req("reviewer", "GET", "/inbox"))).items).toEqual([]);
    expect((await json<InboxView>(w.req("maintainer", "GET", "/inbox"))).items).toHaveLength(1);

    await problem(await w.req("reviewer", "POST", `/waivers/${created.id}/approve`), 403, "not_an_approver");
    const one = await json<WaiverView>(w.req("maintainer", "POST", `/waivers/${created.id}/approve`));
    expect(one).toMatchObject({ status: "requested", approvals: [{ by: w.ids.maintainer }] });
    expect(await sidecarOf(doc.id)).toBeUndefined();
    await problem(
      await w.req("maintainer", "POST", `/waivers/${created.id}/approve`),
      409,
      "already_approved",
    );
    const two = await json<WaiverView>(w.req("admin", "POST", `/waivers/${created.id}/approve`));
    expect(two.status).toBe("approved");
    expect((await readDoc(w, "author", doc.id)).verdict).toMatchObject({ waiver_count: 1, must: 1 });
  });

  it("refuses bad requests with a stable code and requests nothing", async () => {
    const { doc, finding } = await adrWithMust();
    const post = (body: unknown, who: "author" | "viewer" = "author") =>
      w.req(who, "POST", `/docs/${doc.id}/waivers`, body);
    await problem(
      await post({ finding_id: finding.id, reason: "too short, sorry" }),
      400,
      "reason_too_short",
    );
    // Twenty characters of blanks are not a reason.
    await problem(
      await post({ finding_id: finding.id, reason: `  ok${" ".repeat(30)}` }),
      400,
      "reason_too_short",
    );
    await problem(await post({ reason: REASON }), 400, "waiver_target");
    await problem(
      await post({ finding_id: finding.id, standalone: true, reason: REASON }),
      400,
      "waiver_target",
    );
    await problem(await post({ finding_id: crypto.randomUUID(), reason: REASON }), 404, "finding_not_found");
    await problem(await post({ finding_id: "not-a-uuid", reason: REASON }), 400, "validation_failed");
    await problem(await post({ trace_id: "REQ-404", reason: REASON }), 400, "unknown_trace_id");
    await problem(await post({ finding_id: finding.id, reason: REASON }, "viewer"), 403, "forbidden");
    expect(await waiversOf(doc.id)).toEqual([]);

    const first = await json<WaiverView>(post({ finding_id: finding.id, reason: REASON }));
    const dup = await problem(
      await post({ finding_id: finding.id, reason: `${REASON} again` }),
      409,
      "waiver_exists",
    );
    expect(dup.waiver_id).toBe(first.id);
    await problem(
      await w.req("reviewer", "POST", `/waivers/${crypto.randomUUID()}/approve`),
      404,
      "not_found",
    );
    await problem(
      await w.req("reviewer", "POST", `/docs/${doc.id}/acknowledgements/withdraw`, { waiver_id: first.id }),
      409,
      "not_an_acknowledgement",
    );
    expect(await waiversOf(doc.id)).toHaveLength(1);
  });
});
