/** A hosted test app with people in it, and the cookie and token plumbing the account tests share. */
import { expect } from "vitest";
import { makeTestApp, type TestApp } from "../../helpers/app.js";

export const PASSWORD = "correct horse battery staple";

/** A clock the test moves forward. */
export function testClock(start = Date.parse("2026-03-02T09:00:00Z")) {
  let t = start;
  return {
    now: () => new Date(t),
    advance: (ms: number) => {
      t += ms;
    },
  };
}

export const DAY = 24 * 60 * 60 * 1000;

/** The session cookie a response set (`sr_session=<value>`), for the next request's Cookie header. */
export function sessionCookie(res: Response): string {
  const set = res.headers.getSetCookie().find((c) => c.startsWith("sr_session="));
  expect(set, "a session cookie is set").toBeDefined();
  return set!.split(";")[0]!;
}

export interface Person {
  email: string;
  cookie: string;
  id: string;
}

export class Hosted {
  constructor(
    readonly t: TestApp,
    readonly clock: ReturnType<typeof testClock>,
  ) {}

  static async open(kind: "pglite" | "postgres"): Promise<Hosted> {
    const clock = testClock();
    // A cheaper scrypt than the service's (2^15): the tests sign in hundreds of times.
    const t = await makeTestApp({ kind, mode: "hosted", clock, passwordCost: 10 });
    return new Hosted(t, clock);
  }

  /** A request as a browser of this service would send it (same Origin on writes). */
  as(
    cookie: string | undefined,
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) {
    const h: Record<string, string> = { ...headers };
    if (cookie) h.cookie = cookie;
    if (method !== "GET" && !("origin" in h)) h.origin = "http://localhost";
    return this.t.req(method, path, body, h);
  }

  /** An invite URL's token, made directly on the service (as the first start does). */
  async inviteToken(role: string): Promise<string> {
    const invite = await this.t.services.accounts.createInvite(role, "test");
    return invite.url.split("/invite/")[1]!;
  }

  async signUp(role: string, email: string, name = email.split("@")[0]!): Promise<Person> {
    const res = await this.t.req("POST", "/auth/signup", {
      token: await this.inviteToken(role),
      name,
      email,
      password: PASSWORD,
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const me = (await res.json()) as { user: { id: string } };
    return { email, cookie: sessionCookie(res), id: me.user.id };
  }
}
