/**
 * A full review from the dashboard, in headless Chromium, against a real local
 * OpenAI-compatible server (test/helpers/fake-openai.ts, the scripted review model): the
 * estimate shows before the start, the run page follows GET /runs/{runId}/events live until
 * done, then shows the build questions with each reader's answer side by side (divergence
 * marked), the claims, the tour, and a finding's fix as a diff that is accepted as a new
 * version.
 */
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { json, makeTestApp, type TestApp } from "../helpers/app.js";
import { startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { answerFor, configureModels, docIdOf } from "../core/review/e2e-helpers.js";
import type { SpecDoc } from "../helpers/types.js";
import {
  axeSerious,
  browserAvailable,
  buildWeb,
  launchBrowser,
  listen,
  screenshot,
  watchErrors,
  type DomNode,
  type Listening,
} from "../helpers/web.js";

const FIXTURE = resolve(import.meta.dirname, "../../fixtures/review");

interface Question {
  number: number;
  groups: number[][];
  answers: Array<{ reader: number; answer: string }>;
}

describe.skipIf(!browserAvailable("review.test.ts"))(
  "a full review in the dashboard",
  { timeout: 180_000 },
  () => {
    let fake: FakeOpenAI;
    let t: TestApp;
    let server: Listening;
    let browser: Browser;
    let page: Page;
    let errors: string[];
    let docId: string;

    beforeAll(async () => {
      await buildWeb();
      // Each model call takes a moment, so the run is seen running before it ends.
      fake = await startFakeOpenAI({ latencyMs: 60 });
      fake.handler = answerFor;
      t = await makeTestApp({ fixture: FIXTURE, worker: { pollMs: 20 } });
      await configureModels(t, fake.baseUrl);
      docId = await docIdOf(t);
      server = await listen(t.app);
      browser = await launchBrowser();
      page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      errors = watchErrors(page);
    }, 120_000);
    afterAll(async () => {
      await browser?.close();
      await server?.close();
      await t?.close();
      await fake?.close();
    });

    it("shows the estimate, starts the run, follows it live to done, then questions, claims, tour and a fix to accept", async () => {
      const estimate = (await (await t.req("GET", `/docs/${docId}/runs/estimate`)).json()) as {
        calls: number;
      };
      await page.goto(`${server.url}/docs/${docId}/review`);
      const card = page.locator("section", { has: page.locator("#estimate-h") });
      await expect
        .poll(() => card.innerText(), { timeout: 15_000 })
        .toContain(`About ${estimate.calls} model calls`);
      await screenshot(page, "review-estimate");
      expect(await axeSerious(page)).toEqual([]);

      await page.getByRole("button", { name: "Start the review" }).click();
      await page.waitForURL(/\/runs\/[0-9a-f-]{36}$/);
      const runId = page.url().split("/").pop()!;
      // Live: the progress card names stages as their events arrive.
      const progress = page.locator("section", { has: page.locator("#progress-h") });
      await expect.poll(() => progress.locator(".stages li").count(), { timeout: 30_000 }).toBeGreaterThan(0);
      await screenshot(page, "review-running");
      await page.locator('.run-status[data-status="done"]').waitFor({ timeout: 90_000 });

      // The build questions: one column per reader, side by side, divergence marked.
      const questions = (await (await t.req("GET", `/runs/${runId}/questions`)).json()) as {
        items: Question[];
      };
      expect(questions.items.length).toBeGreaterThan(0);
      await page.locator(".question").first().waitFor();
      expect(await page.locator(".question").count()).toBe(questions.items.length);
      for (const [i, q] of questions.items.entries()) {
        const el = page.locator(".question").nth(i);
        const answers = el.locator(".answer");
        expect(await answers.count()).toBe(q.answers.length);
        const boxes = await answers.evaluateAll((els: DomNode[]) =>
          els.map((e) => e.getBoundingClientRect().top),
        );
        expect(new Set(boxes.map(Math.round)).size, "answers side by side").toBe(1);
        expect(await el.evaluate((e: DomNode) => e.classList.contains("diverged"))).toBe(q.groups.length > 1);
        if (q.groups.length > 1) expect(await el.innerText()).toContain("readers diverge");
      }
      const claims = (await (await t.req("GET", `/runs/${runId}/claims`)).json()) as {
        items: Array<{ text: string }>;
      };
      const claimSection = page.locator("section", { has: page.locator("#claims-h") });
      for (const c of claims.items.slice(0, 3)) expect(await claimSection.innerText()).toContain(c.text);
      const tour = (await (await t.req("GET", `/docs/${docId}/tour`)).json()) as {
        items: Array<{ sentence: string }>;
      };
      const tourSection = page.locator("section", { has: page.locator("#tour-h") });
      await expect
        .poll(() => tourSection.innerText(), { timeout: 15_000 })
        .toContain(tour.items[0]?.sentence ?? "Nothing waits");
      await screenshot(page, "review-done");
      expect(await axeSerious(page)).toEqual([]);

      // A fix: the AI's patch shown as a diff, accepted as a new version of the doc.
      const before = await json<SpecDoc>(t.req("GET", `/docs/${docId}`));
      const findings = (await (await t.req("GET", `/runs/${runId}/findings`)).json()) as {
        items: Array<{ id: string; check_slug: string; level: string }>;
      };
      const todo = findings.items.find((f) => f.check_slug === "ai-review" && f.level === "SHOULD")!;
      const item = page.locator(`#finding-${todo.id}`);
      await item.getByRole("button", { name: "Suggest a fix" }).click();
      const patch = item.locator(".fix .patch");
      await patch.waitFor({ timeout: 30_000 });
      expect(await patch.locator(".add").count()).toBeGreaterThan(0);
      expect(await patch.innerText()).toContain("DONE");
      await item.getByRole("button", { name: "Accept the fix" }).click();
      await item.getByText("Accepted: the doc has a new version.").waitFor();
      const after = await json<SpecDoc>(t.req("GET", `/docs/${docId}`));
      expect(after.current_version.number).toBe(before.current_version.number + 1);
      await screenshot(page, "review-fix");
      expect(errors.filter((e) => !/status of (404|501)/.test(e))).toEqual([]);
    });
  },
);
