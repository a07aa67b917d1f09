import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { DB_KINDS, json, makeTestApp, problem, type TestApp } from "../helpers/app.js";
import type { BundleList, SpecDoc } from "../helpers/types.js";
import { renderReport } from "../../core/report/html.js";

const DEMO = resolve(import.meta.dirname, "../../fixtures/demo");
const EXAMPLES = resolve(import.meta.dirname, "../../fixtures/examples");
/**
 * The browser the Chromium test drives: CHROMIUM_PATH, else the usual install places.
 * Without one the test is skipped with a printed reason, except under CI=true (CI
 * installs it), where a missing browser fails the run.
 */
const CHROMIUM = [
  process.env.CHROMIUM_PATH,
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
  "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
].find((p): p is string => !!p && existsSync(p));
const IN_CI = process.env.CI === "true";
if (!CHROMIUM && !IN_CI)
  process.stderr.write(
    "report.test.ts: skipping the headless Chromium test: no browser found (set CHROMIUM_PATH or install chromium)\n",
  );
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

async function report(t: TestApp, docId: string): Promise<string> {
  const res = await t.req("GET", `/docs/${docId}/export?format=html`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
  expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
  return res.text();
}

async function docOf(t: TestApp, slug: string): Promise<SpecDoc> {
  const list = await json<BundleList>(t.req("GET", "/bundles"));
  const doc = list.items.find((b) => b.slug === slug)?.docs[0];
  if (!doc) throw new Error(`no bundle ${slug}`);
  await t.runs.idle();
  return json<SpecDoc>(t.req("GET", `/docs/${doc.id}`));
}

describe.each(DB_KINDS)("GET /docs/{docId}/export?format=html on %s", (kind) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await makeTestApp({ kind, fixture: DEMO });
  });
  afterEach(async () => {
    await t.close();
  });

  it("answers one self-contained page: verdict, every finding, assumptions, the doc; nothing external", async () => {
    const created = await json<SpecDoc>(
      t.req("POST", "/bundles", { profile: "prd", name: "draft", title: "Draft <b>" }),
    );
    const doc = await docOf(t, "draft");
    const run = (await t.runs.latestRuns([doc.id])).get(doc.id)!;
    const findings = await t.runs.findings(run.id);
    expect(findings.length).toBeGreaterThan(0);
    const html = await report(t, created.id);
    expect(html).toContain("Not Build Ready");
    expect(html).toContain(`${findings.length} findings`);
    for (const f of findings) expect(html).toContain(`id="finding-${f.id}"`);
    expect(html).toContain("Draft &lt;b&gt;");
    expect(html).not.toContain("Draft <b>");
    expect(html).not.toMatch(/<script|<link\b|\ssrc="(?!data:)|url\(/i);
    expect(html).toContain("Assumptions");
  });

  it("inlines the bundle's images as data: URLs", async () => {
    const doc = await docOf(t, "saved-searches");
    const html = await report(t, doc.id);
    expect(html).toMatch(
      /<img src="data:image\/png;base64,iVBORw0KGgo=" alt="Search bar with the save button"/,
    );
  });

  it("reports the current version only", async () => {
    const doc = await docOf(t, "saved-searches");
    const older = await t.req(
      "PUT",
      `/docs/${doc.id}/files/content?path=notes.txt&base_version=${doc.current_version.id}`,
      "note",
      { "content-type": "application/octet-stream" },
    );
    expect(older.status).toBe(200);
    await problem(
      await t.req("GET", `/docs/${doc.id}/export?format=html&version=1`),
      400,
      "validation_failed",
    );
    expect((await t.req("GET", `/docs/${doc.id}/export?format=html&version=2`)).status).toBe(200);
  });
});

describe.skipIf(!CHROMIUM && !IN_CI)("the HTML report in headless Chromium", () => {
  let browser: Browser;
  let t: TestApp;
  beforeAll(async () => {
    if (!CHROMIUM)
      throw new Error(
        "no Chromium found (CHROMIUM_PATH, /usr/bin/chromium): CI=true needs one to run the report test",
      );
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    t = await makeTestApp({ fixture: DEMO });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function look(html: string, name: string) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const outside: string[] = [];
    await page.route("**/*", async (route) => {
      const url = route.request().url();
      if (url.startsWith("data:")) return route.continue();
      outside.push(url);
      return route.abort();
    });
    page.on("request", (r) => {
      if (!r.url().startsWith("data:") && !outside.includes(r.url())) outside.push(r.url());
    });
    await page.setContent(html, { waitUntil: "load" });
    // REPORT_SCREENSHOT_DIR keeps the screenshots for a person to look at.
    const dir = process.env.REPORT_SCREENSHOT_DIR ?? mkdtempSync(join(tmpdir(), "sr-report-"));
    const shot = join(dir, `${name}.png`);
    await page.screenshot({ path: shot, fullPage: true });
    if (process.env.REPORT_SCREENSHOT_DIR) await page.screenshot({ path: join(dir, `${name}-top.png`) });
    return { page, outside, shot };
  }

  it("shows a Not Build Ready verdict with its findings, loads nothing, and renders to a real screenshot", async () => {
    await json<SpecDoc>(
      t.req("POST", "/bundles", { profile: "design", name: "half-done", title: "Search indexer" }),
    );
    const doc = await docOf(t, "half-done");
    const run = (await t.runs.latestRuns([doc.id])).get(doc.id)!;
    const findings = await t.runs.findings(run.id);
    const { page, outside, shot } = await look(await report(t, doc.id), "not-ready");
    expect(outside).toEqual([]);
    const badge = page.locator(".badge");
    expect(await badge.isVisible()).toBe(true);
    expect((await badge.textContent())?.trim()).toBe("Not Build Ready");
    expect(await page.locator("li.finding").count()).toBe(findings.length);
    expect(await page.locator(".findings-total").textContent()).toBe(`${findings.length} findings`);
    expect(await page.locator(".count-pill.must b").textContent()).toBe(String(doc.verdict!.must));
    expect(await page.locator("li.finding.must").count()).toBe(doc.verdict!.must);
    // Each finding anchored in the doc links to a marked block that exists.
    const links = await page.locator("a.jump").all();
    const targets = await Promise.all(links.map((a) => a.getAttribute("href")));
    expect(targets.length).toBeGreaterThan(0);
    for (const href of new Set(targets)) {
      expect(href).toMatch(/^#src-/);
      expect(await page.locator(href!).count()).toBe(1);
    }
    expect(statSync(shot).size).toBeGreaterThan(30_000);
    await page.close();
  }, 60_000);

  it("shows a filled example with its inline image and radar", async () => {
    // The design example, imported as a dropped folder: its doc shows components.svg.
    const form = new FormData();
    for (const f of ["saved-searches-design.md", "components.svg"])
      form.append("files", new Blob([readFileSync(join(EXAMPLES, "design", f))]), `design-example/${f}`);
    expect((await t.req("POST", "/bundles/import", form)).status).toBe(201);
    const doc = await docOf(t, "design-example");
    const { page, outside, shot } = await look(await report(t, doc.id), "example");
    expect(outside).toEqual([]);
    const img = page.locator(".markdown img").first();
    expect(await img.evaluate((el) => (el as unknown as { naturalWidth: number }).naturalWidth)).toBe(320);
    expect(await page.locator("svg.radar polygon.shape").count()).toBe(1);
    expect(await page.locator(".badge").textContent()).toMatch(/Build Ready/);
    expect(statSync(shot).size).toBeGreaterThan(30_000);
    await page.close();
  }, 60_000);

  it("blocks an image that is not in the bundle instead of fetching it", async () => {
    const html = renderReport({
      title: "Remote",
      slug: "remote",
      profile: { key: "prd" },
      path: "remote.md",
      version: { number: 1, created_at: "2026-01-01T00:00:00.000Z", created_by: "admin", message: "m" },
      findings: [],
      assumptions: [],
      markdown: "# Remote\n\n![tracker](https://example.com/pixel.png)\n\n![gone](missing.png)\n",
      generatedAt: "2026-01-01T00:00:00.000Z",
    });
    expect(html).not.toMatch(/src="https?:/);
    const { page, outside } = await look(html, "remote");
    expect(outside).toEqual([]);
    expect(await page.locator(".img-missing").count()).toBe(2);
    expect((await page.locator(".badge").textContent())?.trim()).toBe("Not reviewed");
    await page.close();
  }, 60_000);
});
