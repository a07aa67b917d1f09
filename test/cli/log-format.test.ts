/**
 * LOG_FORMAT (docs/deploy.md, "Logs"): `serve` and `app` with stderr not a terminal write
 * one JSON record per line, the start lines included: the local API token and the first
 * admin invite are fields of the one start-up record, and masked in every other record.
 * With LOG_FORMAT=pretty, the start lines are plain text, as before. A bad value stops
 * the start with one line and exit code 2.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { packageRoot } from "../../node/package.js";
import { appPrivateKey, WEBHOOK_SECRET } from "../app/helpers.js";

const root = packageRoot();
const main = join(root, "cli", "main.ts");
const KEY = randomBytes(32).toString("base64");

function cliEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of ["DATABASE_URL", "PUBLIC_URL", "SPEC_REVIEW_SECRET_KEY", "LOG_LEVEL", "LOG_FORMAT"])
    delete env[k];
  return { ...env, ...extra };
}

const procs = new Set<ChildProcess>();
const dirs: string[] = [];
afterEach(() => {
  for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
  procs.clear();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "sr-logfmt-"));
  dirs.push(d);
  return d;
}

interface Started {
  proc: ChildProcess;
  /** Everything written on stderr so far. */
  stderr(): string;
  /** Stop it (SIGTERM) and answer all of stderr once it exited. */
  stop(): Promise<string>;
}

/** Spawn the CLI with stderr piped (not a terminal) and wait until `ready` matches its stderr. */
function startCli(args: string[], env: Record<string, string>, ready: RegExp): Promise<Started> {
  const proc = spawn(process.execPath, ["--import", "tsx", main, ...args], {
    cwd: root,
    env: cliEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  procs.add(proc);
  proc.stdout.resume();
  let err = "";
  const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start line:\n${err}`)), 240_000);
    proc.stderr.setEncoding("utf8");
    proc.stderr.on("data", (chunk: string) => {
      err += chunk;
      if (ready.test(err)) {
        clearTimeout(timer);
        resolve({
          proc,
          stderr: () => err,
          stop: async () => {
            proc.kill("SIGTERM");
            await exited;
            return err;
          },
        });
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`exited (${proc.exitCode}) before starting:\n${err}`));
    });
  });
}

/** Every line of the text, each parsed as JSON (a line that is not JSON fails the test). */
function records(text: string): Array<Record<string, unknown>> {
  return text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => {
      try {
        return JSON.parse(l) as Record<string, unknown>;
      } catch {
        throw new Error(`not a JSON line: ${l}`);
      }
    });
}

const linesWith = (text: string, needle: string) => text.split("\n").filter((l) => l.includes(needle));

describe("LOG_FORMAT", { timeout: 300_000 }, () => {
  it("serve with stderr not a terminal: every line is JSON; the API token is a field of the start-up record only", async () => {
    const folder = tempDir();
    const s = await startCli(
      ["serve", folder, "--host", "0.0.0.0", "--allow-remote", "--port", "0", "--no-watch"],
      { LOG_LEVEL: "debug" },
      /"api_token":"srt_[^"]+".*"msg":"spec-review serving /,
    );
    const startup = records(s.stderr()).find((r) => typeof r.api_token === "string")!;
    const token = startup.api_token as string;
    expect(startup).toMatchObject({
      level: "info",
      msg: expect.stringContaining(`spec-review serving ${folder} at http://0.0.0.0:`) as unknown,
      api: expect.stringMatching(/^http:\/\/0\.0\.0\.0:\d+\/api\/v1$/) as unknown,
      pid: s.proc.pid,
    });
    // A request whose path carries the token: its record (debug in local mode) masks it.
    const port = /:(\d+)\/api\/v1$/.exec(startup.api as string)![1]!;
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/bundles/${token}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    // Let in (the right token), and answered: no such bundle.
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).not.toBe(401);
    const all = await s.stop();
    const lines = records(all);
    expect(
      lines.find((r) => r.msg === "request" && String(r.path).startsWith("/api/v1/bundles/")),
    ).toMatchObject({
      path: "/api/v1/bundles/****",
    });
    expect(lines.find((r) => r.msg === "stopped")).toBeDefined();
    expect(linesWith(all, token)).toHaveLength(1);
    expect(all).not.toMatch(/^api token:/m);
  });

  it("serve with LOG_FORMAT=pretty: the start lines are plain text, the token on one line", async () => {
    const folder = tempDir();
    const s = await startCli(
      ["serve", folder, "--host", "0.0.0.0", "--allow-remote", "--port", "0", "--no-watch"],
      { LOG_FORMAT: "pretty" },
      /^spec-review serving .* at http:\/\/0\.0\.0\.0:\d+\/api\/v1/m,
    );
    const all = await s.stop();
    const token = /^api token: (srt_[A-Za-z0-9_-]+) {2}\(send as Authorization: Bearer <token>/m.exec(
      all,
    )?.[1];
    expect(token, all).toBeDefined();
    expect(all).toMatch(
      new RegExp(`^spec-review serving ${folder} at http://0\\.0\\.0\\.0:\\d+/api/v1 \\(docs: `, "m"),
    );
    expect(linesWith(all, token!)).toHaveLength(1);
  });

  it("serve --hosted: the first admin invite is a field of the start-up record only", async () => {
    const s = await startCli(
      ["serve", "--hosted", "--port", "0", "--data-dir", tempDir()],
      { SPEC_REVIEW_SECRET_KEY: KEY, LOG_FORMAT: "json" },
      /"msg":"spec-review serving hosted mode at /,
    );
    const all = await s.stop();
    const startup = records(all).find((r) => typeof r.admin_invite === "string");
    expect(startup, all).toMatchObject({
      admin_invite: expect.stringMatching(
        /^http:\/\/127\.0\.0\.1:\d+\/invite\/sri_[A-Za-z0-9_-]{43}$/,
      ) as unknown,
      msg: expect.stringContaining("spec-review serving hosted mode at") as unknown,
    });
    const token = (startup!.admin_invite as string).split("/invite/")[1]!;
    expect(linesWith(all, token)).toHaveLength(1);
  });

  it("app with stderr not a terminal: every line is JSON, the invite in the start-up record", async () => {
    const s = await startCli(
      ["app", "--port", "0", "--data-dir", tempDir()],
      {
        APP_ID: "123",
        PRIVATE_KEY: appPrivateKey(),
        WEBHOOK_SECRET,
        SPEC_REVIEW_SECRET_KEY: KEY,
        GHE_HOST: "127.0.0.1:9",
        GHE_PROTOCOL: "http",
      },
      /"msg":"spec-review app listening on /,
    );
    const all = await s.stop();
    const startup = records(all).find((r) => typeof r.admin_invite === "string");
    expect(startup, all).toMatchObject({
      msg: expect.stringMatching(/^spec-review app listening on http:\/\/127\.0\.0\.1:\d+ /) as unknown,
      webhooks: "/api/github/webhooks",
    });
    const token = (startup!.admin_invite as string).split("/invite/")[1]!;
    expect(linesWith(all, token)).toHaveLength(1);
  });

  it.each([["serve"], ["app"]])(
    "%s refuses a LOG_FORMAT it does not know, with one line and exit 2",
    (command) => {
      const r = spawnSync(
        process.execPath,
        ["--import", "tsx", main, command, ...(command === "serve" ? [tempDir()] : [])],
        {
          cwd: root,
          env: cliEnv({
            LOG_FORMAT: "xml",
            APP_ID: "123",
            PRIVATE_KEY: appPrivateKey(),
            WEBHOOK_SECRET,
            SPEC_REVIEW_SECRET_KEY: KEY,
          }),
          encoding: "utf8",
          timeout: 60_000,
        },
      );
      expect(r.status).toBe(2);
      expect(r.stderr).toBe(`spec-review ${command}: LOG_FORMAT must be json or pretty, got "xml"\n`);
    },
  );
});
