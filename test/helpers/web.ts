/**
 * The dashboard in a real browser for tests and the benchmark: the web app built once per
 * process (vite, into a temporary folder the server is pointed at with SPEC_REVIEW_WEB_DIR),
 * a test app listening on a real port, headless Chromium, axe-core, and screenshots written
 * to tmp/web-screenshots (ignored by git) as test artifacts.
 *
 * Chromium: CHROMIUM_PATH or the usual install places. Without one a browser test is
 * skipped with a printed reason, except under CI=true, where a missing browser fails.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { chromium, type Browser, type Page } from "playwright-core";

const ROOT = resolve(import.meta.dirname, "../..");
export const SCREENSHOTS = join(ROOT, "tmp", "web-screenshots");

export const CHROMIUM = [
  process.env.CHROMIUM_PATH,
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
].find((p): p is string => !!p && existsSync(p));
export const IN_CI = process.env.CI === "true";
/** Whether browser tests run here; prints why not once per file when they do not. */
export function browserAvailable(file: string): boolean {
  if (!CHROMIUM && !IN_CI)
    process.stderr.write(
      `${file}: skipping the dashboard browser tests: no Chromium (set CHROMIUM_PATH or install chromium)\n`,
    );
  return !!CHROMIUM || IN_CI;
}

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
];

let built: Promise<string> | undefined;

/** Builds web/ once per process and points the server's static handler at it (before apps are made). */
export function buildWeb(): Promise<string> {
  built ??= (async () => {
    const outDir = mkdtempSync(join(tmpdir(), "sr-web-"));
    const { build } = await import("vite");
    await build({
      root: join(ROOT, "web"),
      configFile: join(ROOT, "web", "vite.config.ts"),
      logLevel: "warn",
      build: { outDir, emptyOutDir: true },
    });
    process.env.SPEC_REVIEW_WEB_DIR = outDir;
    return outDir;
  })();
  return built;
}

export interface Listening {
  url: string;
  close(): Promise<void>;
}

/** An app (anything with `fetch`) on 127.0.0.1 at a free port. */
export async function listen(app: {
  fetch: (req: Request) => Response | Promise<Response>;
}): Promise<Listening> {
  const server = await new Promise<ReturnType<typeof serve>>((ok) => {
    const s = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () => ok(s));
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((ok) => {
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => ok());
      }),
  };
}

export async function launchBrowser(): Promise<Browser> {
  if (!CHROMIUM) throw new Error("no Chromium found (CHROMIUM_PATH, /usr/bin/chromium): CI=true needs one");
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/**
 * The few browser types the page callbacks use. The root tsconfig has no DOM lib (server
 * code must not see browser globals), so callbacks that run in the page read them through
 * `globalThis as unknown as Browser` and type their elements as `DomNode`.
 */
export interface DomNode {
  textContent: string | null;
  firstChild: DomNode | null;
  classList: { contains(name: string): boolean };
  labels?: { length: number } | null;
  getAttribute(name: string): string | null;
  querySelector(selector: string): DomNode | null;
  getBoundingClientRect(): { top: number; left: number };
}
export interface BrowserGlobals {
  document: {
    activeElement: DomNode | null;
    documentElement: { scrollWidth: number; clientWidth: number };
    querySelectorAll(selector: string): { length: number };
    createRange(): {
      setStart(node: DomNode, offset: number): void;
      setEnd(node: DomNode, offset: number): void;
    };
    getSelection(): { removeAllRanges(): void; addRange(range: unknown): void } | null;
  };
  location: { origin: string };
  performance: {
    now(): number;
    getEntriesByType(
      type: string,
    ): Array<{ name: string; startTime: number; responseEnd?: number; encodedBodySize?: number }>;
  };
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown[]; html: string }>;
}

/**
 * axe-core's serious and critical violations on the page as it is. The script is evaluated
 * through the debugging protocol, so the page's CSP (no inline scripts) stays as served.
 */
export async function axeSerious(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const g = globalThis as unknown as BrowserGlobals & {
      axe: { run: (ctx: unknown, opts: object) => Promise<{ violations: AxeViolation[] }> };
    };
    const result = await g.axe.run(g.document, { resultTypes: ["violations"] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 3).map((n) => ({ target: n.target, html: n.html.slice(0, 200) })),
    }));
  });
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical");
}

/** Fails the page's test on an uncaught error or a CSP violation in the console. */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => {
    if (m.type() === "error" && !/Failed to load resource/.test(m.text())) errors.push(m.text());
  });
  return errors;
}
