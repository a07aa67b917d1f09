/**
 * "Learn a profile from existing specs" on the profiles page, in headless Chromium. Local
 * mode (the local admin): a folder of proposals as teams write them (no frontmatter, one
 * folder each, a README beside them) typed in, a key given; the learned elements show with
 * their shares as percentages, the README as a doc that did not fit, the YAML, downloads;
 * a bad key is marked and a missing folder shows the server's problem; Save writes the
 * profile, the page links to it and lists it. Hosted mode: a member who maintains a
 * profile sees the form (with the sources to choose from), a viewer does not. axe-core
 * finds no serious or critical violation.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { makeTestApp, type TestApp } from "../helpers/app.js";
import { as, testAuthenticator } from "../helpers/actors.js";
import {
  axeSerious,
  browserAvailable,
  buildWeb,
  launchBrowser,
  listen,
  screenshot,
  watchErrors,
  type Listening,
} from "../helpers/web.js";

const TOPICS: Array<[string, string, string]> = [
  ["0001", "Saved searches", "Accepted"],
  ["0002", "Bulk export", "Implemented"],
  ["0003", "Rate limits per team", "Accepted"],
  ["0004", "Audit log retention", "Rejected"],
];

function proposal(num: string, title: string, status: string): string {
  const slug = title.toLowerCase().replace(/\s+/g, "-");
  return [
    `# ${title}`,
    "",
    `* Proposal: [LP-${num}](../${num}-${slug}/proposal.md)`,
    "* Authors: [Lee Park](https://github.com/leepark)",
    `* Status: **${status}**`,
    "",
    "## Introduction",
    "",
    `This proposal adds ${title.toLowerCase()} so that teams stop building it themselves.`,
    "",
    "## Motivation",
    "",
    `Teams asked for ${title.toLowerCase()} in 14 support tickets last quarter; each writes its own script.`,
    "",
    "## Proposed solution",
    "",
    `Add ${title.toLowerCase()} as a feature with one endpoint and one setting per workspace.`,
    "",
    "## Detailed design",
    "",
    "The endpoint takes a JSON body and answers 202 with the job id; a worker picks the job up within",
    "5 seconds and writes the result to the job record, kept for 30 days.",
    "",
    "```http",
    `POST /api/v1/${slug}`,
    "```",
    "",
    "## Alternatives considered",
    "",
    "A client library was considered and left out: it would not help teams that use curl.",
    "",
  ].join("\n");
}

describe.skipIf(!browserAvailable("profile-infer.test.ts"))(
  "learning a profile on the profiles page",
  { timeout: 180_000 },
  () => {
    let t: TestApp;
    let hosted: TestApp;
    let server: Listening;
    let hostedServer: Listening;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    let errors: string[];

    beforeAll(async () => {
      await buildWeb();
      t = await makeTestApp();
      for (const [num, title, status] of TOPICS) {
        const dir = join(t.root, "rfcs", `${num}-${title.toLowerCase().replace(/\s+/g, "-")}`);
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, "proposal.md"), proposal(num, title, status));
      }
      writeFileSync(join(t.root, "rfcs", "README.md"), "# RFCs\n\nOne folder per proposal.\n");
      await t.local.scanAll();
      server = await listen(t.app);
      const auth = testAuthenticator();
      hosted = await makeTestApp({ mode: "hosted", auth });
      auth.bind(hosted.services);
      const res = await hosted.req(
        "PUT",
        "/profiles/rfc/maintainers",
        { maintainers: ["u-maint"] },
        as("admin"),
      );
      expect(res.status).toBe(200);
      hostedServer = await listen(hosted.app);
      browser = await launchBrowser();
      context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      page = await context.newPage();
      errors = watchErrors(page);
    }, 120_000);
    afterAll(async () => {
      await browser?.close();
      await server?.close();
      await hostedServer?.close();
      await t?.close();
      await hosted?.close();
    });

    it("learns from a folder, shows shares, misfits and the YAML, and saves the profile", async () => {
      await page.goto(server.url + "/profiles");
      const section = page.locator("section[aria-labelledby=learn-h]");
      await section.waitFor();
      // A bad key is marked before anything is sent.
      await page.getByLabel("Key of the new profile").fill("Team Proposal");
      await expect
        .poll(() => page.getByLabel("Key of the new profile").getAttribute("aria-invalid"))
        .toBe("true");
      expect(await section.getByRole("button", { name: "Learn" }).isDisabled()).toBe(true);
      // A folder that is not there: the server's problem.
      await page.getByLabel("Key of the new profile").fill("team-proposal");
      await page.getByLabel("Folder of the served tree").fill("nowhere");
      await section.getByRole("button", { name: "Learn" }).click();
      const alert = section.locator("[role=alert]");
      await alert.waitFor();
      expect(await alert.innerText()).toContain("folder_not_found");

      await page.getByLabel("Folder of the served tree").fill("rfcs");
      await page.getByLabel("Title (optional)").fill("Team proposal");
      await section.getByRole("button", { name: "Learn" }).click();
      const table = section.getByRole("region", { name: "What was learned" });
      await table.waitFor();
      const rows = await table
        .locator("tbody tr")
        .evaluateAll((trs) =>
          trs.map((tr) =>
            Array.from(
              (tr as unknown as { children: ArrayLike<{ textContent: string | null }> }).children,
            ).map((td) => td.textContent ?? ""),
          ),
        );
      expect(rows).toContainEqual(expect.arrayContaining(["section", "Motivation", "100%"]));
      expect(rows).toContainEqual(expect.arrayContaining(["design section", "Detailed design", "100%"]));
      expect(rows).toContainEqual(expect.arrayContaining(["metadata", "Status", "100%"]));
      expect(await section.getByRole("list", { name: "Docs that did not fit" }).innerText()).toContain(
        "rfcs/README.md",
      );
      const yaml = await section.getByRole("region", { name: "Learned YAML of team-proposal" }).innerText();
      expect(yaml).toMatch(/^key: team-proposal$/m);
      expect(
        await section.getByRole("link", { name: "Download profile.yaml" }).getAttribute("download"),
      ).toBe("profile.yaml");
      expect(await section.innerText()).toContain("rfcs/**/proposal.md: team-proposal");
      await screenshot(page, "profile-infer-learned");
      expect(await axeSerious(page)).toEqual([]);

      await section.getByRole("button", { name: "Save as profile team-proposal" }).click();
      const saved = section.locator("[role=status]", { hasText: "Saved" });
      await saved.waitFor();
      expect(await saved.innerText()).toContain(".spec-review/profiles/team-proposal/profile.yaml");
      expect(existsSync(join(t.root, ".spec-review", "profiles", "team-proposal", "profile.yaml"))).toBe(
        true,
      );
      // The list below has it now, and the link opens it.
      await page.locator("ul.plain").getByRole("link", { name: "Team proposal" }).waitFor();
      await saved.getByRole("link", { name: "profile team-proposal" }).click();
      await page.waitForURL(/\/profiles\/team-proposal$/);
      await page.getByRole("heading", { name: /Team proposal/ }).waitFor();
      expect(errors.filter((e) => !/\b(400|404)\b/.test(e))).toEqual([]);
    });

    it("offers it in hosted mode to a member who maintains a profile, not to a viewer", async () => {
      const open = async (who: "maintainer" | "viewer") => {
        const ctx = await browser.newContext({
          viewport: { width: 390, height: 844 },
          extraHTTPHeaders: as(who),
        });
        const p = await ctx.newPage();
        await p.goto(hostedServer.url + "/profiles");
        await p.locator("#profiles-h").waitFor();
        await p.locator("ul.plain li").first().waitFor();
        return { ctx, p };
      };
      const maint = await open("maintainer");
      await maint.p.locator("#learn-h").waitFor();
      expect(await maint.p.locator("section[aria-labelledby=learn-h]").innerText()).toContain(
        "No repohost source yet",
      );
      expect(await axeSerious(maint.p)).toEqual([]);
      await screenshot(maint.p, "profile-infer-hosted-phone");
      await maint.ctx.close();
      const viewer = await open("viewer");
      // The maintainers are read for members only: a viewer never sees the form.
      await viewer.p.waitForTimeout(300);
      expect(await viewer.p.locator("#learn-h").count()).toBe(0);
      await viewer.ctx.close();
    });
  },
);
