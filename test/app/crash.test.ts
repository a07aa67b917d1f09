/**
 * kill -9 of `spec-review app` while a pull request's full review runs (issue 16): the
 * check is in progress on GitHub and the process is gone. The App started again on the
 * same data folder finds the review it left in flight, runs it again on the same head and
 * completes that same check. Real processes (through tsx), the embedded database on disk,
 * a fake GitHub and a fake OpenAI server over HTTP.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createHmac, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeGitHub } from "../helpers/fake-github.js";
import { startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { answerFor } from "../core/review/e2e-helpers.js";
import { folderFiles, REPO_FIXTURE } from "../server/repohost/helpers.js";
import { appPrivateKey, payload, WEBHOOK_SECRET } from "./helpers.js";

const main = resolve(import.meta.dirname, "../../cli/main.ts");

interface Running {
  proc: ChildProcess;
  url: string;
  stderr: () => string;
}

async function until(what: string, ok: () => boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("spec-review app killed mid-review (process)", () => {
  const gh = new FakeGitHub();
  let fake: FakeOpenAI;
  let dataDir = "";
  const secretKey = randomBytes(32).toString("base64");
  const procs: ChildProcess[] = [];

  function start(): Promise<Running> {
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
        if (m) ok({ proc, url: m[1]!, stderr: () => stderr });
      });
      proc.once("exit", (code) => fail(new Error(`spec-review app exited (${code}):\n${stderr}`)));
    });
  }

  beforeAll(async () => {
    await gh.start();
    fake = await startFakeOpenAI({ handler: answerFor });
    dataDir = mkdtempSync(join(tmpdir(), "sr-app-crash-"));
  });
  afterAll(async () => {
    for (const p of procs)
      if (p.exitCode === null && p.signalCode === null) {
        const exited = new Promise((ok) => p.once("exit", ok));
        p.kill("SIGTERM");
        await exited;
      }
    await fake.close();
    await gh.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("the App started again completes the check the killed one left in progress", async () => {
    const repo = gh.addRepo("acme", "specs", { private: true, installationId: 42 });
    const api = folderFiles(REPO_FIXTURE)["specs/checkout-api/api.md"]!;
    const base = gh.commit(repo, folderFiles(REPO_FIXTURE));
    const head = gh.commit(
      repo,
      {
        "specs/checkout-api/api.md": api.replace(
          "## Authentication",
          "## Limits\n\nTen a minute.\n\n## Authentication",
        ),
      },
      { branch: "limits" },
    );
    repo.pulls.set(7, { files: ["specs/checkout-api/api.md"], head });

    const first = await start();
    // The first admin (the invite the first start prints), then models for every role.
    const invite = /\/invite\/(sri_[A-Za-z0-9_-]+)/.exec(first.stderr())![1]!;
    const signup = await fetch(`${first.url}/api/v1/auth/signup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        token: invite,
        name: "Root",
        email: "root@example.com",
        password: "a long pass phrase 4 tests",
      }),
    });
    expect(signup.status, await signup.clone().text()).toBe(201);
    const cookie = signup.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const admin = async (method: string, path: string, body: unknown) => {
      const res = await fetch(`${first.url}/api/v1${path}`, {
        method,
        headers: { "content-type": "application/json", cookie, origin: first.url },
        body: JSON.stringify(body),
      });
      expect(res.status, await res.clone().text()).toBeLessThan(300);
      return (await res.json()) as { id: string };
    };
    const backend = await admin("POST", "/admin/backends", {
      kind: "provider_1",
      name: "fake",
      base_url: fake.baseUrl,
      secret: "sk-test-0000",
    });
    for (const role of ["reviewer", "reader", "judge"])
      await admin("PUT", `/admin/roles/${role}`, { backend_id: backend.id, model: `${role}-model` });

    // The models hang: the review is mid-way when the process is killed.
    let release!: () => void;
    const hung = new Promise<void>((r) => (release = r));
    fake.handler = async (req) => {
      await hung;
      return answerFor(req);
    };
    const body = JSON.stringify(payload("pull_request.opened", { HEAD_SHA: head, BASE_SHA: base }));
    const hook = await fetch(`${first.url}/api/github/webhooks`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-github-event": "pull_request",
        "x-github-delivery": "crash-1",
        "x-hub-signature-256": `sha256=${createHmac("sha256", WEBHOOK_SECRET).update(body).digest("hex")}`,
      },
      body,
    });
    expect(hook.status).toBe(200);
    expect(gh.checkRuns).toHaveLength(1);
    const check = gh.checkRuns[0]!;
    expect(check.body).toMatchObject({ head_sha: head, status: "in_progress" });
    await until("a model call", () => fake.completions.length > 0 || fake.maxConcurrent > 0);

    const exited = new Promise((ok) => first.proc.once("exit", ok));
    first.proc.kill("SIGKILL");
    await exited;
    const patches = () =>
      gh.calls
        .filter((c) => c.method === "PATCH" && c.path === `/repos/acme/specs/check-runs/${check.id}`)
        .map((c) => c.body as { status?: string; conclusion?: string; output: { title: string } });
    // Killed: nothing completed the check.
    expect(patches()).toEqual([]);

    fake.handler = answerFor;
    release();
    await start();
    await until("the check completed", () => patches().some((p) => p.status === "completed"), 90_000);
    expect(gh.checkRuns).toHaveLength(1);
    const done = patches().at(-1)!;
    expect(done).toMatchObject({
      status: "completed",
      conclusion: expect.stringMatching(/^(success|failure)$/) as unknown,
    });
    expect(done.output.title).toContain("(full review)");
  }, 180_000);
});
