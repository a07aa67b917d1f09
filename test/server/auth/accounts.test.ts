/**
 * Accounts in hosted mode, through the HTTP app on PGlite and Postgres: invites, sign-up,
 * sign-in and its rate limit, sign-out, sessions, API tokens, reset links, removal, and
 * each bad input answered with problem+json and a stable code, nothing changed.
 */
import { sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DB_KINDS, json, makeTestApp, problem } from "../../helpers/app.js";
import { DAY, Hosted, PASSWORD, sessionCookie } from "./helpers.js";

interface Me {
  signed_in: boolean;
  user?: { id: string; name: string; kind: string; role: string; email?: string };
}

describe.each(DB_KINDS)("accounts (%s)", (kind) => {
  let h: Hosted;
  beforeEach(async () => {
    h = await Hosted.open(kind);
  });
  afterEach(async () => {
    await h.t.close();
  });

  const count = async (table: string): Promise<number> => {
    const r: unknown = await h.t.database.db.execute(sql.raw(`select count(*)::int as n from ${table}`));
    const rows = (Array.isArray(r) ? r : (r as { rows: unknown[] }).rows) as Array<{ n: number }>;
    return rows[0]!.n;
  };

  describe("signing up with an invite", () => {
    it("makes the account with the invite's role, signs in with a safe cookie, and uses the invite up", async () => {
      const token = await h.inviteToken("member");
      const res = await h.t.req("POST", "/auth/signup", {
        token,
        name: "Ada Lovelace",
        email: " Ada@Example.com ",
        password: PASSWORD,
      });
      expect(res.status).toBe(201);
      const set = res.headers.getSetCookie().find((c) => c.startsWith("sr_session="))!;
      expect(set).toMatch(/HttpOnly/);
      expect(set).toMatch(/SameSite=Lax/);
      expect(set).toMatch(/Path=\/api\//);
      expect(set).not.toMatch(/Secure/); // plain http here
      const me = await json<Me>(h.as(sessionCookie(res), "GET", "/me"));
      expect(me).toMatchObject({
        signed_in: true,
        user: { name: "Ada Lovelace", email: "ada@example.com", role: "member", kind: "user" },
      });
      const again = await h.t.req("POST", "/auth/signup", {
        token,
        name: "Mallory",
        email: "mallory@example.com",
        password: PASSWORD,
      });
      await problem(again, 410, "invite_used");
      expect(await count("users")).toBe(1);
    });

    it("refuses an expired, a revoked and an unknown invite", async () => {
      const body = { name: "Bo", email: "bo@example.com", password: PASSWORD };
      const expired = await h.inviteToken("member");
      h.clock.advance(7 * DAY + 1000); // invite_ttl_days defaults to 7
      await problem(
        await h.t.req("POST", "/auth/signup", { ...body, token: expired }),
        410,
        "invite_expired",
      );
      const admin = await h.signUp("admin", "root@example.com");
      const made = await json<{ id: string; url: string }>(
        h.as(admin.cookie, "POST", "/admin/invites", { role: "viewer" }),
      );
      const revoked = await h.as(admin.cookie, "POST", `/admin/invites/${made.id}/revoke`);
      expect((await json<{ state: string }>(revoked)).state).toBe("revoked");
      const token = made.url.split("/invite/")[1]!;
      await problem(await h.t.req("POST", "/auth/signup", { ...body, token }), 410, "invite_revoked");
      await problem(
        await h.t.req("POST", "/auth/signup", { ...body, token: "sri_nope" }),
        404,
        "invite_not_found",
      );
      expect(await count("users")).toBe(1);
    });

    it("refuses a weak or empty password and a duplicate email, leaving the invite usable", async () => {
      await h.signUp("member", "taken@example.com");
      const token = await h.inviteToken("member");
      const base = { token, name: "Cy Young", email: "cy@example.com" };
      for (const password of ["", "short", "aaaaaaaaaaaaaaaa", "cy@example.com-2026!"]) {
        await problem(await h.t.req("POST", "/auth/signup", { ...base, password }), 400, "weak_password");
      }
      await problem(
        await h.t.req("POST", "/auth/signup", { ...base, email: "TAKEN@example.com", password: PASSWORD }),
        409,
        "email_taken",
      );
      await problem(
        await h.t.req("POST", "/auth/signup", { ...base, email: "not-an-email", password: PASSWORD }),
        400,
        "validation_failed",
      );
      expect(await count("users")).toBe(1);
      const ok = await h.t.req("POST", "/auth/signup", { ...base, password: PASSWORD });
      expect(ok.status).toBe(201);
    });
  });

  describe("signing in and out", () => {
    it("signs in with the password, and signing out ends the session at once", async () => {
      await h.signUp("member", "dee@example.com");
      const res = await h.t.req("POST", "/auth/sign-in", { email: "DEE@example.com", password: PASSWORD });
      expect(res.status).toBe(200);
      const cookie = sessionCookie(res);
      expect((await h.as(cookie, "GET", "/bundles")).status).toBe(200);
      const out = await h.as(cookie, "POST", "/auth/sign-out");
      expect(out.status).toBe(204);
      expect(out.headers.getSetCookie().join()).toMatch(/sr_session=;/);
      expect((await json<Me>(h.as(cookie, "GET", "/me"))).signed_in).toBe(false);
      await problem(await h.as(cookie, "GET", "/bundles"), 401, "unauthenticated");
    });

    it("answers a wrong password and an unknown email the same way", async () => {
      await h.signUp("member", "eve@example.com");
      const wrong = await problem(
        await h.t.req("POST", "/auth/sign-in", { email: "eve@example.com", password: "not the password" }),
        401,
        "invalid_credentials",
      );
      const unknown = await problem(
        await h.t.req("POST", "/auth/sign-in", { email: "nobody@example.com", password: "not the password" }),
        401,
        "invalid_credentials",
      );
      expect(wrong.detail).toBe(unknown.detail);
    });

    it("rate limits sign-in per account (429 with Retry-After), even for the right password, until the window passes", async () => {
      await h.signUp("member", "fay@example.com");
      const attempt = (password: string) =>
        h.t.req("POST", "/auth/sign-in", { email: "fay@example.com", password });
      for (let i = 0; i < 5; i++) await problem(await attempt("wrong password!"), 401, "invalid_credentials");
      const limited = await attempt(PASSWORD);
      const body = await problem(limited.clone(), 429, "rate_limited");
      const retry = Number(limited.headers.get("retry-after"));
      expect(retry).toBeGreaterThan(0);
      expect(retry).toBeLessThanOrEqual(15 * 60);
      expect(body.retry_after).toBe(retry);
      expect(await count("sessions")).toBe(1); // the sign-up's only
      h.clock.advance(15 * 60 * 1000);
      expect((await attempt(PASSWORD)).status).toBe(200);
    });

    it("rate limits sign-in per address across accounts", async () => {
      for (let i = 0; i < 20; i++)
        await problem(
          await h.t.req("POST", "/auth/sign-in", { email: `user${i}@example.com`, password: "guessing-123" }),
          401,
          "invalid_credentials",
        );
      await problem(
        await h.t.req("POST", "/auth/sign-in", { email: "fresh@example.com", password: "guessing-123" }),
        429,
        "rate_limited",
      );
    });

    it("treats a tampered or expired session cookie as nobody", async () => {
      const p = await h.signUp("member", "gil@example.com");
      const tampered = p.cookie.slice(0, -2) + (p.cookie.endsWith("A") ? "BB" : "AA");
      await problem(await h.as(tampered, "GET", "/bundles"), 401, "unauthenticated");
      expect((await json<Me>(h.as(tampered, "GET", "/me"))).signed_in).toBe(false);
      expect((await h.as(p.cookie, "GET", "/bundles")).status).toBe(200);
      h.clock.advance(30 * DAY + 1000);
      await problem(await h.as(p.cookie, "GET", "/bundles"), 401, "unauthenticated");
    });
  });

  describe("API tokens", () => {
    it("shows a token once, stores only its hash, and a revoked or expired token is refused", async () => {
      const p = await h.signUp("member", "hal@example.com");
      const made = await h.as(p.cookie, "POST", "/me/tokens", { name: "CI" });
      expect(made.status).toBe(201);
      const created = (await made.json()) as { id: string; token: string; last4: string };
      expect(created.token).toMatch(/^srt_/);
      expect(created.last4).toBe(created.token.slice(-4));
      const list = await json<{ items: Record<string, unknown>[] }>(h.as(p.cookie, "GET", "/me/tokens"));
      expect(list.items).toHaveLength(1);
      expect(JSON.stringify(list)).not.toContain(created.token);
      const stored = JSON.stringify(await h.t.database.db.execute(sql`select * from api_tokens`));
      expect(stored).not.toContain(created.token);

      const bearer = { authorization: `Bearer ${created.token}` };
      const me = await json<Me>(h.t.req("GET", "/me", undefined, bearer));
      expect(me.user?.email).toBe("hal@example.com");
      // A bearer write needs no Origin.
      expect((await h.t.req("POST", "/me/tokens", { name: "agent" }, bearer)).status).toBe(201);

      expect((await h.as(p.cookie, "DELETE", `/me/tokens/${created.id}`)).status).toBe(204);
      await problem(await h.t.req("GET", "/bundles", undefined, bearer), 401, "invalid_token");
      await problem(await h.as(p.cookie, "DELETE", `/me/tokens/${created.id}`), 404, "not_found");

      const short = await json<{ token: string }>(
        h.as(p.cookie, "POST", "/me/tokens", { name: "short", expires_in_days: 1 }),
      );
      const auth = { authorization: `Bearer ${short.token}` };
      expect((await h.t.req("GET", "/bundles", undefined, auth)).status).toBe(200);
      h.clock.advance(DAY + 1000);
      await problem(await h.t.req("GET", "/bundles", undefined, auth), 401, "invalid_token");
      await problem(
        await h.t.req("GET", "/me", undefined, { authorization: "Bearer srt_made_up" }),
        401,
        "invalid_token",
      );
    });

    it("keeps one person's tokens from another", async () => {
      const a = await h.signUp("member", "ida@example.com");
      const b = await h.signUp("member", "jon@example.com");
      const made = await json<{ id: string; token: string }>(
        h.as(a.cookie, "POST", "/me/tokens", { name: "mine" }),
      );
      expect((await json<{ items: unknown[] }>(h.as(b.cookie, "GET", "/me/tokens"))).items).toEqual([]);
      await problem(await h.as(b.cookie, "DELETE", `/me/tokens/${made.id}`), 404, "not_found");
      expect((await h.t.req("GET", "/me", undefined, { authorization: `Bearer ${made.token}` })).status).toBe(
        200,
      );
    });
  });

  describe("reset links", () => {
    it("sets a new password once, ending every session and token of the person", async () => {
      const admin = await h.signUp("admin", "root@example.com");
      const p = await h.signUp("member", "kim@example.com");
      const token = await json<{ token: string }>(h.as(p.cookie, "POST", "/me/tokens", { name: "CI" }));
      const link = await json<{ url: string; user_id: string; expires_at: string }>(
        h.as(admin.cookie, "POST", "/admin/reset-links", { user_id: p.id }),
      );
      expect(link.user_id).toBe(p.id);
      const resetToken = link.url.split("/reset/")[1]!;
      expect(JSON.stringify(await h.t.database.db.execute(sql`select * from reset_links`))).not.toContain(
        resetToken,
      );

      await problem(
        await h.t.req("POST", "/auth/reset", { token: resetToken, password: "weak" }),
        400,
        "weak_password",
      );
      const newPassword = "a much better passphrase 42";
      const res = await h.t.req("POST", "/auth/reset", { token: resetToken, password: newPassword });
      expect(res.status).toBe(200);
      const fresh = sessionCookie(res);
      await problem(await h.as(p.cookie, "GET", "/bundles"), 401, "unauthenticated");
      await problem(
        await h.t.req("GET", "/bundles", undefined, { authorization: `Bearer ${token.token}` }),
        401,
        "invalid_token",
      );
      expect((await h.as(fresh, "GET", "/bundles")).status).toBe(200);
      await problem(
        await h.t.req("POST", "/auth/reset", { token: resetToken, password: newPassword + "!" }),
        410,
        "reset_link_used",
      );
      await problem(
        await h.t.req("POST", "/auth/sign-in", { email: p.email, password: PASSWORD }),
        401,
        "invalid_credentials",
      );
      expect((await h.t.req("POST", "/auth/sign-in", { email: p.email, password: newPassword })).status).toBe(
        200,
      );
    });

    it("refuses a replaced, an expired and an unknown reset link; an unknown person is not found", async () => {
      const admin = await h.signUp("admin", "root@example.com");
      const p = await h.signUp("member", "lu@example.com");
      const make = async () =>
        (
          await json<{ url: string }>(h.as(admin.cookie, "POST", "/admin/reset-links", { user_id: p.id }))
        ).url.split("/reset/")[1]!;
      const first = await make();
      const second = await make();
      const body = (token: string) => ({ token, password: "another good passphrase" });
      await problem(await h.t.req("POST", "/auth/reset", body(first)), 410, "reset_link_revoked");
      h.clock.advance(DAY + 1000);
      await problem(await h.t.req("POST", "/auth/reset", body(second)), 410, "reset_link_expired");
      await problem(await h.t.req("POST", "/auth/reset", body("srr_nope")), 404, "reset_link_not_found");
      await problem(
        await h.as(admin.cookie, "POST", "/admin/reset-links", {
          user_id: "00000000-0000-4000-8000-000000000000",
        }),
        404,
        "not_found",
      );
      expect((await h.t.req("POST", "/auth/sign-in", { email: p.email, password: PASSWORD })).status).toBe(
        200,
      );
    });
  });

  describe("removing a person", () => {
    it("ends their sessions and tokens at once and refuses their sign-in", async () => {
      await h.signUp("admin", "root@example.com");
      const p = await h.signUp("member", "max@example.com");
      const token = await json<{ token: string }>(h.as(p.cookie, "POST", "/me/tokens", { name: "CI" }));
      await h.t.services.accounts.remove("MAX@example.com");
      await problem(await h.as(p.cookie, "GET", "/bundles"), 401, "unauthenticated");
      await problem(
        await h.t.req("GET", "/bundles", undefined, { authorization: `Bearer ${token.token}` }),
        401,
        "invalid_token",
      );
      await problem(
        await h.t.req("POST", "/auth/sign-in", { email: p.email, password: PASSWORD }),
        401,
        "invalid_credentials",
      );
      const people = await json<{ items: { email: string }[] }>(
        h.as((await h.signUp("viewer", "v@example.com")).cookie, "GET", "/people"),
      );
      expect(people.items.map((x) => x.email).sort()).toEqual(["root@example.com", "v@example.com"]);
    });

    it("never leaves the workspace without an admin", async () => {
      await h.signUp("admin", "root@example.com");
      await expect(h.t.services.accounts.remove("root@example.com")).rejects.toMatchObject({
        code: "last_admin",
      });
      await expect(h.t.services.accounts.setRole("root@example.com", "member")).rejects.toMatchObject({
        code: "last_admin",
      });
    });
  });

  describe("cookie writes and CSRF", () => {
    it("refuses a cookie write with a foreign or no Origin, and changes nothing", async () => {
      const p = await h.signUp("member", "ned@example.com");
      const post = (headers: Record<string, string>) =>
        h.t.req("POST", "/me/tokens", { name: "x" }, { cookie: p.cookie, ...headers });
      await problem(await post({ origin: "https://evil.example" }), 403, "cross_origin");
      await problem(await post({}), 403, "origin_required");
      await problem(await post({ "sec-fetch-site": "cross-site" }), 403, "cross_origin");
      expect(await count("api_tokens")).toBe(0);
      expect((await post({ "sec-fetch-site": "same-origin" })).status).toBe(201);
      expect((await post({ origin: "http://localhost" })).status).toBe(201);
      // Reads need no Origin.
      expect((await h.t.req("GET", "/me/tokens", undefined, { cookie: p.cookie })).status).toBe(200);
    });
  });

  describe("admin invites", () => {
    it("lists invites newest first without URLs, stores only hashes, and revokes unused ones only", async () => {
      const admin = await h.signUp("admin", "root@example.com");
      h.clock.advance(1000);
      const a = await json<{ id: string; url: string; state: string; role: string }>(
        h.as(admin.cookie, "POST", "/admin/invites", { role: "member" }),
      );
      expect(a).toMatchObject({ state: "unused", role: "member" });
      expect(a.url).toMatch(/^http:\/\/127\.0\.0\.1:8787\/invite\/sri_/);
      h.clock.advance(1000);
      const b = await json<{ id: string; url: string; expires_at: string; created_at: string }>(
        h.as(admin.cookie, "POST", "/admin/invites", { role: "viewer" }),
      );
      expect(Date.parse(b.expires_at) - Date.parse(b.created_at)).toBe(7 * DAY);
      const list = await json<{ items: { id: string; state: string }[] }>(
        h.as(admin.cookie, "GET", "/admin/invites"),
      );
      expect(list.items.map((i) => i.id).slice(0, 2)).toEqual([b.id, a.id]);
      expect(JSON.stringify(list)).not.toContain("/invite/");
      const stored = JSON.stringify(await h.t.database.db.execute(sql`select * from invites`));
      expect(stored).not.toContain(a.url.split("/invite/")[1]!);

      await problem(
        await h.as(admin.cookie, "POST", "/admin/invites", { role: "owner" }),
        400,
        "validation_failed",
      );
      const used = list.items.find((i) => i.state === "used")!; // the admin's own invite
      await problem(
        await h.as(admin.cookie, "POST", `/admin/invites/${used.id}/revoke`),
        409,
        "invite_not_revocable",
      );
      await problem(
        await h.as(admin.cookie, "POST", "/admin/invites/00000000-0000-4000-8000-000000000000/revoke"),
        404,
        "not_found",
      );
    });

    it("is for admins: a member gets 403, nobody signed in 401", async () => {
      const m = await h.signUp("member", "oz@example.com");
      await problem(await h.as(m.cookie, "POST", "/admin/invites", { role: "admin" }), 403, "forbidden");
      await problem(await h.as(m.cookie, "POST", "/admin/reset-links", { user_id: m.id }), 403, "forbidden");
      await problem(await h.t.req("GET", "/admin/invites"), 401, "unauthenticated");
      await problem(await h.t.req("GET", "/me/tokens"), 401, "unauthenticated");
      expect((await json<Me>(h.t.req("GET", "/me"))).signed_in).toBe(false);
      expect(await count("invites")).toBe(1);
    });
  });
});

describe("local mode", () => {
  it("has no accounts: people is empty, sign-in and invites answer hosted_only", async () => {
    const t = await makeTestApp();
    try {
      expect(await json(t.req("GET", "/people"))).toEqual({ items: [] });
      expect(await json(t.req("GET", "/admin/invites"))).toEqual({ items: [] });
      await problem(
        await t.req("POST", "/auth/sign-in", { email: "a@b.co", password: "x" }),
        409,
        "hosted_only",
      );
      await problem(await t.req("POST", "/admin/invites", { role: "member" }), 409, "hosted_only");
      await problem(await t.req("GET", "/me/tokens"), 409, "hosted_only");
    } finally {
      await t.close();
    }
  });
});
