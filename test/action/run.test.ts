import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nock from "nock";
import { parse, stringify } from "yaml";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { readContext } from "../../action/context.js";
import { parseInputs, runAction, type RunDeps } from "../../action/main.js";
import { API, FIXTURES, HEAD_SHA, REPO, ROOT, client, fixture, readOutputs } from "./helpers.js";

let dir: string;
let workspace: string;
const summaryFile = join(mkdtempSync(join(tmpdir(), "action-summary-")), "summary.md");
let outputFile: string;

const deps: RunDeps = {
  github: () => client(),
  builtinProfilesDir: join(ROOT, "profiles"),
  toolVersion: "0.1.0",
};

function env(event: string, payload: string | undefined): NodeJS.ProcessEnv {
  return {
    GITHUB_EVENT_NAME: event,
    ...(payload ? { GITHUB_EVENT_PATH: join(FIXTURES, "github", payload) } : {}),
    GITHUB_REPOSITORY: "acme/product-specs",
    GITHUB_SHA: "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567",
    GITHUB_WORKSPACE: workspace,
    GITHUB_API_URL: API,
    GITHUB_SERVER_URL: "https://github.com",
    GITHUB_RUN_ID: "11999812345",
  };
}

function inputs(values: Record<string, string> = {}) {
  return parseInputs((name) => values[name] ?? (name === "token" ? "test-token" : ""), { RUNNER_TEMP: dir });
}

/**
 * Write profile `key` into `dir`: a copy of the built-in `from` under the new key, plus a
 * MUST check that flags `phrases` when given.
 */
function writeProfile(dir: string, key: string, from: string, extra?: { slug: string; phrases: string[] }) {
  const target = join(dir, key);
  cpSync(join(ROOT, "profiles", from), target, { recursive: true });
  const profile = parse(readFileSync(join(target, "profile.yaml"), "utf8")) as {
    key: string;
    radar: { key: string }[];
    checks: unknown[];
  };
  profile.key = key;
  if (extra)
    profile.checks.push({
      slug: extra.slug,
      kind: "forbidden-pattern",
      level: "MUST",
      category: profile.radar[0]!.key,
      params: { phrases: extra.phrases },
    });
  writeFileSync(join(target, "profile.yaml"), stringify(profile));
}

const outputs = () => readOutputs(readFileSync(outputFile, "utf8"));
const summary = () => readFileSync(summaryFile, "utf8");

function listFiles(pages: unknown[][]) {
  const scope = nock(API);
  pages.forEach((page, i) => {
    scope
      .get(`${REPO}/pulls/42/files`)
      .query(i === 0 ? { per_page: "100" } : { per_page: "100", page: String(i + 1) })
      .reply(
        200,
        page,
        i + 1 < pages.length
          ? { link: `<${API}${REPO}/pulls/42/files?per_page=100&page=${i + 2}>; rel="next"` }
          : {},
      );
  });
  return scope;
}

beforeAll(() => {
  nock.disableNetConnect();
});
beforeEach(() => {
  nock.cleanAll();
  dir = mkdtempSync(join(tmpdir(), "action-run-"));
  workspace = join(dir, "workspace");
  cpSync(join(FIXTURES, "repo"), workspace, { recursive: true });
  outputFile = join(dir, "output");
  writeFileSync(outputFile, "");
  writeFileSync(summaryFile, "");
  vi.stubEnv("GITHUB_OUTPUT", outputFile);
  vi.stubEnv("GITHUB_STEP_SUMMARY", summaryFile);
  process.exitCode = undefined;
});
afterEach(() => {
  expect(nock.pendingMocks()).toEqual([]);
  vi.unstubAllEnvs();
  process.exitCode = undefined;
  rmSync(dir, { recursive: true, force: true });
});
afterAll(() => {
  nock.enableNetConnect();
});

describe("runAction on a pull request", () => {
  it("lints the touched bundles (an asset counts), posts the check, edits the sticky comment", async () => {
    let check: Record<string, unknown> | undefined;
    let comment: { body: string } | undefined;
    listFiles([fixture("pulls.files.page1.json"), fixture("pulls.files.page2.json")])
      .post(`${REPO}/check-runs`, (b: Record<string, unknown>) => {
        check = b;
        return true;
      })
      .reply(201, fixture("check-run.created.json"))
      .get(`${REPO}/issues/42/comments`)
      .query({ per_page: "100" })
      .reply(200, fixture("issue-comments.json"))
      .patch(`${REPO}/issues/comments/2489007342`, (b: { body: string }) => {
        comment = b;
        return true;
      })
      .reply(200, fixture<unknown[]>("issue-comments.json")[1]);

    const outcome = await runAction(
      inputs(),
      readContext(env("pull_request", "pull_request.opened.json")),
      deps,
    );

    // specs/digest-decision is not touched; search-bar.png is an asset of saved-searches.
    expect(outcome.results.map((r) => [r.doc, r.result, r.score, r.must, r.should, r.info])).toEqual([
      ["specs/checkout-api/api.md", "not_build_ready", 51, 2, 4, 3],
      ["specs/saved-searches/saved-searches.md", "build_ready", 100, 0, 0, 0],
    ]);
    expect(outcome.notes).toEqual([]);
    expect(check).toMatchObject({
      name: "Build Ready",
      head_sha: HEAD_SHA,
      status: "completed",
      conclusion: "failure",
      details_url: "https://github.com/acme/product-specs/actions/runs/11999812345",
      output: { title: "2 spec docs: 1 Not Build Ready, 1 Build Ready" },
    });
    const output = check!["output"] as { summary: string; annotations: Record<string, unknown>[] };
    expect(output.summary).toContain(
      "| [`specs/checkout-api/api.md`](https://github.com/acme/product-specs/blob/6dcb09b5b57875f334f61aebed695e2e4193db5e/specs/checkout-api/api.md) | api/small | ❌ Not Build Ready | 51 | 2 | 4 | 3 |",
    );
    expect(output.annotations).toHaveLength(9);
    expect(output.annotations.map((a) => a["annotation_level"])).toEqual(
      outcome.results[0]!.findings.map(
        (f) => ({ MUST: "failure", SHOULD: "warning", INFO: "notice" })[f.level],
      ),
    );
    expect(output.annotations).toContainEqual({
      path: "specs/checkout-api/api.md",
      start_line: 22,
      end_line: 22,
      start_column: 31,
      end_column: expect.any(Number),
      annotation_level: "failure",
      message: "'TBD' marks something undecided in a contract clients will code against",
      title: "MUST undecided",
    });
    expect(comment!.body.startsWith("<!-- spec-review:build-ready Build%20Ready -->\n")).toBe(true);
    expect(comment!.body).toContain(
      "[Check run `Build Ready`](https://github.com/acme/product-specs/runs/31415926535)",
    );
    expect(comment!.body).toContain("| ❌ Not Build Ready | 51 | 2 | 4 | 3 |");

    const out = outputs();
    expect(out["build-ready"]).toBe("false");
    expect(JSON.parse(out["verdicts"]!)).toEqual([
      expect.objectContaining({
        bundle: "specs/checkout-api",
        doc: "specs/checkout-api/api.md",
        result: "not_build_ready",
      }),
      expect.objectContaining({ bundle: "specs/saved-searches", result: "build_ready", score: 100 }),
    ]);
    const sarif = JSON.parse(readFileSync(out["sarif-file"]!, "utf8")) as {
      version: string;
      runs: { results: unknown[] }[];
    };
    expect(out["sarif-file"]).toBe(join(dir, "spec-review.sarif"));
    expect(sarif.version).toBe("2.1.0");
    expect(sarif.runs[0]!.results).toHaveLength(9);
    expect(summary()).toContain("## Build Ready: 2 spec docs: 1 Not Build Ready, 1 Build Ready");
    expect(summary()).toContain(
      "<details><summary><code>specs/checkout-api/api.md</code>: 9 findings</summary>",
    );
    expect(summary()).toContain(
      "- 22:31 **MUST** `undecided` 'TBD' marks something undecided in a contract clients will code against",
    );
    expect(process.exitCode).toBe(1);
  });

  it("from a fork, a 403 on the check and the comment ends in the summary, not a crash", async () => {
    const forbidden = {
      message: "Resource not accessible by integration",
      documentation_url: "https://docs.github.com/rest/checks/runs#create-a-check-run",
      status: "403",
    };
    const scope = listFiles([fixture("pulls.files.page1.json")]);
    scope.post(`${REPO}/check-runs`).reply(403, forbidden);
    scope.get(`${REPO}/issues/42/comments`).query({ per_page: "100" }).reply(200, []);
    scope.post(`${REPO}/issues/42/comments`).reply(403, forbidden);

    const outcome = await runAction(
      inputs({ "fail-on": "never" }),
      readContext(env("pull_request", "pull_request.fork.json")),
      deps,
    );
    expect(outcome.results.map((r) => r.doc)).toEqual(["specs/checkout-api/api.md"]);
    expect(outcome.checkRun).toBeUndefined();
    expect(outcome.notes).toHaveLength(2);
    expect(outcome.notes[0]).toMatch(
      /^Could not post the check run 'Build Ready' \(403 Resource not accessible by integration/,
    );
    expect(outcome.notes[0]).toContain("the pull request comes from a fork");
    expect(outcome.notes[1]).toMatch(/^Could not post the pull request comment \(403/);
    expect(summary()).toContain("Could not post the check run 'Build Ready'");
    expect(summary()).toContain("read-only token");
    expect(outputs()["build-ready"]).toBe("false");
    // fail-on: never: reported, not failed.
    expect(process.exitCode).toBeUndefined();
  });

  it("a server error posting the check fails the step after writing the summary", async () => {
    listFiles([fixture("pulls.files.page1.json")])
      .post(`${REPO}/check-runs`)
      .reply(500, { message: "Server Error" })
      .get(`${REPO}/issues/42/comments`)
      .query({ per_page: "100" })
      .reply(200, [])
      .post(`${REPO}/issues/42/comments`)
      .reply(201, fixture<unknown[]>("issue-comments.json")[1]);
    const outcome = await runAction(
      inputs({ "fail-on": "never" }),
      readContext(env("pull_request", "pull_request.opened.json")),
      deps,
    );
    expect(outcome.checkRun).toBeUndefined();
    expect(summary()).toContain("posting the check run failed: Server Error");
    expect(process.exitCode).toBe(1);
  });

  it("a pull request touching no bundle gets a passing check and no new comment", async () => {
    let check: Record<string, unknown> | undefined;
    listFiles([[fixture<unknown[]>("pulls.files.page1.json")[0]]])
      .post(`${REPO}/check-runs`, (b: Record<string, unknown>) => {
        check = b;
        return true;
      })
      .reply(201, fixture("check-run.created.json"))
      .get(`${REPO}/issues/42/comments`)
      .query({ per_page: "100" })
      .reply(200, [fixture<unknown[]>("issue-comments.json")[0]]);
    const outcome = await runAction(
      inputs(),
      readContext(env("pull_request", "pull_request.opened.json")),
      deps,
    );
    expect(outcome.results).toEqual([]);
    expect(check).toMatchObject({
      status: "completed",
      conclusion: "success",
      output: { title: "No spec bundles to lint" },
    });
    expect(outputs()["build-ready"]).toBe("true");
    expect(process.exitCode).toBeUndefined();
  });
});

describe("runAction on push", () => {
  it("lints the bundles the paths select, writes summary and outputs, calls no API", async () => {
    const outcome = await runAction(
      inputs({ paths: "specs/saved-searches\nspecs/digest-*/**" }),
      readContext(env("push", undefined)),
      deps,
    );
    expect(outcome.results.map((r) => [r.doc, r.result])).toEqual([
      ["specs/digest-decision/0007-first-match-timestamp-for-digests.md", "build_ready"],
      ["specs/saved-searches/saved-searches.md", "build_ready"],
    ]);
    expect(outputs()["build-ready"]).toBe("true");
    expect(summary()).toContain(
      "Linted the bundles under `specs/saved-searches`, `specs/digest-*/**` with the built-in profiles.",
    );
    expect(process.exitCode).toBeUndefined();
  });

  it("lints every bundle without paths and fails per fail-on", async () => {
    const outcome = await runAction(inputs(), readContext(env("workflow_dispatch", undefined)), deps);
    expect(outcome.results).toHaveLength(3);
    expect(outputs()["build-ready"]).toBe("false");
    expect(process.exitCode).toBe(1);
  });

  it("adds the repository's .spec-review/profiles to the built-ins; a built-in's key replaces the built-in", async () => {
    // The repository's adr replaces the built-in: the same profile plus one MUST check.
    writeProfile(join(workspace, ".spec-review", "profiles"), "adr", "adr", {
      slug: "no-digest",
      phrases: ["digest"],
    });
    const outcome = await runAction(inputs(), readContext(env("push", undefined)), deps);
    const adr = outcome.results.find((r) => r.doc.endsWith("0007-first-match-timestamp-for-digests.md"))!;
    expect(adr.findings.map((f) => f.check)).toContain("no-digest");
    expect(adr.result).toBe("not_build_ready");
    // The prd and api docs still have their built-in profiles.
    for (const r of outcome.results) expect(r.findings.map((f) => f.check)).not.toContain("profile-unknown");
    // The profile's template names a type, but .spec-review/ holds no bundles.
    expect(outcome.results.map((r) => r.bundle)).toEqual([
      "specs/checkout-api",
      "specs/digest-decision",
      "specs/saved-searches",
    ]);
    expect(summary()).toContain("with the built-in and `.spec-review/profiles` profiles");
  });

  it("adds the profiles input's folder, and leaves a root profiles/ folder alone", async () => {
    // A root profiles/ folder is not the repository's configuration: its profiles are not used.
    writeProfile(join(workspace, "profiles"), "adr", "adr", { slug: "ignored-check", phrases: ["digest"] });
    writeProfile(join(workspace, "team", "profiles"), "runbook", "design");
    cpSync(join(workspace, "specs", "saved-searches"), join(workspace, "specs", "pager"), {
      recursive: true,
    });
    const doc = join(workspace, "specs", "pager", "saved-searches.md");
    writeFileSync(doc, readFileSync(doc, "utf8").replace(/^type: \w+$/m, "type: runbook"));
    const outcome = await runAction(
      inputs({ profiles: "team/profiles", paths: "specs/**" }),
      readContext(env("push", undefined)),
      deps,
    );
    const pager = outcome.results.find((r) => r.bundle === "specs/pager")!;
    expect(pager.profile).toBe("runbook");
    expect(pager.findings.map((f) => f.check)).not.toContain("profile-unknown");
    expect(outcome.results.flatMap((r) => r.findings.map((f) => f.check))).not.toContain("ignored-check");
    expect(summary()).toContain("with the built-in and `team/profiles` profiles");
  });

  it("stops on a profile that does not load, naming its file and line", async () => {
    const dir = join(workspace, ".spec-review", "profiles", "broken");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "profile.yaml"), "key: broken\ntitle: [unclosed\n");
    await expect(runAction(inputs(), readContext(env("push", undefined)), deps)).rejects.toThrow(
      /\.spec-review\/profiles\/broken\/profile\.yaml:\d+:\d+/,
    );
  });

  it("refuses paths that select no bundle at all, rather than passing", async () => {
    await expect(
      runAction(inputs({ paths: "spec/**" }), readContext(env("push", undefined)), deps),
    ).rejects.toThrow(/paths: 'spec\/\*\*' selects no bundle/);
  });
});

describe("runAction with working-directory", () => {
  it("maps the pull request's paths into the checkout and back for annotations", async () => {
    // The repository is checked out under product/ of the workspace.
    const nested = join(dir, "nested");
    cpSync(join(FIXTURES, "repo"), join(nested, "product"), { recursive: true });
    workspace = nested;
    let check: { output: { annotations: { path: string }[] } } | undefined;
    const prefixed = (page: { filename: string }[]) =>
      page.map((f) => ({ ...f, filename: `product/${f.filename}` }));
    listFiles([prefixed(fixture("pulls.files.page1.json")), prefixed(fixture("pulls.files.page2.json"))])
      .post(`${REPO}/check-runs`, (b: { output: { annotations: { path: string }[] } }) => {
        check = b;
        return true;
      })
      .reply(201, fixture("check-run.created.json"));
    const outcome = await runAction(
      inputs({ "working-directory": "product", comment: "false" }),
      readContext(env("pull_request", "pull_request.opened.json")),
      deps,
    );
    expect(outcome.results.map((r) => r.doc)).toEqual([
      "product/specs/checkout-api/api.md",
      "product/specs/saved-searches/saved-searches.md",
    ]);
    expect(new Set(check!.output.annotations.map((a) => a.path))).toEqual(
      new Set(["product/specs/checkout-api/api.md"]),
    );
  });

  it("refuses a folder outside the workspace", async () => {
    await expect(
      runAction(inputs({ "working-directory": "../elsewhere" }), readContext(env("push", undefined)), deps),
    ).rejects.toThrow(/outside GITHUB_WORKSPACE/);
  });
});
