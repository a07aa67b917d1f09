/**
 * Threads in hosted mode: who may do what (rule 9: a guest opens threads for humans only;
 * a viewer flags nothing), threads hidden with their bundle, mentions reaching people's
 * inboxes, and suggestion threads on a profile's checks.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { DB_KINDS, json, makeTestApp, problem, type TestApp } from "../../helpers/app.js";
import { cookieOf, fromBrowser } from "../../helpers/actors.js";
import { guestAuthenticator } from "../../../server/auth/guests.js";
import type { Actor, Authenticator } from "../../../server/auth/actor.js";
import type { SpecDoc } from "../../helpers/types.js";
import type { ThreadSchema } from "../../../server/schemas/threads.js";
import { inboxItems, threads, users } from "../../../server/db/schema.js";
import { PRD, save, textAnchor } from "./fixture.js";

type Thread = z.infer<typeof ThreadSchema>;

/** People of the workspace: ids are account ids (uuids), so mentions can find them. */
const PEOPLE = {
  author: { id: "0b8f6a3e-0000-4000-8000-00000000a001", name: "Aki Author", kind: "user", role: "member" },
  member: { id: "0b8f6a3e-0000-4000-8000-00000000a002", name: "Mo Member", kind: "user", role: "member" },
  maintainer: {
    id: "0b8f6a3e-0000-4000-8000-00000000a003",
    name: "Mai Maintainer",
    kind: "user",
    role: "member",
  },
  viewer: { id: "0b8f6a3e-0000-4000-8000-00000000a004", name: "Vi Viewer", kind: "user", role: "viewer" },
} as const satisfies Record<string, Actor>;
type Who = keyof typeof PEOPLE;
const as = (who: Who) => ({ "x-threads-actor": who });

/** The caller named by the test header, else the guest of the guest cookie. */
function peopleAuthenticator(): Authenticator & { bind(t: TestApp): void } {
  let guests: Authenticator | undefined;
  return {
    bind: (t) => void (guests = guestAuthenticator(t.services)),
    async actorOf(req) {
      const who = req.headers.get("x-threads-actor");
      if (who && Object.hasOwn(PEOPLE, who)) return { ...PEOPLE[who as Who] };
      return guests?.actorOf(req);
    },
  };
}

describe.each(DB_KINDS)("threads in hosted mode on %s", (kind) => {
  let t: TestApp;
  let doc: SpecDoc;

  beforeEach(async () => {
    const auth = peopleAuthenticator();
    t = await makeTestApp({ kind, mode: "hosted", auth });
    auth.bind(t);
    // The people of the workspace, as accounts would have made them.
    await t.database.db.insert(users).values(
      Object.values(PEOPLE).map((a) => ({
        id: a.id,
        email: `${a.name.split(" ")[0]!.toLowerCase()}@example.com`,
        name: a.name,
        role: a.role,
        passwordHash: "scrypt$unused",
        createdAt: new Date("2026-03-01T10:00:00Z"),
      })),
    );
    const res = await t.req("POST", "/bundles", { profile: "prd", name: "payouts" }, as("author"));
    expect(res.status).toBe(201);
    doc = await json<SpecDoc>(res);
    await save(t, doc, PRD, as("author"));
    doc = await json<SpecDoc>(t.req("GET", `/docs/${doc.id}`, undefined, as("author")));
  });
  afterEach(async () => {
    await t.close();
  });

  const body = (addressed_to: "humans" | "ai", text = "Is 2 business days enough?") => ({
    anchor_kind: "text",
    anchor: textAnchor(doc.path, PRD, "within 2 business days"),
    addressed_to,
    title: "Payout window",
    body: text,
  });

  it("rule 9: a guest opens threads for humans only, on the bundle it entered; it flags and replies to nothing", async () => {
    const share = await json<{ url: string }>(
      t.req("POST", `/bundles/${doc.bundle_id}/share`, undefined, as("author")),
    );
    const token = share.url.slice(share.url.lastIndexOf("/") + 1);
    const cookie = fromBrowser(cookieOf(await t.req("POST", `/share/${token}`, { name: "Gus Guest" })));

    await problem(
      await t.req("POST", `/docs/${doc.id}/threads`, body("ai"), cookie),
      403,
      "guest_humans_only",
    );
    expect(await t.database.db.select().from(threads)).toEqual([]);
    const res = await t.req("POST", `/docs/${doc.id}/threads`, body("humans"), cookie);
    expect(res.status, await res.clone().text()).toBe(201);
    const th = await json<Thread>(res);
    expect(th.messages[0]).toMatchObject({ author_kind: "guest", author_name: "Gus Guest" });
    expect(th.created_by).toBe(th.messages[0]!.author_id);
    expect((await t.req("GET", `/threads/${th.id}`, undefined, cookie)).status).toBe(200);
    expect(
      (await json<{ items: Thread[] }>(t.req("GET", `/docs/${doc.id}/threads`, undefined, cookie))).items,
    ).toHaveLength(1);
    await problem(
      await t.req("PUT", `/threads/${th.id}/blocking`, { blocking: true }, cookie),
      403,
      "forbidden",
    );

    // Threads of another bundle are not there for it.
    const other = await json<SpecDoc>(
      t.req("POST", "/bundles", { profile: "prd", name: "refunds" }, as("author")),
    );
    const section = {
      anchor_kind: "check",
      anchor: { check_slug: "goals" },
      addressed_to: "humans",
      title: "x",
      body: "y",
    };
    const elsewhere = await json<Thread>(t.req("POST", `/docs/${other.id}/threads`, section, as("member")));
    await problem(await t.req("GET", `/threads/${elsewhere.id}`, undefined, cookie), 404, "not_found");
    await problem(await t.req("GET", `/docs/${other.id}/threads`, undefined, cookie), 404, "not_found");
  });

  it("a viewer reads threads but sets no blocking flag and posts nothing; a private bundle's threads are hidden", async () => {
    const th = await json<Thread>(t.req("POST", `/docs/${doc.id}/threads`, body("humans"), as("member")));
    expect((await t.req("GET", `/threads/${th.id}`, undefined, as("viewer"))).status).toBe(200);
    await problem(
      await t.req("PUT", `/threads/${th.id}/blocking`, { blocking: true }, as("viewer")),
      403,
      "forbidden",
    );
    await problem(
      await t.req("POST", `/threads/${th.id}/messages`, { body: "me too" }, as("viewer")),
      403,
      "forbidden",
    );
    await problem(
      await t.req("POST", `/docs/${doc.id}/threads`, body("humans"), as("viewer")),
      403,
      "forbidden",
    );
    expect((await json<Thread>(t.req("GET", `/threads/${th.id}`, undefined, as("member")))).blocking).toBe(
      false,
    );

    await t.req("PUT", `/bundles/${doc.bundle_id}/visibility`, { visibility: "private" }, as("author"));
    await problem(await t.req("GET", `/threads/${th.id}`, undefined, as("member")), 404, "not_found");
    expect((await t.req("GET", `/threads/${th.id}`, undefined, as("author"))).status).toBe(200);
  });

  it("mentions reach the people named, never the writer nor an email address", async () => {
    const res = await t.req(
      "POST",
      `/docs/${doc.id}/threads`,
      body("humans", "@MoMember and @mai, can you check? (cc ops@example.com, @AkiAuthor) 🙏"),
      as("author"),
    );
    const th = await json<Thread>(res);
    const reply = await t.req(
      "POST",
      `/threads/${th.id}/messages`,
      { body: "Looping in @vi.viewer" },
      as("member"),
    );
    expect(reply.status).toBe(201);
    const items = await t.database.db.select().from(inboxItems).where(eq(inboxItems.threadId, th.id));
    const { author, member, maintainer, viewer } = PEOPLE;
    expect(items.map((i) => [i.userId, i.kind, i.actorId]).sort()).toEqual(
      [
        [member.id, "mention", author.id],
        [maintainer.id, "mention", author.id],
        [viewer.id, "mention", member.id],
      ].sort(),
    );
    expect(items.find((i) => i.userId === member.id)!.summary).toBe(
      'Aki Author mentioned you in "Payout window"',
    );
    expect(items.every((i) => i.docId === doc.id && i.bundleId === doc.bundle_id)).toBe(true);
  });

  it("suggestion threads on a profile's checks, its template or a limit", async () => {
    const res = await t.req(
      "POST",
      "/profiles/prd/threads",
      {
        target: "check",
        check_slug: "vague-wording",
        title: "Allow 'fast' in goals",
        body: "Goals may be vague 🙂",
      },
      as("member"),
    );
    expect(res.status, await res.clone().text()).toBe(201);
    const th = await json<Thread>(res);
    expect(th).toMatchObject({
      profile_key: "prd",
      anchor_kind: "check",
      anchor: { check_slug: "vague-wording" },
      addressed_to: "humans",
    });
    expect(th).not.toHaveProperty("doc_id");
    const tpl = await json<Thread>(
      t.req(
        "POST",
        "/profiles/prd/threads",
        { target: "template", title: "Add a Risks section", body: "Please" },
        as("member"),
      ),
    );
    expect(tpl.anchor).toEqual({ check_slug: "@template" });
    await t.req("PUT", `/threads/${th.id}/status`, { open: false }, as("member"));
    const list = await json<{ items: Thread[] }>(
      t.req("GET", "/profiles/prd/threads", undefined, as("viewer")),
    );
    expect(list.items.map((x) => [x.title, x.status])).toEqual([
      ["Add a Risks section", "open"],
      ["Allow 'fast' in goals", "resolved"],
    ]);
    expect((await t.req("GET", `/threads/${th.id}`, undefined, as("viewer"))).status).toBe(200);
    await problem(
      await t.req(
        "POST",
        "/profiles/prd/threads",
        { target: "check", check_slug: "nope", title: "x", body: "y" },
        as("member"),
      ),
      400,
      "unknown_check",
    );
    await problem(
      await t.req("POST", "/profiles/prd/threads", { target: "check", title: "x", body: "y" }, as("member")),
      400,
      "unknown_check",
    );
    await problem(await t.req("GET", "/profiles/nope/threads", undefined, as("member")), 404, "not_found");
    await problem(
      await t.req("POST", "/profiles/prd/threads", { target: "limit", title: "x", body: "y" }, as("viewer")),
      403,
      "forbidden",
    );
  });

  it("text anchors follow saves in the database store", async () => {
    const th = await json<Thread>(t.req("POST", `/docs/${doc.id}/threads`, body("humans"), as("member")));
    const edited = PRD.replace("- REQ-001", "- REQ-000: Payouts MUST be idempotent 🔁.\r\n- REQ-001");
    await save(t, doc, edited, as("author"));
    await t.services.threads.idle();
    const a = (await json<Thread>(t.req("GET", `/threads/${th.id}`, undefined, as("member")))).anchor as {
      start: number;
      end: number;
      detached?: boolean;
    };
    const bytes = new TextEncoder().encode(edited);
    expect(a.detached).toBeUndefined();
    expect(new TextDecoder().decode(bytes.subarray(a.start, a.end))).toBe("within 2 business days");
  });
});
