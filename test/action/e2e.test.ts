/**
 * End to end: the BUILT action/dist/index.js runs as a subprocess, as the runner runs it,
 * on a pull_request event, against a local HTTP server standing in for the GitHub API
 * (GITHUB_API_URL), in a checked-out copy of a fixture repository. Rebuild first
 * (`npm run build:action`) when action/ or core/ changed; .ci/action-check.sh checks it.
 */
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FIXTURES, HEAD_SHA, ROOT, fixture, readOutputs } from "./helpers.js";

const DIST = join(ROOT, "action", "dist", "index.js");
const REPO = "/repos/acme/product-specs";

interface Call {
  method: string;
  path: string;
  authorization: string | undefined;
  body: unknown;
}

/** A GitHub API stand-in: answers the Action's calls from recorded payloads and keeps each call. */
function fakeGitHub(
  options: { readOnly?: boolean } = {},
): Promise<{ server: Server; url: string; calls: Call[] }> {
  const calls: Call[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = "";
    req.on("data", (chunk: Buffer) => (raw += chunk.toString("utf8")));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      const path = url.pathname + url.search;
      calls.push({
        method: req.method ?? "",
        path,
        authorization: req.headers.authorization,
        body: raw ? (JSON.parse(raw) as unknown) : undefined,
      });
      const base = `http://${req.headers.host}`;
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
        res.end(JSON.stringify(body));
      };
      const route = `${req.method} ${url.pathname}`;
      // A fork's token: reads work, writes are refused as GitHub refuses them.
      if (options.readOnly && req.method !== "GET")
        return send(403, {
          message: "Resource not accessible by integration",
          documentation_url: "https://docs.github.com/rest",
          status: "403",
        });
      if (route === `GET ${REPO}/pulls/42/files`) {
        if (url.searchParams.get("page") === "2") return send(200, fixture("pulls.files.page2.json"));
        return send(200, fixture("pulls.files.page1.json"), {
          link: `<${base}${REPO}/pulls/42/files?per_page=100&page=2>; rel="next", <${base}${REPO}/pulls/42/files?per_page=100&page=2>; rel="last"`,
        });
      }
      if (route === `POST ${REPO}/check-runs`) return send(201, fixture("check-run.created.json"));
      if (route === `GET ${REPO}/issues/42/comments`) return send(200, fixture("issue-comments.json"));
      if (route === `PATCH ${REPO}/issues/comments/2489007342`)
        return send(200, fixture<unknown[]>("issue-comments.json")[1]);
      send(404, { message: "Not Found", documentation_url: "https://docs.github.com/rest" });
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({ server, url: `http://127.0.0.1:${port}`, calls });
    }),
  );
}

function runDist(
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [DIST], { env, cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

let dir: string;
let fake: Awaited<ReturnType<typeof fakeGitHub>>;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "action-e2e-"));
});
afterEach(async () => {
  await new Promise((resolve) => fake.server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

/** A checked-out copy of the fixture repository, and the environment the runner gives the step. */
function stepEnv(event: string): {
  env: NodeJS.ProcessEnv;
  workspace: string;
  output: string;
  summary: string;
} {
  const workspace = join(dir, "workspace");
  cpSync(join(FIXTURES, "repo"), workspace, { recursive: true });
  const output = join(dir, "github_output");
  const summary = join(dir, "step_summary.md");
  writeFileSync(output, "");
  writeFileSync(summary, "");
  const env: NodeJS.ProcessEnv = {
    PATH: process.env["PATH"] ?? "",
    HOME: dir,
    NO_PROXY: "*",
    CI: "true",
    GITHUB_ACTIONS: "true",
    GITHUB_EVENT_NAME: "pull_request",
    GITHUB_EVENT_PATH: join(FIXTURES, "github", event),
    GITHUB_REPOSITORY: "acme/product-specs",
    GITHUB_REPOSITORY_OWNER: "acme",
    GITHUB_SHA: "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567",
    GITHUB_REF: "refs/pull/42/merge",
    GITHUB_WORKSPACE: workspace,
    GITHUB_API_URL: fake.url,
    GITHUB_SERVER_URL: "https://github.com",
    GITHUB_RUN_ID: "11999812345",
    GITHUB_ACTION_REPOSITORY: "acme-tools/spec-review",
    GITHUB_OUTPUT: output,
    GITHUB_STEP_SUMMARY: summary,
    RUNNER_TEMP: dir,
    // What the runner sets from action.yml's defaults.
    INPUT_PATHS: "",
    "INPUT_FAIL-ON": "not_build_ready",
    INPUT_TOKEN: "ghs_e2eTestToken",
    INPUT_PROFILES: "",
    "INPUT_CHECK-NAME": "Build Ready",
    INPUT_COMMENT: "true",
    "INPUT_SARIF-FILE": "",
    "INPUT_WORKING-DIRECTORY": ".",
  };
  return { env, workspace, output, summary };
}

describe("action/dist/index.js on a pull_request event", () => {
  it("posts the check with annotations, edits the sticky comment, writes outputs, summary and SARIF", async () => {
    expect(existsSync(DIST)).toBe(true);
    fake = await fakeGitHub();
    const { env, workspace, output, summary } = stepEnv("pull_request.opened.json");
    const { code, stdout, stderr } = await runDist(env, workspace);

    expect(stderr).toBe("");
    expect(stdout).toContain("2 spec docs: 1 Not Build Ready, 1 Build Ready");
    expect(stdout).toContain("::error::1 of 2 spec docs are not Build Ready");
    expect(code).toBe(1);

    expect(fake.calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      `GET ${REPO}/pulls/42/files?per_page=100`,
      `GET ${REPO}/pulls/42/files?per_page=100&page=2`,
      `POST ${REPO}/check-runs`,
      `GET ${REPO}/issues/42/comments?per_page=100`,
      `PATCH ${REPO}/issues/comments/2489007342`,
    ]);
    for (const c of fake.calls) expect(c.authorization).toBe("token ghs_e2eTestToken");

    const check = fake.calls[2]!.body as {
      name: string;
      head_sha: string;
      status: string;
      conclusion: string;
      output: { title: string; summary: string; annotations: { path: string; annotation_level: string }[] };
    };
    expect(check).toMatchObject({
      name: "Build Ready",
      head_sha: HEAD_SHA,
      status: "completed",
      conclusion: "failure",
      details_url: "https://github.com/acme/product-specs/actions/runs/11999812345",
      output: { title: "2 spec docs: 1 Not Build Ready, 1 Build Ready" },
    });
    expect(check.output.summary).toContain("| api/small | ❌ Not Build Ready | 51 | 2 | 4 | 3 |");
    expect(check.output.summary).toContain("| prd/standard | ✅ Build Ready | 100 | 0 | 0 | 0 |");
    expect(check.output.summary).not.toContain("digest-decision");
    expect(check.output.annotations).toHaveLength(9);
    expect(new Set(check.output.annotations.map((a) => a.path))).toEqual(
      new Set(["specs/checkout-api/api.md"]),
    );
    expect(check.output.annotations.filter((a) => a.annotation_level === "failure")).toHaveLength(2);
    expect(check.output.annotations.filter((a) => a.annotation_level === "warning")).toHaveLength(4);
    expect(check.output.annotations.filter((a) => a.annotation_level === "notice")).toHaveLength(3);

    const comment = fake.calls[4]!.body as { body: string };
    expect(comment.body.split("\n")[0]).toBe("<!-- spec-review:build-ready Build%20Ready -->");
    expect(comment.body).toContain(
      "### ❌ Build Ready: 2 spec docs: 1 Not Build Ready, 1 Build Ready at 6dcb09b",
    );
    expect(comment.body).toContain(
      "[Check run `Build Ready`](https://github.com/acme/product-specs/runs/31415926535)",
    );

    const outputs = readOutputs(readFileSync(output, "utf8"));
    expect(outputs["build-ready"]).toBe("false");
    expect(JSON.parse(outputs["verdicts"]!)).toEqual([
      {
        bundle: "specs/checkout-api",
        doc: "specs/checkout-api/api.md",
        profile: "api",
        size: "small",
        result: "not_build_ready",
        score: 51,
        must: 2,
        should: 4,
        info: 3,
      },
      {
        bundle: "specs/saved-searches",
        doc: "specs/saved-searches/saved-searches.md",
        profile: "prd",
        size: "standard",
        result: "build_ready",
        score: 100,
        must: 0,
        should: 0,
        info: 0,
      },
    ]);
    expect(outputs["sarif-file"]).toBe(join(dir, "spec-review.sarif"));
    const sarif = JSON.parse(readFileSync(outputs["sarif-file"]!, "utf8")) as {
      version: string;
      runs: {
        tool: { driver: { informationUri?: string } };
        results: { locations: { physicalLocation: { artifactLocation: { uri: string } } }[] }[];
      }[];
    };
    expect(sarif.version).toBe("2.1.0");
    expect(sarif.runs[0]!.tool.driver.informationUri).toBe("https://github.com/acme-tools/spec-review");
    expect(sarif.runs[0]!.results).toHaveLength(9);
    expect(sarif.runs[0]!.results[0]!.locations[0]!.physicalLocation.artifactLocation.uri).toBe(
      "specs/checkout-api/api.md",
    );

    const jobSummary = readFileSync(summary, "utf8");
    expect(jobSummary).toContain("## Build Ready: 2 spec docs: 1 Not Build Ready, 1 Build Ready");
    expect(jobSummary).toContain("Linted the bundles pull request #42 touches with the built-in profiles.");
  });

  it("from a fork, with a read-only token: no crash, the summary says why nothing was posted", async () => {
    fake = await fakeGitHub({ readOnly: true });
    const { env, workspace, output, summary } = stepEnv("pull_request.fork.json");
    env["INPUT_FAIL-ON"] = "never";
    const { code, stdout, stderr } = await runDist(env, workspace);

    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(fake.calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      `GET ${REPO}/pulls/42/files?per_page=100`,
      `GET ${REPO}/pulls/42/files?per_page=100&page=2`,
      `POST ${REPO}/check-runs`,
      `GET ${REPO}/issues/42/comments?per_page=100`,
      `PATCH ${REPO}/issues/comments/2489007342`,
    ]);
    expect(stdout).toContain(
      "::warning::Could not post the check run 'Build Ready' (403 Resource not accessible by integration",
    );
    const jobSummary = readFileSync(summary, "utf8");
    expect(jobSummary).toContain("## Build Ready: 2 spec docs: 1 Not Build Ready, 1 Build Ready");
    expect(jobSummary).toContain(
      "the pull request comes from a fork, and GitHub gives workflows of fork pull requests a read-only token",
    );
    expect(jobSummary).toContain("Could not post the pull request comment (403");
    expect(readOutputs(readFileSync(output, "utf8"))["build-ready"]).toBe("false");
  });
});
