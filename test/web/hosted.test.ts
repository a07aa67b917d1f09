/**
 * Hosted mode in headless Chromium: a page asks a visitor to sign in; the first admin
 * accepts the start-up invite and makes an account; the admin makes a member invite in
 * the admin page, and the member accepts it; a wrong password shows the problem's detail;
 * a reset link sets a new password; approval as the second user as far as the API has it
 * (GET /docs/{docId}/status answers 501 until built: the page says so); and a guest enters
 * through a share link with a display name and reads the bundle.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { makeTestApp, type TestApp } from "../helpers/app.js";
import { ensureFirstAdminInvite } from "../../server/auth/first-admin.js";
import {
  axeSerious,
  browserAvailable,
  buildWeb,
  launchBrowser,
  listen,
  screenshot,
  type Listening,
} from "../helpers/web.js";

const ADMIN = { name: "Ada Admin", email: "ada@example.com", password: "correct horse battery staple" };
const MEMBER = { name: "Mo Member", email: "mo@example.com", password: "plain lighthouse orbit tango" };

describe.skipIf(!browserAvailable("hosted.test.ts"))(
  "the dashboard in hosted mode",
  { timeout: 180_000 },
  () => {
    let t: TestApp;
    let server: Listening;
    let browser: Browser;
    let admin: BrowserContext;
    let adminPage: Page;
    let memberInviteUrl = "";
    let bundle: { id: string; docId: string; title: string };

    beforeAll(async () => {
      await buildWeb();
      t = await makeTestApp({ mode: "hosted", passwordCost: 10 });
      server = await listen(t.app);
      browser = await launchBrowser();
      admin = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      adminPage = await admin.newPage();
    }, 120_000);
    afterAll(async () => {
      await browser?.close();
      await server?.close();
      await t?.close();
    });

    /** The path of a link the server printed or returned (its host is the public URL, not the test server). */
    const pathOf = (url: string) => new URL(url).pathname;

    async function signUp(page: Page, invitePath: string, who: typeof ADMIN) {
      await page.goto(server.url + invitePath);
      await page.getByLabel("Name").fill(who.name);
      await page.getByLabel("Email").fill(who.email);
      await page.getByLabel(/^Password/).fill(who.password);
      await page.getByRole("button", { name: "Make my account" }).click();
      await page.locator("header .who", { hasText: who.name }).waitFor();
    }

    it("asks a visitor to sign in, and the first admin signs up through the start-up invite", async () => {
      await adminPage.goto(server.url + "/");
      await adminPage.getByRole("heading", { name: "Sign in" }).waitFor();
      await screenshot(adminPage, "hosted-sign-in");
      expect(await axeSerious(adminPage)).toEqual([]);

      const line = await ensureFirstAdminInvite(t.services);
      expect(line).toMatch(/^admin invite: /);
      await signUp(adminPage, pathOf(line!.slice("admin invite: ".length)), ADMIN);
      await adminPage.getByRole("heading", { name: "Bundles" }).waitFor();
      expect(await adminPage.locator("header nav").innerText()).toContain("Admin");

      // A bundle to share and approve, made through the API with the admin's session.
      const res = await adminPage.request.post(`${server.url}/api/v1/bundles`, {
        data: { profile: "adr", name: "use-postgres", title: "Use Postgres" },
        headers: { origin: server.url },
      });
      expect(res.status(), await res.text()).toBe(201);
      const doc = (await res.json()) as { id: string; bundle_id: string; title: string };
      bundle = { id: doc.bundle_id, docId: doc.id, title: doc.title };
    });

    it("lets the admin make a member invite in the admin page, and the member accepts it", async () => {
      await adminPage.goto(server.url + "/admin");
      await adminPage.getByRole("heading", { name: "Invites" }).waitFor();
      await adminPage.getByLabel("Role of the invite").selectOption("member");
      await adminPage.getByRole("button", { name: "Make an invite link" }).click();
      memberInviteUrl = await adminPage.locator(".secret-url").innerText();
      expect(memberInviteUrl).toMatch(/\/invite\/\S+$/);
      await adminPage.locator("li", { hasText: "unused" }).first().waitFor();
      await screenshot(adminPage, "hosted-admin");
      expect(await axeSerious(adminPage)).toEqual([]);

      const member = await browser.newContext();
      const page = await member.newPage();
      await signUp(page, pathOf(memberInviteUrl), MEMBER);
      expect(await page.locator("header nav").innerText()).not.toContain("Admin");
      // The invite is used: opening it again shows the server's reason.
      await page.goto(server.url + pathOf(memberInviteUrl));
      await page.getByLabel("Name").fill("Someone Else");
      await page.getByLabel("Email").fill("else@example.com");
      await page.getByLabel(/^Password/).fill("another fine passphrase");
      await page.getByRole("button", { name: "Make my account" }).click();
      await expect
        .poll(() => page.locator("[role=alert]").innerText(), { timeout: 15_000 })
        .toMatch(/invite/i);
      await member.close();
    });

    it("shows a wrong password's problem detail, then signs in", async () => {
      const ctx = await browser.newContext();
      const page = await ctx.newPage();
      await page.goto(server.url + "/sign-in");
      await page.getByLabel("Email").fill(MEMBER.email);
      await page.getByLabel("Password").fill("not the password at all");
      await page.getByRole("button", { name: "Sign in" }).click();
      const alert = page.locator("[role=alert]");
      await alert.waitFor();
      const problem = (await (
        await page.request.post(`${server.url}/api/v1/auth/sign-in`, {
          data: { email: MEMBER.email, password: "not the password at all" },
        })
      ).json()) as { detail: string };
      expect(await alert.innerText()).toContain(problem.detail);
      await page.getByLabel("Password").fill(MEMBER.password);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.locator("header .who", { hasText: MEMBER.name }).waitFor();
      await ctx.close();
    });

    it("sets a new password through a reset link the admin made", async () => {
      await adminPage.goto(server.url + "/admin");
      await adminPage.getByLabel("Person whose password to reset").selectOption({ label: MEMBER.name });
      await adminPage.getByRole("button", { name: "Make a reset link" }).click();
      const url = await adminPage.locator(".secret-url", { hasText: "/reset/" }).innerText();
      const ctx = await browser.newContext();
      const page = await ctx.newPage();
      await page.goto(server.url + pathOf(url));
      await page.getByLabel(/New password/).fill("a brand new passphrase here");
      await page.getByRole("button", { name: "Set the password" }).click();
      await page.locator("header .who", { hasText: MEMBER.name }).waitFor();
      MEMBER.password = "a brand new passphrase here";
      await ctx.close();
    });

    it("shows review status and approval as the second user as far as the API has it", async () => {
      const ctx = await browser.newContext();
      const page = await ctx.newPage();
      await page.goto(server.url + "/sign-in");
      await page.getByLabel("Email").fill(MEMBER.email);
      await page.getByLabel("Password").fill(MEMBER.password);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.locator("header .who", { hasText: MEMBER.name }).waitFor();
      // The bundle is the admin's: internal visibility lets a member see it, or the page says not found.
      const status = await page.request.get(`${server.url}/api/v1/docs/${bundle.docId}/status`);
      await page.goto(`${server.url}/docs/${bundle.docId}/collab`);
      const section = page.locator("section", { has: page.locator("#status-h") });
      if (status.status() === 501) {
        process.stderr.write(
          "hosted.test.ts: approval not exercised: GET /docs/{docId}/status answers 501\n",
        );
        await expect.poll(() => section.innerText(), { timeout: 15_000 }).toContain("not available yet");
      } else if (status.ok()) {
        const s = (await status.json()) as { can_approve: boolean };
        const approve = section.getByRole("button", { name: /^Approve version/ });
        await expect.poll(() => approve.count(), { timeout: 15_000 }).toBe(s.can_approve ? 1 : 0);
        if (s.can_approve) {
          await approve.click();
          await expect.poll(() => section.innerText(), { timeout: 15_000 }).toContain(`Approved by`);
        }
      } else {
        const { detail } = (await status.json()) as { detail: string };
        await expect.poll(() => page.locator("main").innerText(), { timeout: 15_000 }).toContain(detail);
      }
      await screenshot(page, "hosted-collab");
      await ctx.close();
    });

    it("lets a guest enter through a share link with a display name and read the bundle", async () => {
      const res = await adminPage.request.post(`${server.url}/api/v1/bundles/${bundle.id}/share`, {
        data: {},
        headers: { origin: server.url },
      });
      expect(res.status(), await res.text()).toBeLessThan(300);
      const { url } = (await res.json()) as { url: string };
      const guest = await browser.newContext({ viewport: { width: 390, height: 844 } });
      const page = await guest.newPage();
      await page.goto(server.url + pathOf(url));
      await page.getByRole("heading", { name: `You are invited to read ${bundle.title}` }).waitFor();
      expect(await axeSerious(page)).toEqual([]);
      await page.getByLabel("Your name").fill("Gwen Guest");
      await page.getByRole("button", { name: "Enter as a guest" }).click();
      await page.locator("header .who", { hasText: "Gwen Guest (guest)" }).waitFor();
      await page.waitForURL(/\/docs\/|\/$/);
      if (!page.url().includes("/docs/")) await page.goto(`${server.url}/docs/${bundle.docId}`);
      await page.getByRole("heading", { name: new RegExp(bundle.title) }).waitFor();
      await page.locator(".doc-text .row").first().waitFor();
      await screenshot(page, "hosted-guest-doc");
      // The guest sees this bundle only.
      await page.goto(server.url + "/");
      await page.locator("li.bundle").first().waitFor();
      expect(await page.locator("li.bundle").count()).toBe(1);
      await guest.close();
    });
  },
);
