/**
 * Local mode: the local admin is the only person. A waiver typed into the sidecar on disk
 * (as a pull request would bring it) is a request naming its reason, and the finding says
 * so; the local admin may approve it (someone else asked), and the service writes it back
 * signed. What needs a second person (approving a doc, assigning reviewers, approving a
 * waiver the admin asked for) is `second_person_needed`. A waiver lapses with its text.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { json, makeTestApp, problem, type TestApp } from "../../helpers/app.js";
import type { SpecDoc } from "../../helpers/types.js";
import { ADR_WITH_TBD, type InboxView, type WaiverView } from "./helpers.js";

interface Finding {
  id: string;
  check_slug: string;
  message: string;
  anchor: { quote: string; heading_path: string[] };
}

describe("waivers in local mode", () => {
  let t: TestApp;
  let fixture: string;
  beforeEach(async () => {
    fixture = mkdtempSync(join(tmpdir(), "sr-waivers-"));
    mkdirSync(join(fixture, "decisions/utc"), { recursive: true });
    writeFileSync(join(fixture, "decisions/utc/utc.md"), ADR_WITH_TBD);
    t = await makeTestApp({ fixture });
    await t.runs.idle();
  }, 180_000);
  afterEach(async () => {
    await t.close();
    rmSync(fixture, { recursive: true, force: true });
  });

  const theDoc = async () => {
    await t.runs.idle();
    const list = await json<{ items: Array<{ docs: SpecDoc[] }> }>(t.req("GET", "/bundles"));
    return json<SpecDoc>(t.req("GET", `/docs/${list.items[0]!.docs[0]!.id}`));
  };
  const findings = async (doc: SpecDoc) =>
    (await json<{ items: Finding[] }>(t.req("GET", `/runs/${doc.verdict!.run_id}/findings`))).items;

  it("a hand-written sidecar waiver is a request until the local admin approves it; then it is signed and counts", async () => {
    const doc = await theDoc();
    const undecided = (await findings(doc)).find((f) => f.check_slug === "undecided")!;
    // Typed by hand, naming an approver: that name proves nothing.
    const typed = [
      "waivers:",
      "  - check: undecided",
      `    section: ${JSON.stringify(undecided.anchor.heading_path)}`,
      `    quote: ${JSON.stringify(undecided.anchor.quote)}`,
      "    reason: Column retention is decided per service by its owners in Q3.",
      "    requested_by: Lee Okafor",
      "    approved_by: [Sam Ito]",
      "",
    ].join("\n");
    writeFileSync(join(t.root, "decisions/utc/utc.review.yaml"), typed);
    await t.local.scanAll();
    await t.runs.idle();

    const now = await theDoc();
    expect(now.verdict).toMatchObject({ result: "not_build_ready", must: 1, waiver_count: 0 });
    const still = (await findings(now)).find((f) => f.check_slug === "undecided")!;
    expect(still.message).toContain("is written in utc.review.yaml but not approved through spec-review");

    let list: WaiverView[] = [];
    for (let i = 0; i < 40 && list.length === 0; i++) {
      list = (await json<{ items: WaiverView[] }>(t.req("GET", `/docs/${doc.id}/waivers`))).items;
      if (list.length === 0) await new Promise((r) => setTimeout(r, 25));
    }
    expect(list).toHaveLength(1);
    const request = list[0]!;
    expect(request).toMatchObject({
      status: "requested",
      source: "sidecar",
      created_by: "sidecar:Lee Okafor",
      reason: "Column retention is decided per service by its owners in Q3.",
      check_slug: "undecided",
      approvals: [],
      can_decide: true,
    });
    const inbox = await json<InboxView>(t.req("GET", "/inbox"));
    expect(inbox.items[0]).toMatchObject({ kind: "waiver_to_decide", waiver_id: request.id });
    expect(now.next_action).toMatchObject({ kind: "waiver", waiver_id: request.id });

    const approved = await json<WaiverView>(t.req("POST", `/waivers/${request.id}/approve`));
    expect(approved).toMatchObject({ status: "approved", approvals: [{ by: "admin", name: "Local admin" }] });
    await t.runs.idle();
    const onDisk = readFileSync(join(t.root, "decisions/utc/utc.review.yaml"), "utf8");
    expect(onDisk).toMatch(/^# spec-review sidecar/);
    expect(onDisk).toContain(`id: ${request.id}`);
    expect(onDisk).toContain("requested_by: Lee Okafor");
    expect(onDisk).toContain("- Local admin");
    expect(onDisk).not.toContain("Sam Ito");
    expect(onDisk).toMatch(/signature: v1:/);
    expect((await theDoc()).verdict).toMatchObject({ result: "build_ready", must: 0, waiver_count: 1 });

    // The text goes: the waiver lapses (no section any more), and nothing is left to waive.
    writeFileSync(
      join(t.root, "decisions/utc/utc.md"),
      ADR_WITH_TBD.replace(" The retention of old columns is TBD.", ""),
    );
    await t.local.scanAll();
    await t.runs.idle();
    const lapsed = (await json<{ items: WaiverView[] }>(t.req("GET", `/docs/${doc.id}/waivers`))).items[0]!;
    expect(lapsed).toMatchObject({ status: "approved", lapsed: true });
    expect(lapsed.section).toBeUndefined();
    expect((await theDoc()).verdict).toMatchObject({ must: 0, waiver_count: 0 });
  });

  it("an approved waiver whose sidecar is deleted on disk is withdrawn, and its finding counts again", async () => {
    // An edit with no sidecar first: what the service knows of approvals is read before any.
    writeFileSync(join(t.root, "decisions/utc/utc.md"), `${ADR_WITH_TBD}\nEdited before any waiver.\n`);
    await t.local.scanAll();
    const doc = await theDoc();
    const undecided = (await findings(doc)).find((f) => f.check_slug === "undecided")!;
    const sidecar = join(t.root, "decisions/utc/utc.review.yaml");
    writeFileSync(
      sidecar,
      [
        "waivers:",
        "  - check: undecided",
        `    section: ${JSON.stringify(undecided.anchor.heading_path)}`,
        `    quote: ${JSON.stringify(undecided.anchor.quote)}`,
        "    reason: Column retention is decided per service by its owners in Q3.",
        "",
      ].join("\n"),
    );
    await t.local.scanAll();
    await t.runs.idle();
    let list: WaiverView[] = [];
    for (let i = 0; i < 40 && list.length === 0; i++) {
      list = (await json<{ items: WaiverView[] }>(t.req("GET", `/docs/${doc.id}/waivers`))).items;
      if (list.length === 0) await new Promise((r) => setTimeout(r, 25));
    }
    const approved = await json<WaiverView>(t.req("POST", `/waivers/${list[0]!.id}/approve`));
    expect(approved.status).toBe("approved");
    await t.runs.idle();
    expect((await theDoc()).verdict).toMatchObject({ must: 0, waiver_count: 1 });

    // A version with no sidecar (deleted by hand, say in a pull request): the approval is taken back.
    rmSync(sidecar);
    await t.local.scanAll();
    await t.runs.idle();
    let status = "approved";
    for (let i = 0; i < 40 && status === "approved"; i++) {
      const all = (await json<{ items: WaiverView[] }>(t.req("GET", `/docs/${doc.id}/waivers`))).items;
      status = all.find((w) => w.id === approved.id)?.status ?? "gone";
      if (status === "approved") await new Promise((r) => setTimeout(r, 25));
    }
    expect(status).toBe("withdrawn");
    expect((await theDoc()).verdict).toMatchObject({ result: "not_build_ready", must: 1, waiver_count: 0 });
  });

  it("what needs a second person is refused with second_person_needed", async () => {
    const doc = await theDoc();
    const undecided = (await findings(doc)).find((f) => f.check_slug === "undecided")!;
    const mine = await json<WaiverView>(
      t.req("POST", `/docs/${doc.id}/waivers`, {
        finding_id: undecided.id,
        reason: "Column retention is decided per service by its owners in Q3.",
      }),
    );
    expect(mine.can_decide).toBe(false);
    await problem(await t.req("POST", `/waivers/${mine.id}/approve`), 409, "second_person_needed");
    await problem(await t.req("POST", `/docs/${doc.id}/approve`), 409, "second_person_needed");
    await problem(
      await t.req("POST", `/docs/${doc.id}/review-request`, { reviewers: ["someone"] }),
      409,
      "second_person_needed",
    );
    expect(await json(t.req("GET", "/people"))).toEqual({ items: [] });
    expect(await json(t.req("GET", `/docs/${doc.id}/status`))).toMatchObject({
      status: "draft",
      author: "admin",
      can_approve: false,
    });
    const insights = await json<{ items: Array<{ profile_key: string; bundles: number }> }>(
      t.req("GET", "/insights"),
    );
    expect(insights.items.find((i) => i.profile_key === "adr")).toMatchObject({ bundles: 1 });
  });
});
