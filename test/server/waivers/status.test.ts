/**
 * Review status and approval in hosted mode, the inbox, next actions and insights:
 * draft -> in_review by a review request; approval refused for the author and without a
 * current Build Ready verdict; approved; a new version goes back to review with the history
 * kept; an approved bundle that `supersedes` another makes it superseded.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DB_KINDS, json, problem } from "../../helpers/app.js";
import type { BundleList, SpecDoc } from "../../helpers/types.js";
import {
  ADR_WITH_TBD,
  CLEAN_ADR,
  bundleWith,
  hostedWorkspace,
  readDoc,
  type InboxView,
  type Workspace,
} from "./helpers.js";

interface Status {
  doc_id: string;
  status: string;
  author: string;
  reviewers: Array<{ id: string; name: string; approved: boolean }>;
  approvals: Array<{ by: string; name: string; version_number: number; current: boolean; comment?: string }>;
  verdict?: { result: string };
  can_approve: boolean;
}

interface Insight {
  profile_key: string;
  bundles: number;
  build_ready: number;
  by_status: Record<string, number>;
  by_state: Record<string, number>;
  median_seconds_to_build_ready?: number;
  top_checks: Array<{ check_slug: string; findings: number; docs: number }>;
  waivers_per_check: Array<{ check_slug: string; waivers: number }>;
}

describe.each(DB_KINDS)("review status, inbox and insights in hosted mode on %s", (kind) => {
  let w: Workspace;
  let now: Date;
  beforeEach(async () => {
    now = new Date("2026-05-04T09:00:00Z");
    w = await hostedWorkspace(kind, () => now);
  }, 180_000);
  afterEach(async () => {
    await w.t.close();
  });

  const status = async (docId: string, who: "author" | "reviewer" | "admin" = "author") =>
    json<Status>(w.req(who, "GET", `/docs/${docId}/status`));

  it("draft -> in_review -> approved; refusals each with their code; a new version returns to review", async () => {
    const doc = await bundleWith(w, "author", "decisions/utc", "adr", ADR_WITH_TBD);
    expect(doc.status).toBe("draft");
    expect(await status(doc.id)).toMatchObject({
      status: "draft",
      author: w.ids.author,
      reviewers: [],
      approvals: [],
    });

    // Reviewers must be members who can approve, and not the author.
    for (const bad of [[w.ids.viewer], [w.ids.author], ["nobody"]])
      await problem(
        await w.req("author", "POST", `/docs/${doc.id}/review-request`, { reviewers: bad }),
        400,
        "unknown_reviewer",
      );
    await problem(
      await w.req("author", "POST", `/docs/${doc.id}/review-request`, { reviewers: [] }),
      400,
      "validation_failed",
    );
    await problem(
      await w.req("viewer", "POST", `/docs/${doc.id}/review-request`, { reviewers: [w.ids.reviewer] }),
      403,
      "forbidden",
    );
    expect((await status(doc.id)).status).toBe("draft");

    const asked = await json<Status>(
      w.req("author", "POST", `/docs/${doc.id}/review-request`, {
        reviewers: [w.ids.reviewer, w.ids.admin],
        message: "Please check the migration plan",
      }),
    );
    expect(asked.status).toBe("in_review");
    // Asked at once: by name.
    expect(asked.reviewers.map((r) => r.name)).toEqual(["Ada Admin", "Rui Reviewer"]);
    const inbox = await json<InboxView>(w.req("reviewer", "GET", "/inbox"));
    expect(inbox.items[0]).toMatchObject({
      kind: "review_request",
      url: `/api/v1/docs/${doc.id}`,
      read: false,
    });
    expect(inbox.items[0]!.sentence).toBe(
      "Aki Author asks you to review utc: Please check the migration plan",
    );
    expect((await readDoc(w, "reviewer", doc.id)).status).toBe("in_review");

    // Not Build Ready: refused. The author: refused, whatever the verdict.
    await problem(await w.req("reviewer", "POST", `/docs/${doc.id}/approve`), 409, "not_build_ready");
    await problem(await w.req("author", "POST", `/docs/${doc.id}/approve`), 403, "author_cannot_approve");
    await problem(await w.req("viewer", "POST", `/docs/${doc.id}/approve`), 403, "forbidden");
    expect((await status(doc.id, "reviewer")).can_approve).toBe(false);

    // Fixed: Build Ready, and the reviewer approves the current version.
    const fixed = await w.req(
      "author",
      "PUT",
      `/docs/${doc.id}/files/content?path=utc.md&base_version=${(await readDoc(w, "author", doc.id)).current_version.id}`,
      CLEAN_ADR,
    );
    expect(fixed.status).toBe(200);
    await w.t.runs.idle();
    const v2 = await readDoc(w, "reviewer", doc.id);
    expect(v2.verdict?.result).toBe("build_ready");
    expect((await status(doc.id, "reviewer")).can_approve).toBe(true);
    expect((await status(doc.id, "author")).can_approve).toBe(false);
    await problem(
      await w.req("reviewer", "POST", `/docs/${doc.id}/approve`, { base_version: doc.current_version.id }),
      409,
      "version_conflict",
    );
    const approved = await json<Status>(
      w.req("reviewer", "POST", `/docs/${doc.id}/approve`, {
        base_version: v2.current_version.id,
        comment: "Clear.",
      }),
    );
    expect(approved).toMatchObject({
      status: "approved",
      approvals: [
        {
          by: w.ids.reviewer,
          name: "Rui Reviewer",
          version_number: v2.current_version.number,
          current: true,
          comment: "Clear.",
        },
      ],
      can_approve: false,
    });
    expect(approved.reviewers.find((r) => r.id === w.ids.reviewer)!.approved).toBe(true);
    await problem(await w.req("reviewer", "POST", `/docs/${doc.id}/approve`), 409, "already_approved");
    // Approved on lint alone: a full review still comes before the handoff (docs/review-status.md).
    expect((await readDoc(w, "author", doc.id)).next_action).toMatchObject({ kind: "review" });

    // A new version: back to review, the approval history kept (no longer current).
    const edited = await w.req(
      "author",
      "PUT",
      `/docs/${doc.id}/files/content?path=utc.md&base_version=${v2.current_version.id}`,
      CLEAN_ADR.replace("one service per sprint", "two services per sprint"),
    );
    expect(edited.status).toBe(200);
    await w.t.runs.idle();
    // The status follows the new version as soon as the service hears of it.
    let back = await status(doc.id);
    for (let i = 0; i < 40 && back.status !== "in_review"; i++) {
      await new Promise((r) => setTimeout(r, 25));
      back = await status(doc.id);
    }
    expect(back.status).toBe("in_review");
    expect(back.approvals).toMatchObject([{ by: w.ids.reviewer, current: false }]);
    expect((await status(doc.id, "admin")).can_approve).toBe(true);
  });

  it("an approved bundle that supersedes another makes it superseded", async () => {
    const old = await bundleWith(w, "author", "decisions/local-time", "adr", CLEAN_ADR);
    const text = CLEAN_ADR.replace(
      "date: 2026-03-30\r\n",
      "date: 2026-03-30\r\nsupersedes: decisions/local-time\r\n",
    );
    const next = await bundleWith(w, "author", "decisions/utc", "adr", text);
    expect(next.verdict?.result).toBe("build_ready");
    // A Build Ready draft: the author's next action is to ask for a review (lint passed, no full review: review first).
    expect((await readDoc(w, "author", next.id)).next_action?.kind).toBe("review");
    expect((await w.req("reviewer", "POST", `/docs/${next.id}/approve`)).status).toBe(200);
    expect((await status(old.id)).status).toBe("superseded");
    const list = await json<BundleList>(w.req("author", "GET", "/bundles"));
    const byslug = Object.fromEntries(list.items.map((b) => [b.slug, b.docs[0]!.status]));
    expect(byslug).toEqual({ "decisions/local-time": "superseded", "decisions/utc": "approved" });
  });

  it("the inbox: newest first, pages, one item read, all seen; another person's item is not found", async () => {
    const doc = await bundleWith(w, "author", "decisions/utc", "adr", CLEAN_ADR);
    const others = await bundleWith(w, "author", "decisions/queue", "adr", CLEAN_ADR);
    await w.req("author", "POST", `/docs/${doc.id}/review-request`, { reviewers: [w.ids.reviewer] });
    now = new Date(now.getTime() + 60_000);
    await w.req("author", "POST", `/docs/${others.id}/review-request`, { reviewers: [w.ids.reviewer] });
    const all = await json<InboxView>(w.req("reviewer", "GET", "/inbox"));
    expect(all.unseen).toBe(2);
    expect(all.items.map((i) => i.url)).toEqual([`/api/v1/docs/${others.id}`, `/api/v1/docs/${doc.id}`]);
    const page1 = await json<InboxView>(w.req("reviewer", "GET", "/inbox?limit=1"));
    expect(page1.items).toHaveLength(1);
    const page2 = await json<InboxView>(
      w.req("reviewer", "GET", `/inbox?limit=1&cursor=${page1.next_cursor!}`),
    );
    expect(page2.items[0]!.url).toBe(`/api/v1/docs/${doc.id}`);
    expect(page2.next_cursor).toBeUndefined();
    await problem(await w.req("reviewer", "GET", "/inbox?cursor=nonsense"), 400, "bad_cursor");

    await problem(await w.req("author", "POST", "/inbox/read", { id: all.items[0]!.id }), 404, "not_found");
    await problem(await w.req("reviewer", "POST", "/inbox/read", { id: "x" }), 400, "validation_failed");
    expect((await w.req("reviewer", "POST", "/inbox/read", { id: all.items[0]!.id })).status).toBe(204);
    const one = await json<InboxView>(w.req("reviewer", "GET", "/inbox"));
    expect(one.items.map((i) => i.read)).toEqual([true, false]);
    expect(one.unseen).toBe(1);
    now = new Date(now.getTime() + 60_000);
    expect((await w.req("reviewer", "POST", "/inbox/seen")).status).toBe(204);
    const seen = await json<InboxView>(w.req("reviewer", "GET", "/inbox"));
    expect(seen).toMatchObject({ unseen: 0 });
    expect(seen.items.every((i) => i.read)).toBe(true);
    // A guest or nobody has no inbox.
    await problem(await w.t.req("GET", "/inbox"), 401, "unauthenticated");
  });

  it("insights for maintainers and admins: docs by state, time to Build Ready, failing checks, waivers per check", async () => {
    const ready = await bundleWith(w, "author", "decisions/utc", "adr", CLEAN_ADR);
    now = new Date(now.getTime() + 3_600_000);
    const open = await bundleWith(w, "author", "decisions/queue", "adr", ADR_WITH_TBD);
    expect(open.verdict?.result).toBe("not_build_ready");
    await w.req("reviewer", "POST", `/docs/${ready.id}/approve`);

    await problem(await w.req("reviewer", "GET", "/insights"), 403, "forbidden");
    const got = await json<{ items: Insight[] }>(w.req("admin", "GET", "/insights"));
    const adr = got.items.find((i) => i.profile_key === "adr")!;
    expect(adr).toMatchObject({
      bundles: 2,
      build_ready: 1,
      by_status: { draft: 1, in_review: 0, approved: 1, superseded: 0 },
      by_state: { build_ready: 1, not_build_ready: 1, not_reviewed: 0 },
      waivers_per_check: [],
    });
    expect(adr.median_seconds_to_build_ready).toBeGreaterThanOrEqual(0);
    expect(adr.top_checks[0]).toMatchObject({ check_slug: "undecided", findings: 1, docs: 1 });
    expect(got.items.find((i) => i.profile_key === "prd")).toMatchObject({ bundles: 0 });

    // A maintainer of a profile reads them too.
    await w.req("admin", "PUT", "/profiles/adr/maintainers", { maintainers: [w.ids.maintainer] });
    expect((await w.req("maintainer", "GET", "/insights")).status).toBe(200);
  });

  it("the list carries the caller's next action as kind and sentence only", async () => {
    const doc = await bundleWith(w, "author", "decisions/utc", "adr", ADR_WITH_TBD);
    const finding = (
      await json<{ items: Array<{ id: string; check_slug: string }> }>(
        w.req("author", "GET", `/runs/${doc.verdict!.run_id}/findings`),
      )
    ).items.find((f) => f.check_slug === "undecided")!;
    await w.req("author", "POST", `/docs/${doc.id}/waivers`, {
      finding_id: finding.id,
      reason: "Retention is decided per service by its owners in Q3.",
    });
    const listFor = async (who: "author" | "admin" | "reviewer") =>
      (await json<BundleList>(w.req(who, "GET", "/bundles"))).items[0]!.docs[0]!;
    expect((await listFor("admin")).next_action).toEqual({
      kind: "waiver",
      sentence: "Decide the waiver Aki Author asked for: approve or reject it.",
    });
    expect((await listFor("reviewer")).next_action?.kind).toBe("waiver");
    expect((await listFor("author")).next_action).toEqual({
      kind: "fix",
      sentence: "Fix 1 MUST finding to make the doc Build Ready.",
    });
    // The single read adds the target.
    const single = await json<{ docs: SpecDoc[] }>(w.req("admin", "GET", `/bundles/${doc.bundle_id}`));
    expect(single.docs[0]!.next_action).toMatchObject({ kind: "waiver", waiver_id: expect.any(String) });
  });

  it("the list hears waivers and threads change after it was first read", async () => {
    const doc = await bundleWith(w, "author", "decisions/utc", "adr", ADR_WITH_TBD);
    const listFor = async (who: "author" | "admin" | "reviewer") =>
      (await json<BundleList>(w.req(who, "GET", "/bundles"))).items[0]!.docs[0]!;
    const fix = { kind: "fix", sentence: "Fix 1 MUST finding to make the doc Build Ready." };
    // Nothing waits: the list is read (and its cached page written) before anything changes.
    expect((await listFor("admin")).next_action).toEqual(fix);
    expect((await listFor("reviewer")).next_action).toEqual(fix);
    const finding = (
      await json<{ items: Array<{ id: string; check_slug: string }> }>(
        w.req("author", "GET", `/runs/${doc.verdict!.run_id}/findings`),
      )
    ).items.find((f) => f.check_slug === "undecided")!;
    const waiver = await json<{ id: string }>(
      w.req("author", "POST", `/docs/${doc.id}/waivers`, {
        finding_id: finding.id,
        reason: "Retention is decided per service by its owners in Q3.",
      }),
    );
    expect((await listFor("reviewer")).next_action?.kind).toBe("waiver");
    expect((await listFor("admin")).next_action?.kind).toBe("waiver");
    await json(
      w.req("reviewer", "POST", `/waivers/${waiver.id}/reject`, {
        reason: "Decide retention before building.",
      }),
    );
    expect((await listFor("reviewer")).next_action).toEqual(fix);

    // A thread the author opened waits for the author's decision once someone answers it.
    const thread = await json<{ id: string }>(
      w.req("author", "POST", `/docs/${doc.id}/threads`, {
        anchor_kind: "section",
        anchor: { heading_path: [] },
        addressed_to: "humans",
        title: "Which clock do we trust?",
        body: "The host's, or NTP?",
      }),
    );
    expect((await listFor("author")).next_action).toEqual(fix);
    const reply = await json<{ id: string }>(
      w.req("reviewer", "POST", `/threads/${thread.id}/messages`, { body: "NTP, always." }),
    );
    expect((await listFor("author")).next_action).toEqual({
      kind: "decide",
      sentence: 'Decide the thread "Which clock do we trust?".',
    });
    expect((await listFor("reviewer")).next_action).toEqual(fix);
    await json(w.req("author", "POST", `/threads/${thread.id}/decision`, { message_id: reply.id }));
    expect((await listFor("author")).next_action).toEqual(fix);
  });
});
