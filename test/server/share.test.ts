/**
 * Visibility and share links in hosted mode: who sees a bundle, the share link's life
 * (new, replaced, revoked, expired), entering as a guest, and what a guest may reach.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DB_KINDS, json, makeTestApp, problem, type TestApp } from "../helpers/app.js";
import type { BundleList, SpecDoc } from "../helpers/types.js";
import { as, cookieOf, fromBrowser, testAuthenticator, type ActorName } from "../helpers/actors.js";
import { GUEST_COOKIE } from "../../server/auth/guests.js";

interface Created {
  url: string;
  visibility: string;
  share: { active: boolean; expires_at?: string; created_by?: string };
}
interface Access {
  visibility: string;
  share: { active: boolean };
  created_by: string | null;
  audience: string;
  people: Array<{ id: string; name: string; role: string }>;
}

describe.each(DB_KINDS)("visibility and share links on %s", (kind) => {
  let t: TestApp;
  let now: Date;
  beforeEach(async () => {
    now = new Date("2026-03-01T10:00:00Z");
    const auth = testAuthenticator();
    t = await makeTestApp({ kind, mode: "hosted", auth, clock: { now: () => now } });
    auth.bind(t.services);
  });
  afterEach(async () => {
    await t.close();
  });

  async function create(name: string, who: ActorName = "author"): Promise<SpecDoc> {
    const res = await t.req("POST", "/bundles", { profile: "prd", name }, as(who));
    expect(res.status).toBe(201);
    return json<SpecDoc>(res);
  }
  const slugsFor = async (headers: Record<string, string>) =>
    (await json<BundleList>(t.req("GET", "/bundles", undefined, headers))).items.map((b) => b.slug);
  const tokenOf = (url: string) => url.slice(url.lastIndexOf("/") + 1);

  it("records the author; a new bundle is internal; private hides it from everyone but its author and admins", async () => {
    const doc = await create("refunds");
    let access = await json<Access>(
      t.req("GET", `/bundles/${doc.bundle_id}/access`, undefined, as("member")),
    );
    expect(access).toMatchObject({
      visibility: "internal",
      created_by: "u-author",
      share: { active: false },
    });
    expect(await slugsFor(as("viewer"))).toEqual(["refunds"]);

    // Only the author (or an admin) decides who sees it.
    await problem(
      await t.req("PUT", `/bundles/${doc.bundle_id}/visibility`, { visibility: "private" }, as("member")),
      403,
      "forbidden",
    );
    const res = await t.req(
      "PUT",
      `/bundles/${doc.bundle_id}/visibility`,
      { visibility: "private" },
      as("author"),
    );
    expect(res.status).toBe(200);
    access = await json<Access>(res);
    expect(access).toMatchObject({ visibility: "private", audience: "its author and admins" });

    expect(await slugsFor(as("member"))).toEqual([]);
    expect(await slugsFor(as("viewer"))).toEqual([]);
    expect(await slugsFor(as("author"))).toEqual(["refunds"]);
    expect(await slugsFor(as("admin"))).toEqual(["refunds"]);
    // Every read of it is 404 for the others, writes too: its existence is not leaked.
    for (const [method, path] of [
      ["GET", `/bundles/${doc.bundle_id}`],
      ["GET", `/docs/${doc.id}`],
      ["GET", `/docs/${doc.id}/files`],
      ["GET", `/docs/${doc.id}/versions`],
      ["GET", `/docs/${doc.id}/runs`],
      ["GET", `/bundles/${doc.bundle_id}/access`],
      ["PUT", `/bundles/${doc.bundle_id}/visibility`],
      ["DELETE", `/bundles/${doc.bundle_id}`],
    ] as const) {
      await problem(await t.req(method, path, undefined, as("member")), 404, "not_found");
      await problem(await t.req(method, path, undefined, as("viewer")), 404, "not_found");
    }
    const runs = await json<{ items: Array<{ id: string }> }>(
      t.req("GET", `/docs/${doc.id}/runs`, undefined, as("author")),
    );
    await problem(
      await t.req("GET", `/runs/${runs.items[0]!.id}`, undefined, as("member")),
      404,
      "not_found",
    );
    // The same answer as a bundle that does not exist.
    const missing = await problem(
      await t.req("GET", `/bundles/00000000-0000-4000-8000-000000000000`, undefined, as("member")),
      404,
      "not_found",
    );
    expect(missing.detail).toMatch(/^bundle .* does not exist$/);
    expect((await t.req("GET", `/docs/${doc.id}`, undefined, as("admin"))).status).toBe(200);
    expect((await t.req("GET", `/docs/${doc.id}`, undefined, as("author"))).status).toBe(200);
  });

  it("makes a share link once, stored hashed; a guest enters and reads that bundle only", async () => {
    const doc = await create("refunds");
    const other = await create("payouts");
    const res = await t.req("POST", `/bundles/${doc.bundle_id}/share`, undefined, as("author"));
    expect(res.status).toBe(201);
    const created = await json<Created>(res);
    expect(created.url).toMatch(/^http:\/\/127\.0\.0\.1:8787\/share\/[A-Za-z0-9_-]{43}$/);
    expect(created).toMatchObject({ visibility: "link", share: { active: true, created_by: "u-author" } });
    const token = tokenOf(created.url);
    // The token is not stored: only its hash.
    const stored = JSON.stringify(await t.database.db.execute("select * from share_links"));
    expect(stored).not.toContain(token);
    // Access never shows the URL again.
    const access = await json<Access>(
      t.req("GET", `/bundles/${doc.bundle_id}/access`, undefined, as("author")),
    );
    expect(JSON.stringify(access)).not.toContain(token);
    expect(access).toMatchObject({ visibility: "link", share: { active: true } });

    // Anyone may look the link up, signed in or not.
    const looked = await t.req("GET", `/share/${token}`);
    expect(looked.status).toBe(200);
    expect(await looked.json()).toMatchObject({ bundle_id: doc.bundle_id, slug: "refunds", doc_id: doc.id });

    const entered = await t.req("POST", `/share/${token}`, { name: "  Gus Guest " });
    expect(entered.status).toBe(200);
    const guest = await json<{ id: string; name: string; kind: string; bundle_id: string }>(entered.clone());
    expect(guest).toMatchObject({ name: "Gus Guest", kind: "guest", bundle_id: doc.bundle_id });
    const setCookie = entered.headers.get("set-cookie")!;
    expect(setCookie).toMatch(new RegExp(`^${GUEST_COOKIE}=`));
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Lax/);
    const cookie = fromBrowser(cookieOf(entered));

    const me = await json<{ signed_in: boolean; user: { kind: string; name: string } }>(
      t.req("GET", "/me", undefined, cookie),
    );
    expect(me).toMatchObject({ signed_in: true, guest: true, user: { kind: "guest", name: "Gus Guest" } });
    expect(await slugsFor(cookie)).toEqual(["refunds"]);
    expect((await t.req("GET", `/docs/${doc.id}`, undefined, cookie)).status).toBe(200);
    expect(
      (await t.req("GET", `/docs/${doc.id}/files/content?path=refunds.md`, undefined, cookie)).status,
    ).toBe(200);
    // Its cookie on another bundle: not found, whatever that bundle's visibility.
    await problem(await t.req("GET", `/docs/${other.id}`, undefined, cookie), 404, "not_found");
    await problem(await t.req("GET", `/bundles/${other.bundle_id}`, undefined, cookie), 404, "not_found");
    // Every write is refused, and workspace reads that name no bundle.
    const head = (await json<SpecDoc>(t.req("GET", `/docs/${doc.id}`, undefined, cookie))).current_version.id;
    await problem(
      await t.req("PUT", `/docs/${doc.id}/files/content?path=notes.md&base_version=${head}`, "hi", cookie),
      403,
      "forbidden",
    );
    await problem(await t.req("POST", "/bundles", { profile: "prd", name: "x" }, cookie), 403, "forbidden");
    await problem(await t.req("GET", "/profiles", undefined, cookie), 403, "forbidden");
    await problem(
      await t.req("POST", `/bundles/${doc.bundle_id}/share`, undefined, cookie),
      403,
      "forbidden",
    );
    expect(
      (await json<Access>(t.req("GET", `/bundles/${doc.bundle_id}/access`, undefined, as("author")))).people,
    ).toEqual([{ id: guest.id, name: "Gus Guest", role: "guest" }]);
  });

  it("a new link replaces the old; revoking, leaving link visibility or expiry ends the link and its guests", async () => {
    const doc = await create("refunds");
    const first = await json<Created>(
      t.req("POST", `/bundles/${doc.bundle_id}/share`, undefined, as("author")),
    );
    const firstGuest = {
      ...fromBrowser(cookieOf(await t.req("POST", `/share/${tokenOf(first.url)}`, { name: "Ann" }))),
    };
    expect((await t.req("GET", `/docs/${doc.id}`, undefined, firstGuest)).status).toBe(200);

    const second = await json<Created>(
      t.req("POST", `/bundles/${doc.bundle_id}/share`, undefined, as("admin")),
    );
    expect(second.url).not.toBe(first.url);
    await problem(await t.req("GET", `/share/${tokenOf(first.url)}`), 404, "not_found");
    await problem(await t.req("POST", `/share/${tokenOf(first.url)}`, { name: "Late" }), 404, "not_found");
    // The old link's guest is nobody now: anonymous callers must sign in.
    await problem(await t.req("GET", `/docs/${doc.id}`, undefined, firstGuest), 401, "unauthenticated");

    const secondGuest = {
      ...fromBrowser(cookieOf(await t.req("POST", `/share/${tokenOf(second.url)}`, { name: "Bo" }))),
    };
    expect((await t.req("DELETE", `/bundles/${doc.bundle_id}/share`, undefined, as("author"))).status).toBe(
      204,
    );
    await problem(await t.req("GET", `/share/${tokenOf(second.url)}`), 404, "not_found");
    await problem(await t.req("GET", `/bundles`, undefined, secondGuest), 401, "unauthenticated");
    expect(
      await json<Access>(t.req("GET", `/bundles/${doc.bundle_id}/access`, undefined, as("author"))),
    ).toMatchObject({ visibility: "link", share: { active: false }, people: [] });

    // Leaving link visibility revokes the link.
    const third = await json<Created>(
      t.req("POST", `/bundles/${doc.bundle_id}/share`, undefined, as("author")),
    );
    const thirdGuest = {
      ...fromBrowser(cookieOf(await t.req("POST", `/share/${tokenOf(third.url)}`, { name: "Cy" }))),
    };
    const changed = await json<Access>(
      t.req("PUT", `/bundles/${doc.bundle_id}/visibility`, { visibility: "internal" }, as("author")),
    );
    expect(changed).toMatchObject({ visibility: "internal", share: { active: false } });
    await problem(await t.req("GET", `/share/${tokenOf(third.url)}`), 404, "not_found");
    await problem(await t.req("GET", `/docs/${doc.id}`, undefined, thirdGuest), 401, "unauthenticated");

    // An expiring link: found until it expires, then not, and its guests with it.
    const timed = await json<Created>(
      t.req("POST", `/bundles/${doc.bundle_id}/share`, { expires_in_days: 2 }, as("author")),
    );
    expect(timed.share.expires_at).toBe("2026-03-03T10:00:00.000Z");
    const timedGuest = {
      ...fromBrowser(cookieOf(await t.req("POST", `/share/${tokenOf(timed.url)}`, { name: "Di" }))),
    };
    now = new Date("2026-03-03T09:59:00Z");
    expect((await t.req("GET", `/share/${tokenOf(timed.url)}`)).status).toBe(200);
    expect((await t.req("GET", `/docs/${doc.id}`, undefined, timedGuest)).status).toBe(200);
    now = new Date("2026-03-03T10:00:01Z");
    await problem(await t.req("GET", `/share/${tokenOf(timed.url)}`), 404, "not_found");
    await problem(await t.req("GET", `/docs/${doc.id}`, undefined, timedGuest), 401, "unauthenticated");
  });

  it("refuses bad input: unknown or malformed tokens, a tampered cookie, an empty name, a bad visibility", async () => {
    const doc = await create("refunds");
    const link = await json<Created>(
      t.req("POST", `/bundles/${doc.bundle_id}/share`, undefined, as("author")),
    );
    const token = tokenOf(link.url);
    const unknown = await problem(await t.req("GET", `/share/${"x".repeat(43)}`), 404, "not_found");
    expect(unknown.detail).not.toContain("x".repeat(43));
    await problem(await t.req("GET", `/share/short`), 404, "not_found");
    await problem(await t.req("POST", `/share/${token}`, { name: "   " }), 400, "validation_failed");
    await problem(await t.req("POST", `/share/${token}`, {}), 400, "validation_failed");
    await problem(
      await t.req("POST", `/share/${token}`, { name: "n".repeat(101) }),
      400,
      "validation_failed",
    );
    await problem(
      await t.req("PUT", `/bundles/${doc.bundle_id}/visibility`, { visibility: "public" }, as("author")),
      400,
      "validation_failed",
    );
    await problem(
      await t.req("POST", `/bundles/${doc.bundle_id}/share`, { expires_in_days: 0 }, as("author")),
      400,
      "validation_failed",
    );
    // Nothing changed by the refused requests.
    expect(
      await json<Access>(t.req("GET", `/bundles/${doc.bundle_id}/access`, undefined, as("author"))),
    ).toMatchObject({ visibility: "link", share: { active: true }, people: [] });
    // A tampered or made-up guest cookie is nobody.
    const real = cookieOf(await t.req("POST", `/share/${token}`, { name: "Eve" }));
    const tampered = real.slice(0, -2) + (real.endsWith("AA") ? "BB" : "AA");
    await problem(await t.req("GET", "/bundles", undefined, { cookie: tampered }), 401, "unauthenticated");
    await problem(
      await t.req("GET", "/bundles", undefined, { cookie: `${GUEST_COOKIE}=nope` }),
      401,
      "unauthenticated",
    );
    // Anonymous: 401 on everything but the public operations.
    await problem(await t.req("GET", "/bundles"), 401, "unauthenticated");
    await problem(await t.req("GET", `/bundles/${doc.bundle_id}/access`), 401, "unauthenticated");
    expect((await t.req("GET", "/meta")).status).toBe(200);
  });
});

describe.each(DB_KINDS)("local mode on %s", (kind) => {
  it("changes nothing: the local admin sees every bundle, private ones too", async () => {
    const t = await makeTestApp({ kind });
    try {
      const doc = await json<SpecDoc>(t.req("POST", "/bundles", { profile: "prd", name: "refunds" }));
      const access = await json<Access>(t.req("GET", `/bundles/${doc.bundle_id}/access`));
      expect(access).toMatchObject({ visibility: "internal", created_by: "admin" });
      expect(
        (await t.req("PUT", `/bundles/${doc.bundle_id}/visibility`, { visibility: "private" })).status,
      ).toBe(200);
      const list = await json<BundleList>(t.req("GET", "/bundles"));
      expect(list.items.map((b) => [b.slug, b.visibility])).toEqual([["refunds", "private"]]);
      expect((await t.req("GET", `/docs/${doc.id}`)).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});
