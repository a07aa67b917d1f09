/** `spec-review lint` as a subprocess: exit codes, output formats, worker threads. */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../server/paths.js";

const root = packageRoot();
let dir: string;

interface JsonDoc {
  path: string;
  profile_key: string;
  adopt?: Record<string, string>;
  verdict: { run_id: string; must: number };
  findings: { relaxed: boolean }[];
}
interface JsonReport {
  docs: JsonDoc[];
  summary: unknown;
}
const json = (stdout: string) => JSON.parse(stdout) as JsonReport;

function cli(...args: string[]) {
  const r = spawnSync("npx", ["tsx", join(root, "cli", "main.ts"), "lint", ...args], {
    cwd: dir,
    encoding: "utf8",
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr.replace(/^npm warn .*\n/gm, "") };
}

beforeAll(() => {
  // Inside the package (tmp/ is git-ignored) so that npx finds its tsx from there.
  mkdirSync(join(root, "tmp"), { recursive: true });
  dir = mkdtempSync(join(root, "tmp", "lint-cli-"));
  cpSync(join(root, "fixtures", "examples"), join(dir, "ready"), { recursive: true });
  mkdirSync(join(dir, "draft", "login"), { recursive: true });
  writeFileSync(
    join(dir, "draft", "login", "login.md"),
    "---\ntype: prd\nsize: standard\ntitle: Login\nowner: Ann\n---\n# Login\n\n## Problem\n\nTBD\n",
  );
  mkdirSync(join(dir, "twice"), { recursive: true });
  writeFileSync(join(dir, "twice", "a.md"), "---\ntype: adr\n---\n# A\n");
  writeFileSync(join(dir, "twice", "b.md"), "---\ntype: adr\n---\n# B\n");
  mkdirSync(join(dir, "node_modules", "pkg"), { recursive: true });
  writeFileSync(join(dir, "node_modules", "pkg", "x.md"), "---\ntype: prd\n---\n# ignored\n");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("spec-review lint", () => {
  it("exits 0 when every doc is Build Ready", () => {
    const r = cli("ready");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/4 docs: 4 Build Ready, 0 Not Build Ready/);
  });

  it("exits 1 and prints compiler-style lines when a doc is not", () => {
    const r = cli("draft", "ready");
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^draft\/login\/login\.md:11:1 MUST undecided 'TBD' marks something undecided/m);
    expect(r.stdout).toMatch(
      /^draft\/login\/login\.md:9:1 MUST problem-statement Section 'Problem' has 1 word/m,
    );
    expect(r.stdout).toMatch(/5 docs: 4 Build Ready, 1 Not Build Ready/);
    expect(r.stdout).not.toMatch(/ignored/);
  });

  it("exits 1 on a folder that is not a valid bundle", () => {
    const r = cli("twice");
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^twice:1:1 MUST bundle-invalid folder holds 2 spec docs/m);
  });

  it("lints a single markdown file, adopting a profile when it names none", () => {
    writeFileSync(
      join(dir, "loose.md"),
      "# Thing\n\n## Context\n\nShort.\n\n## Decision\n\nTBD\n\n## Consequences\n\nSome.\n",
    );
    const r = cli("loose.md", "--format", "json");
    expect(r.code).toBe(1);
    const report = json(r.stdout);
    expect(report.docs[0]!.profile_key).toBe("nygard");
    expect(report.docs[0]!.adopt).toEqual({ type: "nygard", size: "standard" });
    expect(report.docs[0]!.findings.some((f) => f.relaxed)).toBe(true);
  });

  it("prints the verdicts as JSON", () => {
    const r = cli("ready", "draft", "--format=json");
    const report = json(r.stdout);
    expect(report.summary).toEqual({ docs: 5, build_ready: 4, not_build_ready: 1, problems: 0 });
    const draft = report.docs.find((d) => d.path === "draft/login/login.md")!;
    expect(draft.verdict).toMatchObject({ kind: "lint", result: "not_build_ready", version_number: 0 });
    expect(draft.verdict.must).toBeGreaterThan(0);
    expect(draft.findings[0]).toHaveProperty("anchor.heading_path");
  });

  it("prints SARIF 2.1.0", () => {
    const r = cli("draft", "-f", "sarif");
    expect(r.code).toBe(1);
    const sarif = JSON.parse(r.stdout);
    expect(sarif.version).toBe("2.1.0");
    expect(sarif.runs[0].tool.driver.rules.length).toBeGreaterThan(0);
    const loc = sarif.runs[0].results[0].locations[0].physicalLocation;
    expect(loc.artifactLocation.uri).toBe("draft/login/login.md");
    expect(loc.region.startLine).toBeGreaterThan(0);
  });

  it.each([
    [["--format", "xml"], /--format must be one of text, json, sarif/],
    [["--bogus"], /Unknown option '--bogus'/],
    [["no-such-path"], /no such file or folder: no-such-path/],
    [["--profiles", "no-such-dir", "ready"], /no such profiles folder/],
    [["--workers", "many"], /--workers must be a whole number/],
  ])("exits 2 on usage errors: %s", (args, message) => {
    const r = cli(...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("reports an invalid profile with its line and column, exit 2", () => {
    mkdirSync(join(dir, "profiles", "bad"), { recursive: true });
    writeFileSync(
      join(dir, "profiles", "bad", "profile.yaml"),
      "key: bad\ntitle: Bad\nradar: []\nchecks: []\n",
    );
    writeFileSync(join(dir, "profiles", "bad", "template.md"), "# T\n");
    const r = cli("--profiles", "profiles", "ready");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/profiles\/bad\/profile\.yaml:3:8 radar/);
  });

  it("prints help", () => {
    const r = cli("--help");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/--format <text\|json\|sarif>/);
  });

  it("gives the same report with worker threads", () => {
    const one = json(cli("ready", "draft", "-f", "json", "--workers", "0").stdout);
    const many = json(cli("ready", "draft", "-f", "json", "--workers", "2").stdout);
    const strip = (j: JsonReport) => j.docs.map((d) => ({ ...d, verdict: { ...d.verdict, run_id: "" } }));
    expect(strip(many)).toEqual(strip(one));
  });
});
