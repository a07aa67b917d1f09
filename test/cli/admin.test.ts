/**
 * `spec-review admin` on an embedded database: invites, the people list, role changes and
 * removal (which ends sessions and tokens), and a clear refusal while the database is in use.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminCommand } from "../../cli/admin.js";
import { openDatabase } from "../../server/db/index.js";
import { Accounts } from "../../server/auth/accounts.js";

let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "sr-admin-"));
  mkdirSync(join(dir, "db"));
  await (await openDatabase(join(dir, "db"))).close();
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function admin(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await adminCommand(argv, { out: (l) => out.push(l), err: (l) => err.push(l), env: {} });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

describe("spec-review admin", { timeout: 120_000 }, () => {
  it("prints an invite, lists people, changes a role and removes a person", async () => {
    const made = await admin(
      "invite",
      "--role",
      "admin",
      "--data-dir",
      dir,
      "--public-url",
      "https://specs.example.com/",
    );
    expect(made.code, made.err).toBe(0);
    expect(made.out).toMatch(/^admin invite: https:\/\/specs\.example\.com\/invite\/sri_[A-Za-z0-9_-]{43}$/m);
    const token = /invite\/(\S+)/.exec(made.out)![1]!;

    // Someone accepts it (as the service would), and makes an API token.
    const database = await openDatabase(join(dir, "db"));
    let apiToken: string;
    try {
      const accounts = new Accounts(database.db, () => new Date(), "http://localhost", 10);
      const root = await accounts.signup({
        token,
        name: "Root",
        email: "root@example.com",
        password: "a decent passphrase",
      });
      const member = await accounts.createInvite("member", "test");
      const m = await accounts.signup({
        token: member.url.split("/invite/")[1]!,
        name: "Mo",
        email: "mo@example.com",
        password: "another decent passphrase",
      });
      apiToken = (await accounts.sessions.createToken(m.actor.id, { name: "CI" })).token;
      expect(root.actor.role).toBe("admin");
    } finally {
      await database.close();
    }

    const users = await admin("users", "--data-dir", dir);
    expect(users.out.split("\n").sort()).toEqual([
      "mo@example.com\tmember\tMo",
      "root@example.com\tadmin\tRoot",
    ]);
    expect((await admin("set-role", "MO@example.com", "viewer", "--data-dir", dir)).out).toBe(
      "mo@example.com is now viewer",
    );
    const bad = await admin("set-role", "mo@example.com", "owner", "--data-dir", dir);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/no role "owner"/);
    const last = await admin("remove", "root@example.com", "--data-dir", dir);
    expect(last.code).toBe(1);
    expect(last.err).toMatch(/only admin/);
    expect((await admin("remove", "mo@example.com", "--data-dir", dir)).code).toBe(0);
    expect((await admin("users", "--data-dir", dir)).out).toMatch(/mo@example\.com\tviewer\tMo\tremoved /);

    const after = await openDatabase(join(dir, "db"));
    try {
      const accounts = new Accounts(after.db, () => new Date(), "http://localhost");
      await expect(accounts.sessions.actorOfToken(apiToken)).rejects.toMatchObject({ code: "invalid_token" });
    } finally {
      await after.close();
    }
    expect((await admin("remove", "nobody@example.com", "--data-dir", dir)).err).toMatch(/does not exist/);
  });

  it("links and unlinks a person's GitHub login, shown in the people list", async () => {
    const database = await openDatabase(join(dir, "db"));
    try {
      const accounts = new Accounts(database.db, () => new Date(), "http://localhost", 10);
      const invite = await accounts.createInvite("member", "test");
      await accounts.signup({
        token: invite.url.split("/invite/")[1]!,
        name: "Gil",
        email: "gil@example.com",
        password: "yet another decent passphrase",
      });
    } finally {
      await database.close();
    }
    const set = await admin("github-login", "Gil@example.com", "@Gil-Hub", "--data-dir", dir);
    expect(set.code, set.err).toBe(0);
    expect(set.out).toBe("gil@example.com is @gil-hub on GitHub");
    expect((await admin("users", "--data-dir", dir)).out).toMatch(
      /^gil@example\.com\tmember\tGil\t\tgithub:gil-hub$/m,
    );
    const taken = await admin("github-login", "root@example.com", "GIL-HUB", "--data-dir", dir);
    expect(taken.code).toBe(1);
    expect(taken.err).toMatch(/linked to another account/);
    const bad = await admin("github-login", "gil@example.com", "not a login", "--data-dir", dir);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/is not a GitHub login/);
    const cleared = await admin("github-login", "gil@example.com", "--clear", "--data-dir", dir);
    expect(cleared.out).toBe("gil@example.com has no GitHub login linked");
    expect((await admin("users", "--data-dir", dir)).out).toMatch(/^gil@example\.com\tmember\tGil$/m);
    expect((await admin("github-login", "gil@example.com", "--data-dir", dir)).code).toBe(2);
  });

  it("refuses clearly while the embedded database is open in another process or graph", async () => {
    const open = await openDatabase(join(dir, "db"));
    try {
      const res = await admin("users", "--data-dir", dir);
      expect(res.code).toBe(2);
      expect(res.err).toMatch(/in use.*single-process/);
    } finally {
      await open.close();
    }
  });

  it("says what is missing", async () => {
    expect((await admin("invite", "--data-dir", dir)).err).toMatch(/--role/);
    expect((await admin("users")).err).toMatch(/DATABASE_URL|--data-dir/);
    expect((await admin("frobnicate")).code).toBe(2);
    expect((await admin("remove")).code).toBe(2);
  });
});
