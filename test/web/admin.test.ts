/**
 * The admin page's forms in headless Chromium (local mode, the local admin): a provider
 * backend added against a local fake OpenAI server, a bad base_url answered with the
 * server's problem detail, the secret shown only as its last 4 characters, the backend
 * assigned to the reviewer role with prices and its test call answered by the fake, a
 * change that keeps the stored secret, a real MCP server over stdio added, its tools
 * listed and the connection deleted after a confirm step (by keyboard), the backend's
 * delete refused while a role uses it and done after unassigning, an agent CLI backend
 * refused without the command its custom preset needs, then added; every change is still
 * there after a reload; axe-core finds no serious or critical violation at 1280 px and at
 * phone width, and the page does not scroll sideways there.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { json, makeTestApp, type TestApp } from "../helpers/app.js";
import { startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { stdioCommand, writeWikiConfig } from "../helpers/mcp-server.js";
import type { Items } from "../helpers/types.js";
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

const SECRET = "sk-admin-page-test-9Qz7";
const MODEL = "fake-model-1";

interface Backend {
  id: string;
  name: string;
  kind: string;
  preset?: string;
  command?: string[];
  base_url?: string;
  secret_last4: string;
  roles: string[];
}
interface Role {
  role: string;
  backend_id?: string;
  model?: string;
  price_in_per_mtok?: number;
  price_out_per_mtok?: number;
}

describe.skipIf(!browserAvailable("admin.test.ts"))("the admin page's forms", { timeout: 180_000 }, () => {
  let t: TestApp;
  let fake: FakeOpenAI;
  let server: Listening;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    await buildWeb();
    fake = await startFakeOpenAI({ handler: () => ({ json: { answer: "ok" } }) });
    t = await makeTestApp({ modelTimeoutMs: 10_000 });
    server = await listen(t.app);
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    errors = watchErrors(page);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await t?.close();
    await fake?.close();
  });

  const openAdmin = async () => {
    await page.goto(server.url + "/admin");
    await page.getByRole("heading", { name: "Model backends and roles" }).waitFor();
    await page.waitForFunction(
      () => (globalThis as unknown as BrowserGlobals).document.querySelectorAll("main .loading").length === 0,
      undefined,
      { timeout: 20_000 },
    );
  };
  const backends = async () => (await json<Items<Backend>>(t.req("GET", "/admin/backends"))).items;
  const reviewer = async () =>
    (await json<Items<Role>>(t.req("GET", "/admin/roles"))).items.find((r) => r.role === "reviewer")!;
  const mainText = () => page.locator("main").innerText();
  const addBackend = () => page.getByRole("form", { name: "Add a model backend" });
  const backendRow = (name: string) => page.locator("table.backends tbody tr", { hasText: name });
  const reviewerForm = () => page.getByRole("group", { name: "reviewer" });

  it("shows a bad base_url's problem detail, then adds the backend; its secret shows as its last 4 only", async () => {
    await openAdmin();
    expect(await mainText()).toContain("No backend yet");
    await page.getByText("Add a model backend").click();
    const form = addBackend();
    await form.getByLabel("Kind").selectOption("provider_1");
    await form.getByLabel("Name").fill("Local fake");
    await form.getByLabel(/^Base URL/).fill("not an address");
    await form.getByLabel(/^API key/).fill(SECRET);
    await form.getByRole("button", { name: "Add the backend" }).click();
    const alert = form.locator("[role=alert]");
    await alert.waitFor();
    // The same body through the API: the page shows the server's own detail and code.
    const res = await t.req("POST", "/admin/backends", {
      kind: "provider_1",
      name: "Local fake",
      base_url: "not an address",
      secret: SECRET,
    });
    expect(res.status).toBe(400);
    const problem = (await res.json()) as { detail: string; code: string };
    expect(problem.detail).toContain("base_url");
    expect(await alert.innerText()).toContain(problem.detail);
    expect(await alert.innerText()).toContain(problem.code);
    expect(await backends()).toEqual([]);

    await form.getByLabel(/^Base URL/).fill(fake.baseUrl);
    await form.getByRole("button", { name: "Add the backend" }).click();
    await backendRow("Local fake").waitFor();
    expect(await form.locator("[role=alert]").count()).toBe(0);
    expect(await backendRow("Local fake").locator(".secret-cell").innerText()).toBe(`…${SECRET.slice(-4)}`);
    expect(await backendRow("Local fake").innerText()).toContain(fake.baseUrl);
    // Write-only: the field is emptied, and the secret is nowhere in the page.
    expect(await form.getByLabel(/^API key/).inputValue()).toBe("");
    expect(await page.content()).not.toContain(SECRET);
    const [b] = await backends();
    expect(b).toMatchObject({ name: "Local fake", base_url: fake.baseUrl, secret_last4: SECRET.slice(-4) });
  });

  it("assigns the backend to the reviewer with a model and prices, and its test call answers", async () => {
    const form = reviewerForm();
    await form.getByLabel("Backend").selectOption({ label: "Local fake (provider_1)" });
    await form.getByLabel("Model").fill(MODEL);
    await form.getByLabel(/^Input price/).fill("2.5");
    await form.getByLabel(/^Output price/).fill("10");
    await form.getByRole("button", { name: "Assign reviewer" }).click();
    await expect.poll(() => form.locator(".role-now").innerText(), { timeout: 15_000 }).toContain(MODEL);
    expect(await reviewer()).toMatchObject({
      backend_id: (await backends())[0]!.id,
      model: MODEL,
      price_in_per_mtok: 2.5,
      price_out_per_mtok: 10,
    });
    expect(await backendRow("Local fake").innerText()).toContain("reviewer");

    const before = fake.completions.length;
    await form.getByRole("button", { name: `Test call: Local fake with ${MODEL}` }).click();
    const status = form.locator("[role=status]", { hasText: /answered|failed/ });
    await status.waitFor({ timeout: 20_000 });
    expect(await status.innerText()).toMatch(/answered in \d+ ms: ok/);
    // The call went to the fake with the role's model and the stored secret.
    expect(fake.completions.length).toBe(before + 1);
    const sent = fake.completions.at(-1)!;
    expect(sent.body.model).toBe(MODEL);
    expect(sent.headers.authorization).toBe(`Bearer ${SECRET}`);
    await screenshot(page, "admin-models");
  });

  it("keeps the backend, the role and the secret's last 4 after a reload; a change keeps the stored secret", async () => {
    await openAdmin();
    expect(await backendRow("Local fake").locator(".secret-cell").innerText()).toBe(`…${SECRET.slice(-4)}`);
    const now = await reviewerForm().locator(".role-now").innerText();
    expect(now).toContain("Local fake");
    expect(now).toContain(MODEL);
    expect(
      await reviewerForm()
        .getByLabel(/^Input price/)
        .inputValue(),
    ).toBe("2.5");
    expect(await page.content()).not.toContain(SECRET);

    await page.getByRole("button", { name: "Edit backend Local fake" }).click();
    const edit = page.getByRole("form", { name: "Change backend Local fake" });
    expect(await edit.getByLabel(/^Base URL/).inputValue()).toBe(fake.baseUrl);
    await edit.getByLabel("Name").fill("Local fake two");
    await edit.getByRole("button", { name: "Save the backend" }).click();
    await backendRow("Local fake two").waitFor();
    expect(await edit.count()).toBe(0);
    const [b] = await backends();
    expect(b).toMatchObject({ name: "Local fake two", secret_last4: SECRET.slice(-4), roles: ["reviewer"] });
    // The kept secret still reaches the model server.
    await reviewerForm()
      .getByRole("button", { name: `Test call: Local fake two with ${MODEL}` })
      .click();
    await reviewerForm()
      .locator("[role=status]", { hasText: /answered in/ })
      .waitFor({ timeout: 20_000 });
    expect(fake.completions.at(-1)!.headers.authorization).toBe(`Bearer ${SECRET}`);
  });

  it("adds a real stdio MCP server, lists its tools, and deletes it after a confirm step by keyboard", async () => {
    const config = writeWikiConfig({ pages: { "https://wiki.test/a": { text: "page a" } } });
    const command = stdioCommand(config);
    await page.getByText("Add an MCP connection").click();
    const form = page.getByRole("form", { name: "Add an MCP connection" });
    await form.getByLabel("Name").fill("Test wiki");
    await form.getByLabel("Transport").selectOption("stdio");
    await form.getByLabel(/^Command/).fill(command.join("\n"));
    await form.getByLabel(/^Tools the service may call/).fill("fetch\nsearch");
    await form.getByRole("button", { name: "Add the connection" }).click();
    const item = page.locator("li.mcp-item", { hasText: "Test wiki" });
    await item.waitFor();
    expect(await item.innerText()).toContain("allowed: fetch, search");

    await openAdmin();
    await item.getByRole("button", { name: "List tools of Test wiki" }).click();
    const tools = item.locator(".mcp-tools");
    await tools.waitFor({ timeout: 30_000 });
    const listed = await tools.innerText();
    for (const name of ["fetch", "search", "delete_page"]) expect(listed).toContain(name);
    expect(await tools.locator("li", { hasText: "delete_page" }).innerText()).toContain("destructive");
    await screenshot(page, "admin-mcp");

    // Delete by keyboard: Enter asks; focus lands on "Keep it", Shift+Tab reaches "Yes, delete".
    await item.getByRole("button", { name: "Delete MCP connection Test wiki" }).focus();
    await page.keyboard.press("Enter");
    const confirm = item.getByRole("group", { name: "Confirm deleting MCP connection Test wiki" });
    await confirm.waitFor();
    await expect
      .poll(() =>
        page.evaluate(() => (globalThis as unknown as BrowserGlobals).document.activeElement?.textContent),
      )
      .toBe("Keep it");
    await page.keyboard.press("Shift+Tab");
    await page.keyboard.press("Enter");
    await item.waitFor({ state: "detached" });
    expect((await json<Items<unknown>>(t.req("GET", "/admin/mcp"))).items).toEqual([]);
    await openAdmin();
    expect(await page.locator("li.mcp-item").count()).toBe(0);
  });

  it("refuses to delete a backend a role uses with the server's reason, then deletes it once unassigned", async () => {
    const row = backendRow("Local fake two");
    await row.getByRole("button", { name: "Delete backend Local fake two" }).click();
    await row.getByRole("button", { name: "Yes, delete" }).click();
    const alert = row.locator("[role=alert]");
    await alert.waitFor();
    expect(await alert.innerText()).toContain("backend_in_use");
    expect(await alert.innerText()).toContain("reviewer");
    expect(await backends()).toHaveLength(1);

    await reviewerForm().getByRole("button", { name: "Unassign reviewer" }).click();
    await expect.poll(() => reviewerForm().locator(".role-now").innerText()).toContain("no backend");
    expect((await reviewer()).backend_id).toBeUndefined();
    await openAdmin();
    await backendRow("Local fake two").getByRole("button", { name: "Delete backend Local fake two" }).click();
    await backendRow("Local fake two").getByRole("button", { name: "Yes, delete" }).click();
    await backendRow("Local fake two").waitFor({ state: "detached" });
    expect(await backends()).toEqual([]);
    await openAdmin();
    expect(await mainText()).toContain("No backend yet");
  });

  it("adds an agent CLI backend with a custom command once the form has the fields its preset needs", async () => {
    await page.getByText("Add a model backend").click();
    const form = addBackend();
    await form.getByLabel("Kind").selectOption("agent_cli");
    expect(await form.getByLabel(/^Base URL/).count()).toBe(0);
    await form.getByLabel("Name").fill("My CLI");
    await form.getByLabel("Agent preset").selectOption("custom");
    await form.getByRole("button", { name: "Add the backend" }).click();
    const alert = form.locator("[role=alert]");
    await alert.waitFor();
    expect(await alert.innerText()).toContain("body.command: required for preset custom");

    await form.getByLabel(/^Command/).fill("my-agent\n--model\n{model}\n");
    await form.getByLabel("Prompt given by").selectOption("stdin");
    await form.getByRole("button", { name: "Add the backend" }).click();
    await backendRow("My CLI").waitFor();
    expect(await backendRow("My CLI").innerText()).toContain("my-agent --model {model}");
    expect(await backends()).toMatchObject([
      { name: "My CLI", kind: "agent_cli", preset: "custom", command: ["my-agent", "--model", "{model}"] },
    ]);
    await backendRow("My CLI").getByRole("button", { name: "Delete backend My CLI" }).click();
    await backendRow("My CLI").getByRole("button", { name: "Yes, delete" }).click();
    await backendRow("My CLI").waitFor({ state: "detached" });
    expect(await backends()).toEqual([]);
  });

  it("passes axe-core with its forms open at 1280 px and at phone width, without sideways scroll", async () => {
    // Something in every list, so the tables and items are checked too.
    const b = await json<Backend>(
      t.req("POST", "/admin/backends", {
        kind: "provider_1",
        name: "A backend with a rather long name",
        base_url: fake.baseUrl,
        secret: SECRET,
      }),
    );
    await t.req("PUT", "/admin/roles/reader", { backend_id: b.id, model: MODEL });
    await t.req("POST", "/admin/mcp", {
      name: "Docs",
      transport: "http",
      url: "http://127.0.0.1:9/mcp",
      tool_allowlist: ["fetch"],
    });
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await openAdmin();
      await page.getByText("Add a model backend").click();
      await page.getByText("Add an MCP connection").click();
      await page.getByRole("button", { name: `Edit backend ${b.name}` }).click();
      expect(await axeSerious(page), `at ${width} px`).toEqual([]);
      const overflow = await page.evaluate(() => {
        const { documentElement } = (globalThis as unknown as BrowserGlobals).document;
        return documentElement.scrollWidth - documentElement.clientWidth;
      });
      expect(overflow, `scrolls sideways at ${width} px`).toBeLessThanOrEqual(1);
      const unnamed = await page.$$eval(
        "main input, main select, main textarea, main button",
        (els: DomNode[]) =>
          els.filter((e) => !e.labels?.length && !e.getAttribute("aria-label") && !e.textContent?.trim())
            .length,
      );
      expect(unnamed).toBe(0);
      await screenshot(page, `admin-forms-${width}px`);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it("ran without a page error", () => {
    expect(errors.filter((e) => !/status of (400|409|404|501)/.test(e))).toEqual([]);
  });
});
