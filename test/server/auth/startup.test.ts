/**
 * Start-up: local mode beyond loopback needs --allow-remote and then the printed API token
 * on every request; a hosted workspace with nobody yet prints one admin invite.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startServer } from "../../../server/start.js";
import { RemoteRefused } from "../../../server/auth/remote.js";
import { isLoopbackHost } from "../../../server/auth/loopback.js";
import { ensureFirstAdminInvite } from "../../../server/auth/first-admin.js";
import { makeTestApp, problem } from "../../helpers/app.js";
import { PASSWORD } from "./helpers.js";

const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "sr-start-"));
  dirs.push(d);
  return d;
}
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const base = () => {
  const folder = tmp();
  return {
    folder,
    port: 0,
    dataDir: join(folder, ".data"),
    watch: false,
    prepareDataDir: (d: string) => mkdirSync(d, { recursive: true }),
  };
};

describe("local mode beyond loopback", { timeout: 120_000 }, () => {
  it("knows loopback addresses", () => {
    for (const h of ["127.0.0.1", "localhost", "::1", "[::1]", "127.1.2.3"])
      expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ["0.0.0.0", "::", "192.168.1.4", "example.com"]) expect(isLoopbackHost(h), h).toBe(false);
  });

  it("refuses to start on 0.0.0.0 without --allow-remote", async () => {
    await expect(startServer({ ...base(), host: "0.0.0.0" })).rejects.toBeInstanceOf(RemoteRefused);
  });

  it("with --allow-remote, needs the printed token on every request", async () => {
    const lines: string[] = [];
    const server = await startServer({
      ...base(),
      host: "0.0.0.0",
      allowRemote: true,
      print: (l) => lines.push(l),
    });
    try {
      const token = /^api token: (srt_\S+)/.exec(lines.join("\n"))?.[1];
      expect(token, lines.join("\n")).toBeDefined();
      const url = `http://127.0.0.1:${server.port}/api/v1`;
      await problem(await fetch(`${url}/bundles`), 401, "unauthenticated");
      await problem(await fetch(`${url}/meta`), 401, "unauthenticated");
      await problem(
        await fetch(`${url}/bundles`, { headers: { authorization: "Bearer srt_wrong" } }),
        401,
        "invalid_token",
      );
      const ok = await fetch(`${url}/bundles`, { headers: { authorization: `Bearer ${token}` } });
      expect(ok.status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it("on loopback, prints no token and needs none", async () => {
    const lines: string[] = [];
    const server = await startServer({ ...base(), host: "127.0.0.1", print: (l) => lines.push(l) });
    try {
      expect(lines).toEqual([]);
      expect((await fetch(`http://127.0.0.1:${server.port}/api/v1/bundles`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe("the first admin invite", { timeout: 120_000 }, () => {
  it("is made while nobody has signed up, and works once", async () => {
    const t = await makeTestApp({ mode: "hosted", passwordCost: 10 });
    try {
      const line = await ensureFirstAdminInvite(t.services);
      expect(line).toMatch(/^admin invite: http:\/\/127\.0\.0\.1:8787\/invite\/sri_\S+$/);
      const token = line!.split("/invite/")[1]!;
      const res = await t.req("POST", "/auth/signup", {
        token,
        name: "Root",
        email: "root@example.com",
        password: PASSWORD,
      });
      expect(res.status).toBe(201);
      expect(((await res.json()) as { user: { role: string } }).user.role).toBe("admin");
      expect(await ensureFirstAdminInvite(t.services)).toBeUndefined();
      await problem(
        await t.req("POST", "/auth/signup", {
          token,
          name: "Eve",
          email: "eve@example.com",
          password: PASSWORD,
        }),
        410,
        "invite_used",
      );
    } finally {
      await t.close();
    }
  });

  it("is not made in local mode", async () => {
    const t = await makeTestApp();
    try {
      expect(await ensureFirstAdminInvite(t.services)).toBeUndefined();
    } finally {
      await t.close();
    }
  });
});
