/**
 * A person's GitHub login, linked to their account (docs/accounts.md, "GitHub login"): the
 * App places a commenter and a pull request approver by it (app/people.ts). A person links
 * theirs through the GitHub App's user authorization (GitHub's OAuth web flow for GitHub
 * Apps), when the App's client id and secret are set (GITHUB_CLIENT_ID,
 * GITHUB_CLIENT_SECRET); an admin sets or clears anyone's (`PUT /admin/users/{userId}/github-login`,
 * `spec-review admin github-login`).
 *
 * The `state` of the flow is `<nonce>.<expiry>.<mac>`: an HMAC-SHA256 keyed by the caller's
 * credential (the session cookie, else the bearer token) over the account, the nonce and the
 * expiry, so it is bound to that session, expires after 10 minutes, and is used once (its
 * SHA-256 is kept in `used_oauth_states` until it would have expired). The client secret and the user token
 * are never logged or answered; the user token is used for one `GET /user` and dropped.
 */
import { createHash, createHmac, randomBytes } from "node:crypto";
import { and, eq, isNull, lt, ne } from "drizzle-orm";
import { isUniqueViolation, type Db } from "../db/index.js";
import { usedOauthStates, users } from "../db/schema.js";
import { ApiError, NotFoundError, ValidationError } from "../errors.js";
import { registerSecret } from "../redact.js";
import { PUBLIC_API_URL } from "../repohost/github.js";
import { safeEqual } from "./secrets.js";

/** A GitHub login as GitHub allows them: letters, digits and single hyphens, 1 to 39 characters. */
export const GITHUB_LOGIN = /^[a-z\d](?:[a-z\d]|-(?=[a-z\d])){0,38}$/i;

/** How long a `state` is good for. */
export const STATE_TTL_MS = 10 * 60 * 1000;

export interface GitHubOAuthConfig {
  /** The App's client id and secret (GITHUB_CLIENT_ID, GITHUB_CLIENT_SECRET). */
  clientId?: string;
  clientSecret?: string;
  /** GitHub's web address: `https://github.com`, or the Enterprise Server's (GHE_HOST). */
  webUrl: string;
  /** GitHub's API address: `https://api.github.com`, or `<GHE>/api/v3`. */
  apiUrl: string;
  /** The fetch the token exchange and `GET /user` go through (tests). */
  fetch?: typeof fetch;
}

/** From the environment: GITHUB_CLIENT_ID, GITHUB_CLIENT_SECRET, and GHE_HOST/GHE_PROTOCOL as Probot reads them. */
export function githubOAuthFromEnv(env: NodeJS.ProcessEnv = process.env): GitHubOAuthConfig {
  const host = env["GHE_HOST"];
  const protocol = env["GHE_PROTOCOL"] ?? "https";
  return {
    ...(env["GITHUB_CLIENT_ID"] ? { clientId: env["GITHUB_CLIENT_ID"] } : {}),
    ...(env["GITHUB_CLIENT_SECRET"] ? { clientSecret: env["GITHUB_CLIENT_SECRET"] } : {}),
    webUrl: host ? `${protocol}://${host}` : "https://github.com",
    apiUrl: host ? `${protocol}://${host}/api/v3` : PUBLIC_API_URL,
  };
}

/** A lower-cased login, or a 400 naming the field. */
export function normalLogin(login: string, field = "body.github_login"): string {
  const l = login.trim().replace(/^@/, "").toLowerCase();
  if (!GITHUB_LOGIN.test(l))
    throw new ValidationError(`${JSON.stringify(login.slice(0, 60))} is not a GitHub login`, [
      { field, message: "letters, digits and single hyphens, at most 39 characters" },
    ]);
  return l;
}

export class GitHubLink {
  constructor(
    private readonly db: Db,
    private readonly now: () => Date,
    /** Read on every request: tests (and a later configuration) may replace it. */
    public config: GitHubOAuthConfig,
  ) {}

  /** The client id and secret, or 503 `github_link_unavailable`. */
  private client(): { id: string; secret: string } {
    const { clientId, clientSecret } = this.config;
    if (!clientId || !clientSecret)
      throw new ApiError(
        "github_link_unavailable",
        "linking a GitHub login needs the GitHub App's client id and secret (GITHUB_CLIENT_ID, GITHUB_CLIENT_SECRET); an admin can set a login instead",
      );
    // Masked wherever it could appear (log lines, answers): server/redact.ts.
    registerSecret(clientSecret);
    return { id: clientId, secret: clientSecret };
  }

  private mac(credential: string, userId: string, nonce: string, expiry: string): string {
    return createHmac("sha256", `spec-review github link v1:${credential}`)
      .update(`${userId}.${nonce}.${expiry}`)
      .digest("base64url");
  }

  /** Where to send the signed-in person: GitHub's authorize page, with a fresh state. */
  authorizeUrl(userId: string, credential: string, redirectUri: string): string {
    const client = this.client();
    const nonce = randomBytes(16).toString("base64url");
    const expiry = String(this.now().getTime() + STATE_TTL_MS);
    const state = `${nonce}.${expiry}.${this.mac(credential, userId, nonce, expiry)}`;
    const url = new URL("/login/oauth/authorize", this.config.webUrl);
    url.searchParams.set("client_id", client.id);
    url.searchParams.set("redirect_uri", redirectUri);
    url.searchParams.set("state", state);
    url.searchParams.set("allow_signup", "false");
    return url.href;
  }

  /** Checks the state (this session's, not expired, not used before) and uses it up. */
  private async useState(state: string, userId: string, credential: string): Promise<void> {
    const [nonce = "", expiry = "", mac = "", ...rest] = state.split(".");
    if (
      rest.length ||
      !nonce ||
      !/^\d+$/.test(expiry) ||
      !safeEqual(mac, this.mac(credential, userId, nonce, expiry))
    )
      throw new ApiError(
        "oauth_state_invalid",
        "this authorization was not started from this session; start again",
      );
    if (Number(expiry) <= this.now().getTime())
      throw new ApiError(
        "oauth_state_invalid",
        "this authorization took longer than 10 minutes; start again",
      );
    // States past their expiry are refused above, so their rows can go.
    await this.db.delete(usedOauthStates).where(lt(usedOauthStates.expiresAt, this.now()));
    const used = await this.db
      .insert(usedOauthStates)
      .values({
        hash: createHash("sha256").update(state).digest("hex"),
        expiresAt: new Date(Number(expiry)),
      })
      .onConflictDoNothing()
      .returning({ hash: usedOauthStates.hash });
    if (used.length === 0)
      throw new ApiError("oauth_state_invalid", "this authorization was used already; start again");
  }

  /** GitHub's answer to a call of the flow, or 502 `github_oauth_failed` (never with a token or the secret in it). */
  private async call<T>(url: string, init: RequestInit, what: string): Promise<T> {
    let res: Response;
    try {
      res = await (this.config.fetch ?? fetch)(url, init);
    } catch (err) {
      throw new ApiError(
        "github_oauth_failed",
        `GitHub could not be reached (${what}): ${(err as Error).message}`,
      );
    }
    const body = (await res.json().catch(() => ({}))) as T & { error?: string; message?: string };
    if (!res.ok || body.error)
      throw new ApiError(
        "github_oauth_failed",
        `GitHub refused ${what}: ${String(body.error ?? body.message ?? res.status)}`,
      );
    return body;
  }

  /**
   * GitHub sent the person back: the state is checked and used up, the code exchanged for a
   * user token, `GET /user` read with it, and its login stored on the account.
   */
  async callback(
    input: { code?: string; state?: string },
    userId: string,
    credential: string,
    redirectUri: string,
  ): Promise<string> {
    const client = this.client();
    if (!input.state) throw new ApiError("oauth_state_invalid", "GitHub sent no state back; start again");
    await this.useState(input.state, userId, credential);
    if (!input.code)
      throw new ApiError("github_oauth_failed", "GitHub sent no code back (was access denied?)");
    const token = await this.call<{ access_token?: string }>(
      new URL("/login/oauth/access_token", this.config.webUrl).href,
      {
        method: "POST",
        headers: { accept: "application/json", "content-type": "application/json" },
        body: JSON.stringify({
          client_id: client.id,
          client_secret: client.secret,
          code: input.code,
          redirect_uri: redirectUri,
        }),
      },
      "the code",
    );
    if (!token.access_token) throw new ApiError("github_oauth_failed", "GitHub answered no user token");
    const user = await this.call<{ login?: string }>(
      `${this.config.apiUrl.replace(/\/+$/, "")}/user`,
      {
        headers: {
          accept: "application/vnd.github+json",
          authorization: `Bearer ${token.access_token}`,
          "user-agent": "spec-review",
        },
      },
      "GET /user",
    );
    if (!user.login) throw new ApiError("github_oauth_failed", "GitHub's GET /user answered no login");
    await this.setLogin(userId, user.login);
    return normalLogin(user.login);
  }

  /**
   * Sets (or, with null, clears) an account's login. A login another account holds is
   * refused with 409 `github_login_taken` (an admin clears it there first).
   */
  async setLogin(userId: string, login: string | null): Promise<void> {
    const value = login === null ? null : normalLogin(login);
    const [user] = await this.db.select({ id: users.id }).from(users).where(eq(users.id, userId));
    if (!user) throw new NotFoundError("user", userId);
    if (value !== null) {
      const [holder] = await this.db
        .select({ id: users.id })
        .from(users)
        .where(and(eq(users.githubLogin, value), ne(users.id, userId)));
      if (holder) throw taken(value);
    }
    try {
      await this.db.update(users).set({ githubLogin: value }).where(eq(users.id, userId));
    } catch (err) {
      if (isUniqueViolation(err)) throw taken(value ?? "");
      throw err;
    }
  }

  /** The active account a login is linked to, if any. */
  async accountOf(login: string): Promise<typeof users.$inferSelect | undefined> {
    const [row] = await this.db
      .select()
      .from(users)
      .where(and(eq(users.githubLogin, login.toLowerCase()), isNull(users.removedAt)));
    return row;
  }
}

function taken(login: string): ApiError {
  return new ApiError(
    "github_login_taken",
    `the GitHub login ${login} is linked to another account; an admin can clear it there first`,
  );
}
