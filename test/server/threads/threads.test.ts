/**
 * Threads on a doc (contract 2.10) in local mode: anchors of every kind checked before
 * anything is written, messages, decisions and reversals, blocking threads in the
 * verdict, resolving and reopening, and text anchors that follow the text across saves.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { z } from "@hono/zod-openapi";
import { eq, sql } from "drizzle-orm";
import { DB_KINDS, json, makeTestApp, problem, type TestApp } from "../../helpers/app.js";
import type { SpecDoc } from "../../helpers/types.js";
import type { MessageSchema, ThreadSchema } from "../../../server/schemas/threads.js";
import { threadMessages, threads } from "../../../server/db/schema.js";
import { openSystemThread, threadsToDecide } from "../../../server/threads/ports.js";
import { createServices } from "../../../server/services.js";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { PRD, docBySlug, payoutsFolder, save, textAnchor } from "./fixture.js";

type Thread = z.infer<typeof ThreadSchema>;
type Message = z.infer<typeof MessageSchema>;
interface TextAnchor {
  file: string;
  quote: string;
  start: number;
  end: number;
  prefix: string;
  heading_path: string[];
  detached?: boolean;
}

const enc = new TextEncoder();
const bytesOf = (text: string, a: TextAnchor) =>
  new TextDecoder().decode(enc.encode(text).subarray(a.start, a.end));

describe.each(DB_KINDS)("threads on a doc on %s", (kind) => {
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

  const open = (body: Record<string, unknown>) => t.req("POST", `/docs/${doc.id}/threads`, body);
  const openText = async (quote: string, occurrence = 0, extra: Record<string, unknown> = {}) => {
    const res = await open({
      anchor_kind: "text",
      anchor: textAnchor("prd.md", PRD, quote, occurrence),
      addressed_to: "humans",
      title: `About ${quote.slice(0, 20)}`,
      body: `Is "${quote}" what we mean? 🤔`,
      ...extra,
    });
    expect(res.status, await res.clone().text()).toBe(201);
    return json<Thread>(res);
  };
  const count = async (table: typeof threads | typeof threadMessages) =>
    (await t.database.db.select({ n: sql<number>`count(*)::int` }).from(table))[0]!.n;

  it("opens a text thread with the service's own anchor (byte offsets past emoji and CRLF, heading path, context)", async () => {
    const th = await openText("The seller MUST see each payout's status in the dashboard.", 1);
    expect(th).toMatchObject({
      doc_id: doc.id,
      anchor_kind: "text",
      addressed_to: "humans",
      blocking: false,
      status: "open",
      created_by: "admin",
      message_count: 1,
      answering: false,
      handoff_version: 0,
    });
    const a = th.anchor as TextAnchor;
    // The second occurrence, in Non-goals, told apart from the one in Requirements.
    expect(a.heading_path).toEqual(["Payouts 💸", "Non-goals"]);
    expect(bytesOf(PRD, a)).toBe(a.quote);
    expect(a.start).toBe(enc.encode(PRD.slice(0, PRD.lastIndexOf("The seller MUST"))).length);
    expect(th.messages).toEqual([
      expect.objectContaining({
        seq: 1,
        author_kind: "user",
        author_id: "admin",
        author_name: "Local admin",
        body: `Is "The seller MUST see each payout's status in the dashboard." what we mean? 🤔`,
        sources: [],
        decision: "",
      }),
    ]);
    expect(await json<Thread>(t.req("GET", `/threads/${th.id}`))).toEqual(th);
  });

  it("finds a quote sent with offsets of another version by its context; section, finding and check anchors", async () => {
    const stale = { ...textAnchor("prd.md", PRD, "retried once"), start: 3, end: 15 };
    const res = await open({
      anchor_kind: "text",
      anchor: stale,
      addressed_to: "humans",
      title: "Retry",
      body: "Only once?",
    });
    expect(res.status).toBe(201);
    const a = (await json<Thread>(res)).anchor as TextAnchor;
    expect(bytesOf(PRD, a)).toBe("retried once");
    expect(a.heading_path).toEqual(["Payouts 💸", "Requirements"]);

    const section = await json<Thread>(
      open({
        anchor_kind: "section",
        anchor: { heading_path: ["Payouts 💸", "Goals"] },
        addressed_to: "humans",
        title: "Goals",
        body: "Add a metric",
      }),
    );
    expect(section.anchor).toEqual({ heading_path: ["Payouts 💸", "Goals"] });

    const run = await json<{ items: Array<{ id: string }> }>(t.req("GET", `/docs/${doc.id}/runs`));
    const findings = await json<{ items: Array<{ id: string; check_slug: string }> }>(
      t.req("GET", `/runs/${run.items[0]!.id}/findings`),
    );
    const f = findings.items[0]!;
    expect(f).toBeDefined();
    const onFinding = await open({
      anchor_kind: "finding",
      anchor: { finding_id: f.id, check_slug: f.check_slug },
      addressed_to: "humans",
      title: "This finding",
      body: "Is this a false positive?",
    });
    expect(onFinding.status, await onFinding.clone().text()).toBe(201);
    await problem(
      await open({
        anchor_kind: "finding",
        anchor: { finding_id: f.id, check_slug: f.check_slug === "goals" ? "users" : "goals" },
        addressed_to: "humans",
        title: "Wrong check",
        body: "Which check?",
      }),
      400,
      "anchor_finding_not_found",
    );
    const onCheck = await open({
      anchor_kind: "check",
      anchor: { check_slug: "vague-wording" },
      addressed_to: "humans",
      title: "Check",
      body: "Too strict",
    });
    expect(onCheck.status).toBe(201);
  });

  it("refuses bad anchors and bad input with stable codes, writing nothing", async () => {
    const good = textAnchor("prd.md", PRD, "retried once");
    const base = { anchor_kind: "text", addressed_to: "humans", title: "t", body: "b" };
    const size = enc.encode(PRD).length;
    await problem(
      await open({ ...base, anchor: { ...good, start: size + 1, end: size + 10 } }),
      400,
      "anchor_out_of_range",
    );
    await problem(
      await open({ ...base, anchor: { ...good, start: 10, end: 5 } }),
      400,
      "anchor_out_of_range",
    );
    await problem(await open({ ...base, anchor: { ...good, start: -4 } }), 400, "anchor_out_of_range");
    await problem(
      await open({ ...base, anchor: { ...good, quote: "retried twice" } }),
      400,
      "anchor_quote_not_found",
    );
    await problem(
      await open({ ...base, anchor: { ...good, file: "missing.md" } }),
      400,
      "anchor_file_not_found",
    );
    await problem(
      await open({ ...base, anchor_kind: "text", anchor: { check_slug: "x" } }),
      400,
      "validation_failed",
    );
    await problem(
      await open({ ...base, anchor_kind: "section", anchor: { heading_path: ["Payouts 💸", "Pricing"] } }),
      400,
      "section_not_found",
    );
    await problem(
      await open({
        ...base,
        anchor_kind: "finding",
        anchor: { finding_id: "00000000-0000-4000-8000-000000000000", check_slug: "goals" },
      }),
      400,
      "anchor_finding_not_found",
    );
    await problem(
      await open({ ...base, anchor_kind: "check", anchor: { check_slug: "no-such-check" } }),
      400,
      "unknown_check",
    );
    await problem(await open({ ...base, anchor_kind: "sticky", anchor: good }), 400, "validation_failed");
    await problem(await open({ ...base, anchor: good, title: "" }), 400, "validation_failed");
    await problem(
      await t.req("POST", `/docs/00000000-0000-4000-8000-000000000000/threads`, { ...base, anchor: good }),
      404,
      "not_found",
    );
    expect(await count(threads)).toBe(0);
    expect(await count(threadMessages)).toBe(0);
    expect((await json<{ items: Thread[] }>(t.req("GET", `/docs/${doc.id}/threads`))).items).toEqual([]);
  });

  it("posts messages, marks a decision, records a later one as a reversal, and refuses the wrong message", async () => {
    const th = await openText("within 2 business days");
    const other = await openText("retried once");
    const post = async (body: string) => {
      const res = await t.req("POST", `/threads/${th.id}/messages`, { body });
      expect(res.status).toBe(201);
      return json<Message>(res);
    };
    const m2 = await post("Banks settle in 1 day; 2 is safe.");
    const m3 = await post("Then 2 business days it is ✅");
    expect([m2.seq, m3.seq]).toEqual([2, 3]);

    let got = await json<Thread>(t.req("POST", `/threads/${th.id}/decision`, { message_id: m3.id }));
    expect(got.messages.map((m) => m.decision)).toEqual(["", "", "decision"]);
    await problem(
      await t.req("POST", `/threads/${th.id}/decision`, { message_id: m3.id }),
      409,
      "already_decided",
    );
    got = await json<Thread>(t.req("POST", `/threads/${th.id}/decision`, { message_id: m2.id }));
    expect(got.messages.map((m) => m.decision)).toEqual(["", "reversal", "decision"]);
    // A message of another thread, or none at all.
    await problem(
      await t.req("POST", `/threads/${th.id}/decision`, { message_id: other.messages[0]!.id }),
      400,
      "message_not_in_thread",
    );
    await problem(
      await t.req("POST", `/threads/${th.id}/decision`, {
        message_id: "00000000-0000-4000-8000-000000000000",
      }),
      400,
      "message_not_in_thread",
    );
    expect((await json<Thread>(t.req("GET", `/threads/${other.id}`))).messages[0]!.decision).toBe("");
    await problem(await t.req("POST", `/threads/${th.id}/messages`, { body: "" }), 400, "validation_failed");
    await problem(await t.req("GET", `/threads/00000000-0000-4000-8000-000000000000`), 404, "not_found");
  });

  it("resolves and reopens; a resolved thread takes no message; the list shows open threads first", async () => {
    const first = await openText("within 2 business days");
    const second = await openText("retried once");
    const resolved = await json<Thread>(t.req("PUT", `/threads/${first.id}/status`, { open: false }));
    expect(resolved.status).toBe("resolved");
    await problem(
      await t.req("POST", `/threads/${first.id}/messages`, { body: "one more thing" }),
      409,
      "thread_resolved",
    );
    expect((await json<Thread>(t.req("GET", `/threads/${first.id}`))).message_count).toBe(1);
    const list = await json<{ items: Thread[] }>(t.req("GET", `/docs/${doc.id}/threads`));
    expect(list.items.map((x) => [x.id, x.status])).toEqual([
      [second.id, "open"],
      [first.id, "resolved"],
    ]);
    const reopened = await json<Thread>(t.req("PUT", `/threads/${first.id}/status`, { open: true }));
    expect(reopened.status).toBe("open");
    expect((await t.req("POST", `/threads/${first.id}/messages`, { body: "one more thing" })).status).toBe(
      201,
    );
  });

  it("an open blocking thread makes the verdict Not Build Ready and counts in blocking_threads, also on the next lint", async () => {
    const before = (await json<SpecDoc>(t.req("GET", `/docs/${doc.id}`))).verdict!;
    expect(before).toMatchObject({ result: "build_ready", blocking_threads: 0, must: 0 });

    const th = await openText("within 2 business days", 0, { blocking: true });
    expect(th.blocking).toBe(true);
    let v = (await json<SpecDoc>(t.req("GET", `/docs/${doc.id}`))).verdict!;
    expect(v).toMatchObject({
      result: "not_build_ready",
      blocking_threads: 1,
      score: Math.round(before.score * 0.8),
    });
    const bundle = await json<{ state: string }>(t.req("GET", `/bundles/${doc.bundle_id}`));
    expect(bundle.state).toBe("not_build_ready");

    // A new version is linted with the thread counted.
    await save(t, doc, PRD.replace("38%", "41%"));
    await t.runs.idle();
    v = (await json<SpecDoc>(t.req("GET", `/docs/${doc.id}`))).verdict!;
    expect(v).toMatchObject({ version_number: 2, result: "not_build_ready", blocking_threads: 1 });

    // Resolving it lifts the block; reopening brings it back; unblocking lifts it again.
    await t.req("PUT", `/threads/${th.id}/status`, { open: false });
    expect((await json<SpecDoc>(t.req("GET", `/docs/${doc.id}`))).verdict).toMatchObject({
      result: "build_ready",
      blocking_threads: 0,
      score: before.score,
    });
    await t.req("PUT", `/threads/${th.id}/status`, { open: true });
    expect((await json<SpecDoc>(t.req("GET", `/docs/${doc.id}`))).verdict).toMatchObject({
      result: "not_build_ready",
      blocking_threads: 1,
    });
    const off = await json<Thread>(t.req("PUT", `/threads/${th.id}/blocking`, { blocking: false }));
    expect(off.blocking).toBe(false);
    expect((await json<SpecDoc>(t.req("GET", `/docs/${doc.id}`))).verdict).toMatchObject({
      result: "build_ready",
      blocking_threads: 0,
    });
    await problem(
      await t.req("PUT", `/threads/${th.id}/blocking`, { blocking: "yes" }),
      400,
      "validation_failed",
    );
  });

  it("text anchors follow the text across saves: moved, context changed, quote changed, quote deleted", async () => {
    const moved = await openText("retried once");
    const twin = await openText("The seller MUST see each payout's status in the dashboard.", 1);
    const changed = await openText("within 2 business days");
    const deleted = await openText("38% of support tickets");
    const resolved = await openText("Sellers wait 7 days");
    await t.req("PUT", `/threads/${resolved.id}/status`, { open: false });
    const resolvedBefore = (await json<Thread>(t.req("GET", `/threads/${resolved.id}`))).anchor;

    // An insertion above everything, an edited quote, a deleted sentence.
    const v2 = PRD.replace("## Problem\r\n", "## Problem\r\n\r\nContext 📎: payouts run nightly.\r\n")
      .replace("within 2 business days", "within 3 business days")
      .replace("; 38% of support tickets ask where it is", "");
    await save(t, doc, v2);
    await t.services.threads.idle();
    const get = async (id: string) =>
      (await json<Thread>(t.req("GET", `/threads/${id}`))).anchor as TextAnchor;

    const a = await get(moved.id);
    expect(a.detached).toBeUndefined();
    expect(bytesOf(v2, a)).toBe("retried once");
    expect(a.start).toBe(enc.encode(v2.slice(0, v2.indexOf("retried once"))).length);
    expect(a.start).not.toBe((moved.anchor as TextAnchor).start);
    const b = await get(twin.id);
    expect(b.heading_path).toEqual(["Payouts 💸", "Non-goals"]);
    expect(bytesOf(v2, b)).toBe(b.quote);
    expect(b.start).toBe(enc.encode(v2.slice(0, v2.lastIndexOf("The seller MUST"))).length);
    expect(await get(changed.id)).toMatchObject({ detached: true, quote: "within 2 business days" });
    expect(await get(deleted.id)).toMatchObject({ detached: true, quote: "38% of support tickets" });
    // A resolved thread stands still...
    expect(await get(resolved.id)).toEqual(resolvedBefore);

    // ...and a detached quote that comes back is found again on the next version.
    const v3 = v2.replace("within 3 business days", "within 2 business days");
    await save(t, doc, v3);
    await t.services.threads.idle();
    const back = await get(changed.id);
    expect(back.detached).toBeUndefined();
    expect(bytesOf(v3, back)).toBe("within 2 business days");

    // Reopening the resolved thread finds its quote in the current version.
    await t.req("PUT", `/threads/${resolved.id}/status`, { open: true });
    await t.services.threads.idle();
    const r = await get(resolved.id);
    expect(bytesOf(v3, r)).toBe("Sellers wait 7 days");
    expect(r.start).not.toBe((resolvedBefore as TextAnchor).start);
  });

  it("detaches anchors on a file that is gone, and anchors on other files of the bundle follow them", async () => {
    const notes = "# Notes\n\nThe payout window is 2 days 🙂.\n";
    const w = await t.req(
      "PUT",
      `/docs/${doc.id}/files/content?path=notes.md&base_version=${doc.current_version.id}`,
      notes,
      { "content-type": "application/octet-stream" },
    );
    expect(w.status).toBe(200);
    const res = await open({
      anchor_kind: "text",
      anchor: textAnchor("notes.md", notes, "window is 2 days"),
      addressed_to: "humans",
      title: "Window",
      body: "2 or 3?",
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const th = await json<Thread>(res);
    const head = (await json<SpecDoc>(t.req("GET", `/docs/${doc.id}`))).current_version.id;
    const del = await t.req("DELETE", `/docs/${doc.id}/files?path=notes.md&base_version=${head}`);
    expect(del.status, await del.clone().text()).toBeLessThan(300);
    await t.services.threads.idle();
    expect((await json<Thread>(t.req("GET", `/threads/${th.id}`))).anchor).toMatchObject({
      file: "notes.md",
      detached: true,
    });
  });

  it("ports: the service opens a blocking thread for a handoff; threads awaiting the opener's decision are listed", async () => {
    const handoffId = "5f0c7a52-3c1e-4d6b-9a51-0d2f4e8b7c11";
    const sys = await openSystemThread(t.services, {
      docId: doc.id,
      body: "The build is blocked: REQ-003 does not say who is told of a failed payout.",
      blocking: true,
      handoffId,
      handoffVersion: 1,
    });
    expect(sys).toMatchObject({
      anchor_kind: "section",
      anchor: { heading_path: ["Payouts 💸"] },
      blocking: true,
      handoff_id: handoffId,
      handoff_version: 1,
      created_by: "spec-review",
      title: "The build is blocked: REQ-003 does not say who is told of a failed payout.",
    });
    expect(sys.messages[0]).toMatchObject({ author_kind: "ai", author_name: "spec-review" });
    expect((await json<SpecDoc>(t.req("GET", `/docs/${doc.id}`))).verdict).toMatchObject({
      result: "not_build_ready",
      blocking_threads: 1,
    });

    const mine = await openText("retried once");
    expect(await threadsToDecide(t.services, "admin")).toEqual([]);
    await t.services.threads.post({ id: "u-2", name: "Bo", kind: "user" }, mine.id, "Twice would be safer.");
    expect(await threadsToDecide(t.services, "admin", doc.id)).toEqual([
      { id: mine.id, doc_id: doc.id, title: mine.title },
    ]);
    const answer = (await json<Thread>(t.req("GET", `/threads/${mine.id}`))).messages[1]!;
    await t.req("POST", `/threads/${mine.id}/decision`, { message_id: answer.id });
    expect(await threadsToDecide(t.services, "admin")).toEqual([]);
  });

  it("re-anchors after a restart when the file was edited on disk while the service was stopped", async () => {
    const th = await openText("retried once");
    await t.services.close();
    const edited = PRD.replace(
      "## Problem\r\n",
      "## Problem\r\n\r\nEdited offline ✍️ while the server was down.\r\n",
    );
    writeFileSync(join(t.root, "payouts/prd.md"), edited);
    const again = await createServices({
      mode: "local",
      folder: t.root,
      database: t.database,
      secretKey: randomBytes(32),
      profilesDir: resolve(import.meta.dirname, "../../../profiles"),
      serverVersion: "0.0.0-test",
    });
    try {
      await again.threads.idle();
      const moved = (await again.threads.get(th.id)).anchor as TextAnchor;
      expect(moved.detached).toBeUndefined();
      expect(bytesOf(edited, moved)).toBe("retried once");
      expect(moved.start).toBe(enc.encode(edited.slice(0, edited.indexOf("retried once"))).length);
    } finally {
      await again.close();
    }
  });

  it("says an AI answer was lost with a stopped service, rather than show it being written forever", async () => {
    const th = await openText("retried once");
    const set = (lastMessageAt: Date) =>
      t.database.db.update(threads).set({ answering: true, lastMessageAt }).where(eq(threads.id, th.id));
    await set(new Date());
    expect(await json<Thread>(t.req("GET", `/threads/${th.id}`))).toMatchObject({ answering: true });
    await set(new Date(Date.now() - 16 * 60 * 1000));
    const lost = await json<Thread>(t.req("GET", `/threads/${th.id}`));
    expect(lost.answering).toBe(false);
    expect(lost.ai_error).toMatch(/interrupted/);
  });
});
