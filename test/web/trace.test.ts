/**
 * The trace page in headless Chromium on the trace fixture (a PRD, a design and an API that
 * implement it, decisions): links and incoming links, each matrix with its gaps counted and
 * marked as the API reports them, and "Insert IDs" writing the suggested trace IDs into the
 * doc as a new version.
 */
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { json, makeTestApp, type TestApp } from "../helpers/app.js";
import type { Items, SpecDoc } from "../helpers/types.js";
import {
  axeSerious,
  browserAvailable,
  buildWeb,
  launchBrowser,
  listen,
  screenshot,
  type Listening,
} from "../helpers/web.js";

const FIXTURE = resolve(import.meta.dirname, "../../fixtures/trace");

interface Trace {
  links: unknown[];
  incoming: unknown[];
  matrices: Array<{ upstream: { title: string }; rows: unknown[]; cells: Array<Array<{ state: string }>> }>;
  suggestions: Array<{ id: string }>;
}

describe.skipIf(!browserAvailable("trace.test.ts"))("the trace page", { timeout: 120_000 }, () => {
  let t: TestApp;
  let server: Listening;
  let browser: Browser;
  let page: Page;
  let docs: SpecDoc[];

  beforeAll(async () => {
    await buildWeb();
    t = await makeTestApp({ fixture: FIXTURE });
    server = await listen(t.app);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    docs = (await json<Items<{ docs: SpecDoc[] }>>(t.req("GET", "/bundles"))).items.flatMap((b) => b.docs);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await t?.close();
  });

  const traceOf = (id: string) => json<Trace>(t.req("GET", `/docs/${id}/trace`));

  it("shows links, incoming links and each matrix with its gaps marked", async () => {
    const withMatrices = [];
    for (const d of docs)
      if ((await traceOf(d.id)).matrices.some((m) => m.rows.length > 0)) withMatrices.push(d);
    expect(withMatrices.length).toBeGreaterThan(0);
    for (const d of withMatrices) {
      const trace = await traceOf(d.id);
      await page.goto(`${server.url}/docs/${d.id}/trace`);
      await page.getByRole("heading", { name: "Matrices" }).waitFor();
      const matrices = page.locator("section.matrix");
      expect(await matrices.count()).toBe(trace.matrices.length);
      for (const [i, m] of trace.matrices.entries()) {
        const gaps = m.cells.flat().filter((c) => c.state === "missing").length;
        const el = matrices.nth(i);
        expect(await el.locator("h3").innerText()).toContain(`${gaps} gaps`);
        expect(await el.locator("td.cell-missing").count()).toBe(gaps);
        expect(await el.locator("tbody tr").count()).toBe(m.rows.length);
      }
      const linkSection = page.locator("section", {
        has: page.getByRole("heading", { name: "Links", exact: true }),
      });
      expect(await linkSection.locator("li").count()).toBe(trace.links.length);
      const incoming = page.locator("section", { has: page.getByRole("heading", { name: "Incoming" }) });
      expect(await incoming.locator("li").count()).toBe(trace.incoming.length);
      expect(await axeSerious(page)).toEqual([]);
    }
    await screenshot(page, "trace");
  });

  it("inserts the suggested trace IDs as a new version, and the suggestions are gone", async () => {
    let target: SpecDoc | undefined;
    for (const d of docs) if ((await traceOf(d.id)).suggestions.length > 0) target = d;
    expect(target, "a fixture doc with suggested trace IDs").toBeDefined();
    const suggested = (await traceOf(target!.id)).suggestions.map((s) => s.id);
    await page.goto(`${server.url}/docs/${target!.id}/trace`);
    const section = page.locator("h2", { hasText: "Suggested trace IDs" });
    await section.waitFor();
    for (const id of suggested) expect(await page.locator("li code", { hasText: id }).count()).toBe(1);
    await page.getByRole("button", { name: "Insert IDs" }).click();
    await expect
      .poll(async () => (await json<SpecDoc>(t.req("GET", `/docs/${target!.id}`))).current_version.number, {
        timeout: 15_000,
      })
      .toBe(target!.current_version.number + 1);
    const text = await (
      await t.req("GET", `/docs/${target!.id}/files/content?path=${encodeURIComponent(target!.path)}`)
    ).text();
    for (const id of suggested) expect(text).toContain(id);
    // The page follows the new version: nothing left to suggest.
    await expect.poll(() => page.locator("text=Insert IDs").count(), { timeout: 15_000 }).toBe(0);
  });
});
