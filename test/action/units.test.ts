import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readContext } from "../../action/context.js";
import { ActionEventError, ActionInputError, permissionReason } from "../../action/errors.js";
import { globMatcher, selected, splitPatterns } from "../../action/glob.js";
import { problemResult, selectBundles, touchedBundles } from "../../action/lint.js";
import { parseInputs } from "../../action/main.js";
import { annotationsOf, commentBody, conclusionOf, headline, renderTable } from "../../action/report.js";
import type { BundleResult } from "../../action/lint.js";
import { discoverBundles } from "../../core/bundle/discover.js";
import { FIXTURES, ROOT } from "./helpers.js";

describe("globs", () => {
  it.each([
    ["specs/**", "specs/a/prd.md", true],
    ["specs/**", "specs", true],
    ["specs/**", "other/prd.md", false],
    ["specs/*", "specs/a", true],
    ["specs/*", "specs/a/b", false],
    ["**/api", "specs/checkout/api", true],
    ["**/api", "api", true],
    ["specs/{a,b}/*.md", "specs/b/x.md", true],
    ["specs/{a,b}/*.md", "specs/c/x.md", false],
    ["doc?.md", "doc1.md", true],
    ["a.b", "axb", false],
    ["specs/[ab]/*.md", "specs/a/x.md", true],
    ["specs/**/*.md", "specs/x.md", true],
    ["specs/**/*.md", "specs/deep/er/x.md", true],
  ])("%s matches %s: %s", (pattern, path, expected) => {
    expect(globMatcher(pattern)(path)).toBe(expected);
  });

  it("selects by folder or doc, a plain folder covers what is under it, ! excludes", () => {
    expect(selected([], ["anything"])).toBe(true);
    expect(selected(["specs"], ["specs/checkout", "specs/checkout/prd.md"])).toBe(true);
    expect(selected(["./specs/"], ["specs/checkout"])).toBe(true);
    expect(selected(["specs/**/prd.md"], ["specs/checkout", "specs/checkout/prd.md"])).toBe(true);
    expect(selected(["docs/**"], ["specs/checkout", "specs/checkout/prd.md"])).toBe(false);
    expect(selected(["specs/**", "!specs/drafts/**"], ["specs/drafts/x", "specs/drafts/x/a.md"])).toBe(false);
    expect(selected(["!specs/drafts"], ["specs/checkout"])).toBe(true);
  });

  it("splits lines and commas, not commas inside braces; drops blanks and comments", () => {
    expect(splitPatterns("specs/**\n  docs/{a,b}/** , rfcs\n# not this\n\n")).toEqual([
      "specs/**",
      "docs/{a,b}/**",
      "rfcs",
    ]);
  });
});

describe("touchedBundles", () => {
  const types: Record<string, string> = {
    "specs/checkout/prd.md": "prd",
    "specs/checkout/api/api.md": "api",
    "specs/twins/a.md": "prd",
    "specs/twins/b.md": "adr",
  };
  const paths = [
    "README.md",
    "specs/checkout/prd.md",
    "specs/checkout/flow.svg",
    "specs/checkout/img/screen.png",
    "specs/checkout/api/api.md",
    "specs/checkout/api/schema.json",
    "specs/twins/a.md",
    "specs/twins/b.md",
  ];
  const discovery = discoverBundles(paths, (p) =>
    types[p] ? `---\ntype: ${types[p]}\n---\n# T\n` : "# notes\n",
  );

  it("maps a changed asset to its bundle, a nested bundle's file to the nested one only", () => {
    const slugs = (changed: string[]) => touchedBundles(discovery, changed).bundles.map((b) => b.slug);
    expect(slugs(["specs/checkout/img/screen.png"])).toEqual(["specs/checkout"]);
    expect(slugs(["specs/checkout/api/schema.json"])).toEqual(["specs/checkout/api"]);
    // A deleted asset is no longer on disk, yet it touches its bundle.
    expect(slugs(["specs/checkout/old.png", "README.md"])).toEqual(["specs/checkout"]);
    expect(slugs(["README.md", "docs/x.md"])).toEqual([]);
  });

  it("reports a touched folder that is not a valid bundle", () => {
    const t = touchedBundles(discovery, ["specs/twins/a.md"]);
    expect(t.bundles).toEqual([]);
    expect(t.problems.map((p) => p.path)).toEqual(["specs/twins"]);
    const row = problemResult(t.problems[0]!);
    expect(row).toMatchObject({
      doc: "specs/twins",
      result: "not_build_ready",
      score: null,
      must: 1,
      findings: [],
    });
    expect(row.problem).toContain("holds 2 spec docs");
  });

  it("narrows by the paths patterns", () => {
    const all = selectBundles(discovery, ["specs/checkout/api"]);
    expect(all.bundles.map((b) => b.slug)).toEqual(["specs/checkout/api"]);
    expect(all.problems).toEqual([]);
  });
});

describe("parseInputs", () => {
  const get = (values: Record<string, string>) => (name: string) => values[name] ?? "";

  it("applies the defaults", () => {
    expect(parseInputs(get({}), { RUNNER_TEMP: "/runner/tmp" })).toEqual({
      paths: [],
      failOn: "not_build_ready",
      token: "",
      profiles: undefined,
      checkName: "Build Ready",
      comment: true,
      sarifFile: join("/runner/tmp", "spec-review.sarif"),
      workingDirectory: ".",
      trustSidecarWaivers: false,
    });
  });

  it("reads every input", () => {
    expect(
      parseInputs(
        get({
          paths: "specs/**\nrfcs/**",
          "fail-on": "never",
          token: " t ",
          profiles: "config/profiles",
          "check-name": "Specs",
          comment: "false",
          "sarif-file": "out/specs.sarif",
          "working-directory": "product",
          "trust-sidecar-waivers": "true",
        }),
        {},
      ),
    ).toEqual({
      paths: ["specs/**", "rfcs/**"],
      failOn: "never",
      token: "t",
      profiles: "config/profiles",
      checkName: "Specs",
      comment: false,
      sarifFile: "out/specs.sarif",
      workingDirectory: "product",
      trustSidecarWaivers: true,
    });
  });

  it("says what it expected for a bad value", () => {
    expect(() => parseInputs(get({ "fail-on": "must" }), {})).toThrow(
      new ActionInputError("fail-on must be one of not_build_ready, never, not 'must'"),
    );
    expect(() => parseInputs(get({ comment: "sometimes" }), {})).toThrow(/comment must be true or false/);
  });
});

describe("readContext", () => {
  const base = { GITHUB_REPOSITORY: "acme/product-specs", GITHUB_SHA: "abc", GITHUB_WORKSPACE: "/ws" };

  it("reads a pull request from the event payload", () => {
    const ctx = readContext({
      ...base,
      GITHUB_EVENT_NAME: "pull_request",
      GITHUB_EVENT_PATH: join(FIXTURES, "github", "pull_request.opened.json"),
      GITHUB_RUN_ID: "7",
    });
    expect(ctx).toMatchObject({
      owner: "acme",
      repo: "product-specs",
      headSha: "6dcb09b5b57875f334f61aebed695e2e4193db5e",
      pullRequest: { number: 42, baseRepo: "acme/product-specs", headRepo: "acme/product-specs" },
      fork: false,
      apiUrl: "https://api.github.com",
      runUrl: "https://github.com/acme/product-specs/actions/runs/7",
    });
  });

  it("knows a fork, and honors GITHUB_API_URL", () => {
    const ctx = readContext({
      ...base,
      GITHUB_EVENT_NAME: "pull_request",
      GITHUB_EVENT_PATH: join(FIXTURES, "github", "pull_request.fork.json"),
      GITHUB_API_URL: "https://ghe.example.com/api/v3/",
    });
    expect(ctx.fork).toBe(true);
    expect(ctx.apiUrl).toBe("https://ghe.example.com/api/v3");
  });

  it("on push, reports on GITHUB_SHA; a broken payload is an event error", () => {
    expect(readContext({ ...base, GITHUB_EVENT_NAME: "push" })).toMatchObject({
      headSha: "abc",
      fork: false,
    });
    const dir = mkdtempSync(join(tmpdir(), "action-ctx-"));
    try {
      writeFileSync(join(dir, "event.json"), "{ not json");
      expect(() =>
        readContext({
          ...base,
          GITHUB_EVENT_NAME: "pull_request",
          GITHUB_EVENT_PATH: join(dir, "event.json"),
        }),
      ).toThrow(ActionEventError);
      writeFileSync(join(dir, "event.json"), "{}");
      expect(() =>
        readContext({
          ...base,
          GITHUB_EVENT_NAME: "pull_request",
          GITHUB_EVENT_PATH: join(dir, "event.json"),
        }),
      ).toThrow(/must hold pull_request.number and pull_request.head.sha/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("permissionReason", () => {
  it("explains 403 and 404, and only those", () => {
    const err = Object.assign(new Error("Resource not accessible by integration"), { status: 403 });
    expect(permissionReason(err, true)).toMatch(/^403 Resource not accessible by integration: .*fork/);
    expect(permissionReason(err, false)).toContain("checks: write");
    expect(permissionReason(Object.assign(new Error("x"), { status: 500 }), true)).toBeUndefined();
    expect(permissionReason(new Error("offline"), true)).toBeUndefined();
  });
});

describe("report", () => {
  const row = (over: Partial<BundleResult>): BundleResult => ({
    bundle: "specs/a",
    doc: "specs/a/prd.md",
    profile: "prd",
    size: "standard",
    result: "build_ready",
    score: 100,
    must: 0,
    should: 0,
    info: 0,
    findings: [],
    ...over,
  });
  const finding = {
    id: "f",
    file: "specs/b/api.md",
    check: "endpoints",
    message: "m",
    relaxed: false,
  };

  it("maps levels to annotation levels; columns only on one line", () => {
    const results = [
      row({
        result: "not_build_ready",
        findings: [
          { ...finding, level: "MUST", line: 3, column: 2, endLine: 3, endColumn: 9 },
          { ...finding, level: "SHOULD", line: 4, column: 1, endLine: 6, endColumn: 1, relaxed: true },
          { ...finding, level: "INFO", line: 7, column: 5, endLine: 7, endColumn: 5 },
        ],
      }),
    ];
    expect(annotationsOf(results)).toEqual([
      {
        path: "specs/b/api.md",
        start_line: 3,
        end_line: 3,
        start_column: 2,
        end_column: 9,
        annotation_level: "failure",
        message: "m",
        title: "MUST endpoints",
      },
      {
        path: "specs/b/api.md",
        start_line: 4,
        end_line: 6,
        annotation_level: "warning",
        message: "m",
        title: "SHOULD endpoints (relaxed)",
      },
      {
        path: "specs/b/api.md",
        start_line: 7,
        end_line: 7,
        start_column: 5,
        end_column: 5,
        annotation_level: "notice",
        message: "m",
        title: "INFO endpoints",
      },
    ]);
  });

  it("concludes per fail-on", () => {
    const bad = [row({ result: "not_build_ready" })];
    expect(conclusionOf([row({})], "not_build_ready")).toBe("success");
    expect(conclusionOf(bad, "not_build_ready")).toBe("failure");
    expect(conclusionOf(bad, "never")).toBe("neutral");
    expect(conclusionOf([], "not_build_ready")).toBe("success");
  });

  it("renders the table, escaping pipes, and a comment with its marker and links", () => {
    const results = [
      row({ doc: "specs/a|b/prd.md" }),
      row({
        doc: "specs/c",
        profile: null,
        size: null,
        score: null,
        result: "not_build_ready",
        must: 1,
        problem: "two docs",
      }),
    ];
    expect(renderTable(results)).toBe(
      [
        "| Spec doc | Profile | Verdict | Score | MUST | SHOULD | INFO |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: |",
        "| `specs/a\\|b/prd.md` | prd/standard | ✅ Build Ready | 100 | 0 | 0 | 0 |",
        "| `specs/c` | — | ❌ Not a valid bundle | — | 1 | 0 | 0 |",
      ].join("\n"),
    );
    expect(headline(results)).toBe("2 spec docs: 1 Not Build Ready, 1 Build Ready");
    const body = commentBody(
      results,
      { scope: "the bundles pull request #1 touches", profiles: "the built-in", notes: ["Could not post."] },
      { marker: "<!-- m -->", checkName: "Build Ready", checkRunUrl: "https://c", runUrl: "https://r" },
    );
    expect(body.split("\n")[0]).toBe("<!-- m -->");
    expect(body).toContain("- `specs/c`: two docs");
    expect(body).toContain("> [!WARNING]\n> Could not post.");
    expect(body).toContain(
      "[Check run `Build Ready`](https://c) with the findings on each line · [workflow run](https://r)",
    );
  });
});

describe("imports", () => {
  it("action/ imports core/, node/ and packages only (never server/ or cli/)", () => {
    const dir = join(ROOT, "action");
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts"))) {
      const text = readFileSync(join(dir, file), "utf8");
      for (const m of text.matchAll(/from "(\.[^"]+)"/g))
        expect(m[1], `${file} imports ${m[1]}`).toMatch(/^(\.\/|\.\.\/core\/|\.\.\/node\/)/);
    }
  });
});
