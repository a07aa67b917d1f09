/**
 * The dashboard in headless Chromium on the demo bundles (local mode): the list shows each
 * bundle's state, a doc shows each finding beside the text it anchors to, two versions
 * compare by section, problem+json answers show their detail, operations not built yet
 * say so, pages pass axe-core with no serious or critical violation at 1280 px and at
 * phone width. Screenshots of each page go to tmp/web-screenshots.
 */
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { json, makeTestApp, type TestApp } from "../helpers/app.js";
import type { Items, SpecDoc } from "../helpers/types.js";
import {
  axeSerious,
  browserAvailable,
  buildWeb,
  launchBrowser,
  listen,
  screenshot,
  watchErrors,
  type BrowserGlobals,
  type DomNode,
  type Listening,
} from "../helpers/web.js";

const DEMO = resolve(import.meta.dirname, "../../fixtures/demo");

interface Bundle {
  id: string;
  title: string;
  state: string;
  docs: SpecDoc[];
}
interface Finding {
  id: string;
  level: string;
  message: string;
  anchor?: { quote: string; start: number; detached?: boolean };
}

describe.skipIf(!browserAvailable("dashboard.test.ts"))(
  "the dashboard on the demo bundles",
  { timeout: 120_000 },
  () => {
    let t: TestApp;
    let server: Listening;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    let errors: string[];
    let bundles: Bundle[];

    beforeAll(async () => {
      await buildWeb();
      t = await makeTestApp({ fixture: DEMO });
      server = await listen(t.app);
      browser = await launchBrowser();
      context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      page = await context.newPage();
      errors = watchErrors(page);
      bundles = (await json<Items<Bundle>>(t.req("GET", "/bundles"))).items;
    }, 120_000);
    afterAll(async () => {
      await browser?.close();
      await server?.close();
      await t?.close();
    });

    const open = async (path: string) => {
      await page.goto(server.url + path);
    };

    it("lists every bundle with its state chip and its docs, and filters by state and title", async () => {
      expect(bundles.length).toBeGreaterThan(1);
      await open("/");
      await page.waitForSelector("li.bundle");
      const shown = await page.$$eval("li.bundle", (els: DomNode[]) =>
        els.map((el) => ({
          title: el.querySelector(".bundle-title")?.textContent ?? "",
          state: el.getAttribute("data-state"),
          chip: el.querySelector(".bundle-head .chip")?.textContent ?? "",
        })),
      );
      const words: Record<string, string> = {
        build_ready: "Build Ready",
        not_build_ready: "Not Build Ready",
        not_reviewed: "Not reviewed",
      };
      expect(shown).toEqual(bundles.map((b) => ({ title: b.title, state: b.state, chip: words[b.state] })));
      await screenshot(page, "bundles");

      // The state filter is in the URL (a filtered list is a link) and hides the others.
      const state = bundles[0]!.state;
      await page.selectOption("select >> nth=0", state);
      await page.waitForURL(/state=/);
      const filtered = await page.$$eval("li.bundle", (els: DomNode[]) =>
        els.map((el) => el.getAttribute("data-state")),
      );
      expect(filtered.length).toBe(bundles.filter((b) => b.state === state).length);
      expect(new Set(filtered)).toEqual(new Set([state]));
      await open(`/?q=${encodeURIComponent(bundles[1]!.title.slice(0, 6))}`);
      await page.waitForSelector("li.bundle");
      const titles = await page.$$eval(".bundle-title", (els: DomNode[]) => els.map((e) => e.textContent));
      expect(titles).toContain(bundles[1]!.title);
      expect(titles.length).toBeLessThan(bundles.length);
    });

    it("shows a doc rendered with each finding beside the text it anchors to, and the verdict card", async () => {
      // The demo doc with the most anchored findings on its verdict's run.
      let best: { doc: SpecDoc; findings: Finding[] } | undefined;
      for (const b of bundles)
        for (const d of b.docs) {
          if (!d.verdict) continue;
          const { items } = await json<Items<Finding>>(t.req("GET", `/runs/${d.verdict.run_id}/findings`));
          const anchored = items.filter(
            (f) => f.anchor && !f.anchor.detached && f.anchor.quote.trim().length > 3,
          );
          if (!best || anchored.length > best.findings.length) best = { doc: d, findings: anchored };
        }
      expect(best?.findings.length, "a demo doc with an anchored finding").toBeGreaterThan(0);
      const { doc, findings } = best!;
      await open(`/docs/${doc.id}`);
      await page.waitForSelector(".doc-text .row");
      await page.waitForSelector("[data-finding-id]");
      for (const f of findings) {
        // The row holding the finding holds the quoted text in its block, on the same line.
        const row = page.locator(".row", { has: page.locator(`[data-finding-id="${f.id}"]`) });
        await expect.poll(() => row.count(), { timeout: 15_000 }).toBe(1);
        const blockText = (await row.locator(".block").innerText()).replace(/\s+/g, " ");
        const words = f
          .anchor!.quote.replace(/[*_`#>[\]()]/g, " ")
          .split(/\s+/)
          .filter((w) => w.length > 3);
        expect(
          words.some((w) => blockText.includes(w)),
          `${f.message} beside "${f.anchor!.quote}"`,
        ).toBe(true);
        const [block, note] = await Promise.all([
          row.locator(".block").boundingBox(),
          row.locator(`[data-finding-id="${f.id}"]`).boundingBox(),
        ]);
        expect(note!.x).toBeGreaterThan(block!.x + block!.width - 1);
      }
      const card = page.locator("section.verdict");
      await expect.poll(() => card.innerText(), { timeout: 15_000 }).toContain(`score ${doc.verdict!.score}`);
      expect(await page.locator("svg.radar").count()).toBe(
        Object.keys(doc.verdict!.radar).length > 0 ? 1 : 0,
      );
      await screenshot(page, "doc");
      expect(await axeSerious(page)).toEqual([]);
    });

    it("compares two versions of a doc by section", async () => {
      const doc = bundles.find((b) => b.docs.length > 0)!.docs[0]!;
      const text = await (
        await t.req("GET", `/docs/${doc.id}/files/content?path=${encodeURIComponent(doc.path)}`)
      ).text();
      const changed = text.replace(/\n## /, "\nA sentence added for the comparison.\n\n## ");
      expect(changed).not.toBe(text);
      const put = await t.req(
        "PUT",
        `/docs/${doc.id}/files/content?path=${encodeURIComponent(doc.path)}&base_version=${doc.current_version.id}`,
        changed,
        { "content-type": "text/markdown" },
      );
      expect(put.status, await put.clone().text()).toBeLessThan(300);
      await open(`/docs/${doc.id}/history`);
      await page.waitForSelector("section.diff details");
      const diff = await page.locator("section.diff").innerText();
      expect(diff).toContain("A sentence added for the comparison.");
      expect(diff).toMatch(/Changes from version 1 to 2/);
      expect(
        await page.locator("section.diff .patch .add").filter({ hasText: "A sentence added" }).count(),
      ).toBe(1);
      await screenshot(page, "history");
      expect(await axeSerious(page)).toEqual([]);
    });

    it("shows a problem's detail, and says an operation the server has not built is not available yet", async () => {
      await open("/docs/00000000-0000-4000-8000-000000000000");
      const alert = page.locator("[role=alert]");
      await alert.waitFor();
      const problem = (await (await t.req("GET", "/docs/00000000-0000-4000-8000-000000000000")).json()) as {
        detail: string;
      };
      expect(await alert.innerText()).toContain(problem.detail);

      const doc = bundles[0]!.docs[0]!;
      const threads = await t.req("GET", `/docs/${doc.id}/threads`);
      await open(`/docs/${doc.id}/collab`);
      await page.waitForSelector("#threads-h");
      const section = page.locator("section", { has: page.locator("#threads-h") });
      if (threads.status === 501) {
        const { detail } = (await threads.json()) as { detail: string };
        await expect.poll(() => section.innerText(), { timeout: 15_000 }).toContain("not available yet");
        expect(await section.innerText()).toContain(detail);
      } else {
        expect(threads.status).toBe(200);
        await expect.poll(() => section.locator(".loading").count(), { timeout: 15_000 }).toBe(0);
        expect(await section.innerText()).not.toContain("not available yet");
      }
      await screenshot(page, "collab");
    });

    it("opens a thread on selected text, and shows it beside that text after a reload", async (ctx) => {
      const doc = bundles.flatMap((b) => b.docs).find((d) => d.verdict)!;
      await open(`/docs/${doc.id}`);
      const block = page.locator(".doc-text .row .block p").first();
      await block.waitFor();
      // Select the paragraph's first words, as a person dragging over them would.
      const quote = await block.evaluate((p: DomNode) => {
        const { document } = globalThis as unknown as BrowserGlobals;
        const node = p.firstChild!;
        const text = node.textContent ?? "";
        const end = Math.min(text.length, Math.max(12, text.indexOf(" ", 20)));
        const range = document.createRange();
        range.setStart(node, 0);
        range.setEnd(node, end);
        const sel = document.getSelection()!;
        sel.removeAllRanges();
        sel.addRange(range);
        return text.slice(0, end).trim();
      });
      const button = page.getByRole("button", { name: "Open a thread on the selection" });
      await expect.poll(() => button.isEnabled(), { timeout: 15_000 }).toBe(true);
      await button.click();
      const form = page.getByRole("form", { name: "Open a thread on the selected text" });
      expect(await form.locator("blockquote").innerText()).toBe(quote);
      await form.getByLabel("Title").fill("Which currency?");
      await form.getByLabel("Message").fill("Is this the shop's currency or the buyer's?");
      await form.getByRole("button", { name: "Open thread" }).click();
      const outcome = page.locator(".thread-form [role=status], .thread-form [role=alert], [data-thread-id]");
      await outcome.first().waitFor({ timeout: 15_000 });
      const notAvailable = await form.locator(".not-available").count();
      if (notAvailable > 0) {
        const text = await form.locator(".not-available").innerText();
        expect(text).toContain("not available yet");
        process.stderr.write(
          `dashboard.test.ts: thread-after-reload not run: POST /docs/{docId}/threads answers 501 (${text})\n`,
        );
        ctx.skip();
        return;
      }
      await page.reload();
      const note = page.locator("[data-thread-id]", { hasText: "Which currency?" });
      await note.waitFor({ timeout: 15_000 });
      const row = page.locator(".row", { has: note });
      expect((await row.locator(".block").innerText()).replace(/\s+/g, " ")).toContain(
        quote.replace(/\s+/g, " "),
      );
      await screenshot(page, "doc-thread");
      // On the collaboration page: reply, then resolve.
      await open(`/docs/${doc.id}/collab`);
      const item = page.locator("li.thread-item", { hasText: "Which currency?" });
      await item.waitFor({ timeout: 15_000 });
      await item.getByLabel("Reply to “Which currency?”").fill("The shop's currency.");
      await item.getByRole("button", { name: "Reply" }).click();
      await expect.poll(() => item.locator(".messages li").count(), { timeout: 15_000 }).toBe(2);
      expect(await item.locator(".messages").innerText()).toContain("The shop's currency.");
      await item.getByRole("button", { name: "Resolve" }).click();
      await expect.poll(() => item.locator(".tag").first().innerText(), { timeout: 15_000 }).toBe("resolved");
      expect(await axeSerious(page)).toEqual([]);
      await screenshot(page, "collab-thread");
    });

    it("shows a profile's checks, and a YAML error at its line when saving", async () => {
      await open("/profiles/adr");
      await page.getByRole("heading", { name: "Checks" }).waitFor();
      expect(await page.locator("table code", { hasText: "decision" }).count()).toBeGreaterThan(0);
      const editor = page.getByLabel("YAML of the profile adr");
      const yaml = await editor.inputValue();
      // Line 3 becomes a key with no value and a bad indent: the YAML no longer parses there.
      const lines = yaml.split("\n");
      lines.splice(2, 0, "  title: [unclosed");
      await editor.fill(lines.join("\n"));
      await page.getByRole("button", { name: "Save as a new version" }).click();
      const errors = page.locator("#yaml-errors");
      await errors.waitFor({ timeout: 15_000 });
      const text = await errors.innerText();
      const line = Number(/Line (\d+)/.exec(text)?.[1]);
      // The line the server names for this YAML (400 profile_invalid), near the broken one.
      const res = await t.req("PUT", "/profiles/adr", { yaml: lines.join("\n"), template: "# x\n" });
      expect(res.status).toBe(400);
      const problem = (await res.json()) as { code: string; errors: Array<{ line: number }> };
      expect(problem.code).toBe("profile_invalid");
      expect(line).toBe(problem.errors[0]!.line);
      expect(Math.abs(line - 3)).toBeLessThanOrEqual(1);
      // The line number in the gutter is marked.
      expect((await page.locator(".gutter .bad").first().innerText()).trim()).toBe(String(line));
      expect(await editor.getAttribute("aria-invalid")).toBe("true");
      await screenshot(page, "profile-yaml-error");
      // Nothing was saved.
      const profile = (await (await t.req("GET", "/profiles/adr")).json()) as { yaml: string };
      expect(profile.yaml).toBe(yaml);
    });

    it("passes axe-core on every page, at 1280 px and at phone width, with no horizontal scroll on a phone", async () => {
      const doc = bundles[0]!.docs[0]!;
      const paths = [
        "/",
        `/docs/${doc.id}`,
        `/docs/${doc.id}/review`,
        `/docs/${doc.id}/trace`,
        `/docs/${doc.id}/collab`,
        `/docs/${doc.id}/profile`,
        "/profiles",
        "/admin",
      ];
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 900 });
        for (const path of paths) {
          await open(path);
          await page.waitForSelector("main h1");
          await page.waitForFunction(
            () =>
              (globalThis as unknown as BrowserGlobals).document.querySelectorAll("main .loading").length ===
              0,
            undefined,
            { timeout: 20_000 },
          );
          const violations = await axeSerious(page);
          expect(violations, `${path} at ${width} px`).toEqual([]);
          if (width < 500) {
            const overflow = await page.evaluate(() => {
              const { documentElement } = (globalThis as unknown as BrowserGlobals).document;
              return documentElement.scrollWidth - documentElement.clientWidth;
            });
            expect(overflow, `${path} scrolls sideways at ${width} px`).toBeLessThanOrEqual(1);
          }
          await screenshot(page, `${width}px${path.replace(doc.id, "doc").replace(/\//g, "-")}`);
        }
      }
      await page.setViewportSize({ width: 1280, height: 900 });
    });

    it("is reachable by keyboard: the skip link first, then the main navigation", async () => {
      await open("/");
      await page.waitForSelector("li.bundle");
      await page.keyboard.press("Tab");
      expect(
        await page.evaluate(
          () => (globalThis as unknown as BrowserGlobals).document.activeElement?.textContent,
        ),
      ).toBe("Skip to content");
      await page.keyboard.press("Tab");
      expect(
        await page.evaluate(
          () => (globalThis as unknown as BrowserGlobals).document.activeElement?.textContent,
        ),
      ).toBe("Spec Review");
      // Every form control on the list has a name a screen reader reads.
      const unnamed = await page.$$eval(
        "input, select, textarea, button",
        (els: DomNode[]) =>
          els.filter((e) => !e.labels?.length && !e.getAttribute("aria-label") && !e.textContent?.trim())
            .length,
      );
      expect(unnamed).toBe(0);
    });

    it("ran without a page error", () => {
      expect(errors.filter((e) => !/status of (404|501)/.test(e))).toEqual([]);
    });
  },
);
