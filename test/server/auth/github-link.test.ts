/**
 * Linking a GitHub login to an account (docs/accounts.md, "GitHub login"): the App's user
 * authorization against a local fake GitHub (the authorize redirect carries a state; the
 * callback refuses a bad, expired, reused or other session's state; a good code links the
 * login; a login another account holds is refused), the answer without a client id and
 * secret, and an admin setting and clearing anyone's login. Never a token or the secret in
 * an answer.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DB_KINDS, json, problem } from "../../helpers/app.js";
import { Hosted, type Person } from "./helpers.js";

const CLIENT_ID = "Iv1.fa6e0c9d2b3a4f51";
const CLIENT_SECRET = "0123456789abcdef0123456789abcdef01234567";

/** GitHub's OAuth endpoints for the App: codes it handed out (code -> login), the token exchange, GET /user. */
class FakeGitHubOAuth {
  readonly codes = new Map<string, string>();
  readonly exchanges: Array<Record<string, string>> = [];
  private readonly tokens = new Map<string, string>();
  private server: Server | undefined;
  url = "";

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        const send = (status: number, value: unknown) => {
          res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
        };
        if (req.method === "POST" && req.url === "/login/oauth/access_token") {
          const b = JSON.parse(body) as Record<string, string>;
          this.exchanges.push(b);
          const login = this.codes.get(b.code ?? "");
          if (b.client_id !== CLIENT_ID || b.client_secret !== CLIENT_SECRET || !login)
            return send(200, { error: "bad_verification_code" });
          this.codes.delete(b.code!);
          const token = `ghu_${Math.random().toString(36).slice(2)}`;
          this.tokens.set(token, login);
          return send(200, { access_token: token, token_type: "bearer", scope: "" });
        }
        if (req.method === "GET" && req.url === "/api/v3/user") {
          const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
          const login = token ? this.tokens.get(token) : undefined;
          return login ? send(200, { login, id: 1 }) : send(401, { message: "Bad credentials" });
        }
        send(404, { message: "Not Found" });
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, "127.0.0.1", r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    if (this.server) await new Promise<void>((r) => this.server!.close(() => r()));
  }
}

describe.each(DB_KINDS)("GitHub login (%s)", (kind) => {
  const gh = new FakeGitHubOAuth();
  let h: Hosted;
  let admin: Person;
  let ada: Person;

  beforeAll(async () => {
    await gh.start();
  });
  afterAll(async () => {
    await gh.stop();
  });
  beforeEach(async () => {
    gh.exchanges.length = 0;
    gh.codes.clear();
    h = await Hosted.open(kind);
    admin = await h.signUp("admin", "root@example.com", "Root");
    ada = await h.signUp("member", "ada@example.com", "Ada");
    h.t.services.githubLink!.config = {
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      webUrl: gh.url,
      apiUrl: `${gh.url}/api/v3`,
    };
  });
  afterEach(async () => {
    await h.t.close();
  });

  /** Starts the flow as `p`: the state of the authorize redirect. */
  async function start(p: Person): Promise<string> {
    const res = await h.as(p.cookie, "GET", "/auth/github");
    expect(res.status, await res.clone().text()).toBe(302);
    const location = new URL(res.headers.get("location")!);
    expect(`${location.origin}${location.pathname}`).toBe(`${gh.url}/login/oauth/authorize`);
    expect(location.searchParams.get("client_id")).toBe(CLIENT_ID);
    expect(location.searchParams.get("redirect_uri")).toMatch(/\/api\/v1\/auth\/github\/callback$/);
    const state = location.searchParams.get("state");
    expect(state).toMatch(/^[\w-]+\.\d+\.[\w-]+$/);
    return state!;
  }

  const callback = (p: Person, code: string, state: string) =>
    h.as(
      p.cookie,
      "GET",
      `/auth/github/callback?code=${encodeURIComponent(code)}&state=${encodeURIComponent(state)}`,
    );

  it("redirects to GitHub with a state, and a good code links the login (lower-cased)", async () => {
    const state = await start(ada);
    gh.codes.set("code-1", "Ada-L");
    const res = await callback(ada, "code-1", state);
    const text = await res.clone().text();
    expect(res.status, text).toBe(200);
    expect(await res.json()).toEqual({
      id: ada.id,
      name: "Ada",
      email: "ada@example.com",
      role: "member",
      github_login: "ada-l",
    });
    expect(text).not.toContain(CLIENT_SECRET);
    expect(text).not.toMatch(/ghu_/);
    expect(gh.exchanges).toEqual([
      expect.objectContaining({ client_id: CLIENT_ID, code: "code-1", redirect_uri: expect.any(String) }),
    ]);
    // A page that navigates itself asks for the address as JSON.
    const asJson = await json<{ authorize_url: string }>(
      h.as(ada.cookie, "GET", "/auth/github", undefined, { accept: "application/json" }),
    );
    expect(asJson.authorize_url).toMatch(new RegExp(`^${gh.url}/login/oauth/authorize\\?client_id=`));
    const people = await json<{ items: Array<{ id: string; github_login: string | null }> }>(
      h.as(ada.cookie, "GET", "/people"),
    );
    expect(people.items.find((p) => p.id === ada.id)!.github_login).toBe("ada-l");
    expect(people.items.find((p) => p.id === admin.id)!.github_login).toBeNull();
  });

  it("refuses a reused, tampered, expired or other session's state, and links nothing", async () => {
    const state = await start(ada);
    gh.codes.set("code-1", "ada-l");
    expect((await callback(ada, "code-1", state)).status).toBe(200);
    await h.t.services.githubLink!.setLogin(ada.id, null);
    // Used once already.
    gh.codes.set("code-2", "ada-l");
    const reused = await problem(await callback(ada, "code-2", state), 400, "oauth_state_invalid");
    expect(reused.detail).toMatch(/used already/);
    // Tampered.
    const other = await start(ada);
    const [nonce, expiry, mac] = other.split(".") as [string, string, string];
    await problem(
      await callback(ada, "code-2", `${nonce}.${Number(expiry) + 1}.${mac}`),
      400,
      "oauth_state_invalid",
    );
    await problem(await callback(ada, "code-2", "nonsense"), 400, "oauth_state_invalid");
    await problem(
      await h.as(ada.cookie, "GET", "/auth/github/callback?code=code-2"),
      400,
      "oauth_state_invalid",
    );
    // Made for another session (the admin's), even of the same person later.
    const admins = await start(admin);
    await problem(await callback(ada, "code-2", admins), 400, "oauth_state_invalid");
    // Expired: 10 minutes.
    const late = await start(ada);
    h.clock.advance(10 * 60 * 1000 + 1);
    const expired = await problem(await callback(ada, "code-2", late), 400, "oauth_state_invalid");
    expect(expired.detail).toMatch(/10 minutes/);
    // None of these reached GitHub's token exchange.
    expect(gh.exchanges).toHaveLength(1);
    expect((await h.t.services.accounts.person(ada.id)).github_login).toBeNull();
    // A bad code: GitHub refuses it.
    const fresh = await start(ada);
    const bad = await problem(await callback(ada, "no-such-code", fresh), 502, "github_oauth_failed");
    expect(JSON.stringify(bad)).not.toContain(CLIENT_SECRET);
    // Anonymous: sign in first.
    await problem(await h.t.req("GET", "/auth/github"), 401, "unauthenticated");
  });

  it("refuses a login another account has linked", async () => {
    await h.t.services.githubLink!.setLogin(admin.id, "octo");
    const state = await start(ada);
    gh.codes.set("code-1", "Octo");
    const res = await problem(await callback(ada, "code-1", state), 409, "github_login_taken");
    expect(res.detail).toMatch(/another account/);
    expect((await h.t.services.accounts.person(ada.id)).github_login).toBeNull();
    expect((await h.t.services.accounts.person(admin.id)).github_login).toBe("octo");
  });

  it("answers 503 github_link_unavailable without the App's client id and secret", async () => {
    h.t.services.githubLink!.config = { webUrl: gh.url, apiUrl: `${gh.url}/api/v3` };
    const res = await problem(await h.as(ada.cookie, "GET", "/auth/github"), 503, "github_link_unavailable");
    expect(res.detail).toMatch(/GITHUB_CLIENT_ID/);
    await problem(await callback(ada, "code", "a.1.b"), 503, "github_link_unavailable");
  });

  it("lets an admin set and clear anyone's login; others may not", async () => {
    const path = `/admin/users/${ada.id}/github-login`;
    expect(await json(h.as(admin.cookie, "PUT", path, { github_login: "@Ada-L" }))).toEqual({
      id: ada.id,
      name: "Ada",
      email: "ada@example.com",
      role: "member",
      github_login: "ada-l",
    });
    await problem(await h.as(ada.cookie, "PUT", path, { github_login: "x" }), 403, "forbidden");
    await problem(
      await h.as(admin.cookie, "PUT", `/admin/users/${admin.id}/github-login`, { github_login: "ADA-L" }),
      409,
      "github_login_taken",
    );
    const invalid = await problem(
      await h.as(admin.cookie, "PUT", path, { github_login: "not a login" }),
      400,
      "validation_failed",
    );
    expect(invalid.errors).toEqual([expect.objectContaining({ field: "body.github_login" })]);
    await problem(
      await h.as(admin.cookie, "PUT", `/admin/users/${crypto.randomUUID()}/github-login`, {
        github_login: "zed",
      }),
      404,
      "not_found",
    );
    expect(await json(h.as(admin.cookie, "PUT", path, { github_login: null }))).toMatchObject({
      github_login: null,
    });
    // Cleared: the login is free for another account.
    expect(
      await json(
        h.as(admin.cookie, "PUT", `/admin/users/${admin.id}/github-login`, { github_login: "ada-l" }),
      ),
    ).toMatchObject({ github_login: "ada-l" });
  });
});
