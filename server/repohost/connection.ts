/**
 * The workspace's repohost token (GET/PUT/DELETE /admin/repohost): checked with the repo
 * host before it is kept, sealed at rest with the secret box (as model backend secrets
 * are), never returned; only its last 4 characters and the account it belongs to are.
 */
import { eq } from "drizzle-orm";
import type { Db } from "../db/index.js";
import { repohostConnection } from "../db/schema.js";
import { ApiError } from "../errors.js";
import type { SecretBox } from "../models/secrets.js";
import { registerSecret } from "../redact.js";
import { GitHubApi, GitHubError, asApiError, type GitHubApiOptions } from "./github.js";
import type { RateLimitObserver } from "./rate-limit.js";

const ROW = "default";
/** Associated data the token is sealed with: a sealed value copied elsewhere does not open. */
const CONTEXT = "repohost:token";

export interface ConnectionView {
  configured: boolean;
  token_last4?: string;
  api_url: string;
  login?: string;
}

export class RepohostConnection {
  constructor(
    private readonly db: Db,
    private readonly box: SecretBox,
    /** The API address when none is set: GHE_HOST's, else the public one. */
    private readonly defaultApiUrl: string,
    private readonly now: () => Date,
    private readonly fetcher?: GitHubApiOptions["fetch"],
    private readonly observer?: RateLimitObserver,
  ) {}

  async view(): Promise<ConnectionView> {
    const [row] = await this.db.select().from(repohostConnection).where(eq(repohostConnection.id, ROW));
    if (!row) return { configured: false, api_url: this.defaultApiUrl };
    return {
      configured: true,
      token_last4: row.tokenLast4,
      api_url: row.apiUrl,
      ...(row.login ? { login: row.login } : {}),
    };
  }

  /** Check the token with the repo host (GET /user), then keep it. Nothing is kept when the check fails. */
  async set(token: string, apiUrl: string | undefined): Promise<ConnectionView> {
    registerSecret(token);
    const url = (apiUrl ?? this.defaultApiUrl).replace(/\/+$/, "");
    if (!/^https?:\/\/[^/]+/.test(url))
      throw new ApiError("validation_failed", "api_url must be an http(s) URL", {
        errors: [{ field: "body.api_url", message: "not an http(s) URL" }],
      });
    const api = new GitHubApi({ baseUrl: url, token: () => Promise.resolve(token), fetch: this.fetcher });
    let login: string;
    try {
      login = (await api.user()).login;
    } catch (err) {
      if (err instanceof GitHubError && err.status === 401)
        throw new ApiError("repohost_token_rejected", "the repo host answered 401 to the token");
      throw asApiError(err, "checking the token");
    }
    const values = {
      tokenSealed: this.box.seal(token, CONTEXT),
      tokenLast4: token.slice(-4),
      apiUrl: url,
      login,
      updatedAt: this.now(),
    };
    await this.db
      .insert(repohostConnection)
      .values({ id: ROW, ...values })
      .onConflictDoUpdate({ target: repohostConnection.id, set: values });
    return { configured: true, token_last4: values.tokenLast4, api_url: url, login };
  }

  async remove(): Promise<void> {
    await this.db.delete(repohostConnection).where(eq(repohostConnection.id, ROW));
    this.cached = undefined;
  }

  /** The client of the stored token, kept while the token is, so its ETags serve the next sync. */
  private cached: { sealed: string; api: GitHubApi } | undefined;

  /** A client on the stored token, or undefined when none is set. */
  async client(): Promise<GitHubApi | undefined> {
    const [row] = await this.db.select().from(repohostConnection).where(eq(repohostConnection.id, ROW));
    if (!row) return undefined;
    if (this.cached?.sealed === row.tokenSealed + row.apiUrl) return this.cached.api;
    const token = this.box.open(row.tokenSealed, CONTEXT);
    registerSecret(token);
    const api = new GitHubApi({
      baseUrl: row.apiUrl,
      token: () => Promise.resolve(token),
      fetch: this.fetcher,
      who: "token",
      now: this.now,
      ...(this.observer ? { observer: this.observer } : {}),
    });
    this.cached = { sealed: row.tokenSealed + row.apiUrl, api };
    return api;
  }
}
