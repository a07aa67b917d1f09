/**
 * `spec-review app` as a process (through tsx): the App and the API in one listener. It is
 * sent signed webhooks over HTTP and talks to a fake GitHub Enterprise Server found
 * through GHE_HOST/GHE_PROTOCOL; a webhook with a wrong signature is refused before any
 * call to GitHub.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createHmac, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeGitHub } from "../helpers/fake-github.js";
import { folderFiles, REPO_FIXTURE } from "../server/repohost/helpers.js";
import { appPrivateKey, payload, WEBHOOK_SECRET } from "./helpers.js";

const main = resolve(import.meta.dirname, "../../cli/main.ts");

describe("spec-review app (process)", () => {
  const gh = new FakeGitHub();
  let proc: ChildProcess;
  let url = "";
  let dataDir = "";
  let head = "";
  let base = "";
  let stderr = "";

  beforeAll(async () => {
    await gh.start();
    const repo = gh.addRepo("acme", "specs", { private: true, installationId: 42 });
    base = gh.commit(repo, folderFiles(REPO_FIXTURE));
    head = gh.commit(
      repo,
      {
        "specs/saved-searches/saved-searches.md":
          folderFiles(REPO_FIXTURE)["specs/saved-searches/saved-searches.md"] + "\nEdited.\n",
      },
      { branch: "edit" },
    );
    repo.pulls.set(7, { files: ["specs/saved-searches/saved-searches.md"], head });
    dataDir = mkdtempSync(join(tmpdir(), "sr-app-"));
    proc = spawn(process.execPath, ["--import", "tsx", main, "app", "--port", "0", "--data-dir", dataDir], {
      env: {
        ...process.env,
        APP_ID: "123",
        PRIVATE_KEY: appPrivateKey(),
        WEBHOOK_SECRET,
        SPEC_REVIEW_SECRET_KEY: randomBytes(32).toString("base64"),
        GHE_HOST: new URL(gh.url).host,
        GHE_PROTOCOL: "http",
        DATABASE_URL: "",
      },
      stdio: ["ignore", "ignore", "pipe"],
    });
    url = await new Promise<string>((ok, fail) => {
      proc.stderr!.on("data", (d: Buffer) => {
        stderr += d.toString();
        const m = /spec-review app listening on (http:\/\/\S+)/.exec(stderr);
        if (m) ok(m[1]!);
      });
      proc.once("exit", (code) => fail(new Error(`spec-review app exited (${code}):\n${stderr}`)));
    });
  }, 120_000);

  afterAll(async () => {
    if (proc.exitCode === null) {
      const exited = new Promise((ok) => proc.once("exit", ok));
      proc.kill("SIGTERM");
      await exited;
    }
    await gh.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const post = (body: string, signature: string, id: string) =>
    fetch(`${url}/api/github/webhooks`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-github-event": "pull_request",
        "x-github-delivery": id,
        "x-hub-signature-256": signature,
      },
      body,
    });

  it("refuses a webhook with a wrong signature, checks a pull request on a signed one, and serves the API", async () => {
    const body = JSON.stringify(payload("pull_request.opened", { HEAD_SHA: head, BASE_SHA: base }));
    const wrong = await post(
      body,
      `sha256=${createHmac("sha256", "wrong").update(body).digest("hex")}`,
      "p-1",
    );
    expect(wrong.status).toBeGreaterThanOrEqual(400);
    // Only the App's own calls (its reconciliation on start, as the App with its JWT), none for the webhook.
    expect(gh.calls.filter((c) => !c.path.startsWith("/app/hook/"))).toEqual([]);

    const ok = await post(
      body,
      `sha256=${createHmac("sha256", WEBHOOK_SECRET).update(body).digest("hex")}`,
      "p-2",
    );
    expect(ok.status).toBe(200);
    expect(gh.checkRuns).toHaveLength(1);
    expect(gh.checkRuns[0]!.body).toMatchObject({ name: "Build Ready", head_sha: head, status: "completed" });
    const paths = gh.calls.map((c) => `${c.method} ${c.path.replace(/[0-9a-f]{40}/g, "<sha>")}`);
    expect(paths).toContain("POST /app/installations/42/access_tokens");
    expect(paths).toContain("GET /repos/acme/specs/pulls/7/files?per_page=100");
    expect(paths).toContain("POST /repos/acme/specs/check-runs");
    expect(gh.comments.get(7)).toHaveLength(1);

    const api = await fetch(`${url}/api/v1/repohost/sources`);
    expect(api.status).toBe(401);
    expect(api.headers.get("content-type")).toContain("application/problem+json");
  }, 60_000);
});
