/**
 * kill -9 of `spec-review app` while a webhook's handler runs (issue 30, "Nothing
 * missed"): the delivery was written down as started, never as finished. The App started
 * again on the same data folder finds it in GitHub's list of deliveries on its first
 * reconciliation pass, asks for it again, and handles it: one Build Ready check. Real
 * processes (through tsx), the embedded database on disk, the fake GitHub delivering
 * signed webhooks over HTTP.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeGitHub } from "../helpers/fake-github.js";
import { FakeHooks } from "../helpers/fake-github-hooks.js";
import { appPrivateKey, payload, specsPullRequest, WEBHOOK_SECRET } from "./helpers.js";

const main = resolve(import.meta.dirname, "../../cli/main.ts");

async function until(what: string, ok: () => boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("spec-review app killed while a handler runs (process)", () => {
  const gh = new FakeGitHub();
  const hooks = new FakeHooks(gh, WEBHOOK_SECRET);
  let dataDir = "";
  const secretKey = randomBytes(32).toString("base64");
  const procs: ChildProcess[] = [];
  /** While true, the pull request's file list never answers (the handler is stuck there). */
  let hang = true;

  function start(): Promise<{ proc: ChildProcess; url: string }> {
    const proc = spawn(
      process.execPath,
      ["--import", "tsx", main, "app", "--port", "0", "--data-dir", dataDir],
      {
        env: {
          ...process.env,
          APP_ID: "123",
          PRIVATE_KEY: appPrivateKey(),
          WEBHOOK_SECRET,
          SPEC_REVIEW_SECRET_KEY: secretKey,
          GHE_HOST: new URL(gh.url).host,
          GHE_PROTOCOL: "http",
          DATABASE_URL: "",
        },
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    procs.push(proc);
    let stderr = "";
    return new Promise((ok, fail) => {
      proc.stderr.on("data", (d: Buffer) => {
        stderr += d.toString();
        const m = /spec-review app listening on (http:\/\/\S+)/.exec(stderr);
        if (m) ok({ proc, url: m[1]! });
      });
      proc.once("exit", (code) => fail(new Error(`spec-review app exited (${code}):\n${stderr}`)));
    });
  }

  beforeAll(async () => {
    await gh.start();
    gh.routes.unshift((req) => hang && req.method === "GET" && /\/pulls\/7\/files/.test(req.path));
    dataDir = mkdtempSync(join(tmpdir(), "sr-app-killed-"));
  });
  afterAll(async () => {
    for (const p of procs)
      if (p.exitCode === null && p.signalCode === null) {
        const exited = new Promise((ok) => p.once("exit", ok));
        p.kill("SIGTERM");
        await exited;
      }
    await gh.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("the delivery whose handler was killed is asked for again and handled once", async () => {
    const { base, head } = specsPullRequest(gh, "## Limits\n\nAt most 20 quotes a minute per cart.\n\n");
    const first = await start();
    hooks.target = `${first.url}/api/github/webhooks`;
    const sent = hooks.send(
      "pull_request",
      payload("pull_request.opened", { HEAD_SHA: head, BASE_SHA: base }),
    );
    await until("the handler to be stuck", () => gh.calls.some((c) => /\/pulls\/7\/files/.test(c.path)));
    const exited = new Promise((ok) => first.proc.once("exit", ok));
    first.proc.kill("SIGKILL");
    await exited;
    const delivery = await sent;
    expect(delivery.status_code).toBe(0);
    expect(gh.checkRuns).toHaveLength(0);

    hang = false;
    hooks.target = "";
    hooks.awaitTarget = true;
    const second = await start();
    hooks.target = `${second.url}/api/github/webhooks`;
    await until("the check", () => gh.checkRuns.length > 0);
    await hooks.idle();
    expect(hooks.redeliveryRequests).toEqual([delivery.id]);
    expect(hooks.attempts(delivery.guid).map((d) => [d.redelivery, d.status_code])).toEqual([
      [false, 0],
      [true, 200],
    ]);
    expect(gh.checkRuns).toHaveLength(1);
    expect(gh.checkRuns[0]!.body).toMatchObject({ name: "Build Ready", head_sha: head, status: "completed" });
    expect(gh.comments.get(7)).toHaveLength(1);
  }, 120_000);
});
