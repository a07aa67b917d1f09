/**
 * `spec-review app` refuses what it cannot run with a usage error (exit 2, one line on
 * stderr naming the problem), before it opens a database or a port.
 */
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";

const main = resolve(import.meta.dirname, "../../cli/main.ts");

function app(args: string[], env: Record<string, string | undefined>) {
  const clean = { ...process.env };
  for (const k of ["APP_ID", "PRIVATE_KEY", "PRIVATE_KEY_PATH", "WEBHOOK_SECRET"]) delete clean[k];
  const r = spawnSync(process.execPath, ["--import", "tsx", main, "app", ...args], {
    env: { ...clean, ...env },
    encoding: "utf8",
    timeout: 30_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const creds = { APP_ID: "1", PRIVATE_KEY: "pem", WEBHOOK_SECRET: "s" };

describe("spec-review app", () => {
  it("names an unknown option in one line and exits 2", () => {
    const r = app(["--bogus"], creds);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toEqual([
      "spec-review app: Unknown option '--bogus' (see spec-review app --help)",
    ]);
  });

  it("names the first missing setting of the App and exits 2", () => {
    const r = app([], { APP_ID: "1", WEBHOOK_SECRET: "s" });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^spec-review app: PRIVATE_KEY is not set \(see spec-review app --help\)\n$/);
  });

  it("refuses a port out of range and a stray argument", () => {
    expect(app(["--port", "70000"], creds).stderr).toMatch(/--port must be 0 to 65535, not '70000'/);
    const stray = app(["extra"], creds);
    expect(stray.code).toBe(2);
    expect(stray.stderr).toMatch(/unexpected argument 'extra'/);
  });

  it("prints its usage on --help and exits 0", () => {
    const r = app(["--help"], {});
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: spec-review app/);
  });
});
