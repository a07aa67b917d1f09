/** `spec-review lint` as a subprocess: exit codes, output formats, worker threads. */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { packageRoot } from "../../node/package.js";

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

/**
 * Write profile `key` into `dir`: a copy of the built-in `from` under the new key, plus a
 * MUST check that flags `phrases` when given.
 */
function writeProfile(dir: string, key: string, from: string, extra?: { slug: string; phrases: string[] }) {
  const target = join(dir, key);
  cpSync(join(root, "profiles", from), target, { recursive: true });
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

function cli(...args: string[]) {
  return cliIn(dir, ...args);
}

function cliIn(cwd: string, ...args: string[]) {
  const r = spawnSync("npx", ["tsx", join(root, "cli", "main.ts"), "lint", ...args], {
    cwd,
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

  it("says in the text output what adoption guessed and how many findings it lowered", () => {
    writeFileSync(
      join(dir, "loose.md"),
      "# Thing\n\n## Context\n\nShort.\n\n## Decision\n\nTBD\n\n## Consequences\n\nSome.\n",
    );
    const r = cli("loose.md");
    expect(r.stdout).toMatch(/^ {2}Adoption: the doc names no type, so it was read as 'nygard'/m);
    expect(r.stdout).toMatch(/\d+ findings? of \d+ checks? (was|were) reported one level lower/);
    expect(r.stdout).toContain("Add `type: nygard` and `size: standard` to its frontmatter");
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
    expect(r.stdout).toMatch(/--format <format> +text \(default\), json, sarif, codeclimate/);
    for (const flag of ["--output <file>", "--changed-since <ref>", "--no-specs-ok"])
      expect(r.stdout).toContain(flag);
  });

  it("gives the same report with worker threads", () => {
    const one = json(cli("ready", "draft", "-f", "json", "--workers", "0").stdout);
    const many = json(cli("ready", "draft", "-f", "json", "--workers", "2").stdout);
    const strip = (j: JsonReport) => j.docs.map((d) => ({ ...d, verdict: { ...d.verdict, run_id: "" } }));
    expect(strip(many)).toEqual(strip(one));
  });

  it("exits 2 with a message when the paths hold no spec doc", () => {
    mkdirSync(join(dir, "empty"), { recursive: true });
    const empty = cli("empty");
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(
      /^spec-review lint: no spec docs found under empty \(a spec doc is a markdown file/,
    );
    mkdirSync(join(dir, "notes"), { recursive: true });
    writeFileSync(join(dir, "notes", "a.md"), "# Meeting notes\n");
    const notes = cli("notes", "-f", "json");
    expect(notes.code).toBe(2);
    expect(notes.stdout).toBe("");
    expect(notes.stderr).toMatch(/no spec docs found under notes \(1 markdown file names no type/);
  });
});

describe("spec-review lint with repository profiles", () => {
  let repo: string;
  beforeAll(() => {
    repo = join(dir, "repo");
    mkdirSync(join(repo, ".git"), { recursive: true });
    cpSync(join(root, "fixtures", "examples"), join(repo, "specs"), { recursive: true });
    // The repository's prd replaces the built-in: the same checks plus one MUST.
    writeProfile(join(repo, ".spec-review", "profiles"), "prd", "prd", {
      slug: "no-users",
      phrases: ["users"],
    });
    // A new doc type of its own.
    writeProfile(join(repo, ".spec-review", "profiles"), "runbook", "design");
    mkdirSync(join(repo, "specs", "pager"), { recursive: true });
    writeFileSync(
      join(repo, "specs", "pager", "pager.md"),
      "---\ntype: runbook\ntitle: Pager rotation\n---\n# Pager rotation\n\n## Context\n\nWho answers the pager at night, and how the hand-over works.\n",
    );
  });

  const prdDoc = (r: JsonReport) => r.docs.find((d) => d.profile_key === "prd");

  it("adds .spec-review/profiles to the built-ins, from the repository root or below it", () => {
    for (const [cwd, path] of [
      [repo, "specs"],
      [join(repo, "specs"), "."],
    ] as const) {
      const r = cliIn(cwd, path, "-f", "json");
      const report = json(r.stdout);
      expect(report.docs.find((d) => d.path.endsWith("pager.md"))?.profile_key).toBe("runbook");
      expect(
        report.docs.flatMap((d) => d.findings.map((f) => (f as { check?: string }).check)),
      ).not.toContain("profile-unknown");
      // Its prd replaced the built-in prd: its extra check fires.
      const prd = prdDoc(report)!;
      expect((prd as unknown as { profile_source: string }).profile_source).toBe("repository");
      expect(prd.findings.map((f) => (f as { check?: string }).check)).toContain("no-users");
      // The profiles' templates are not spec docs.
      expect(report.docs.map((d) => d.path).filter((p) => p.includes(".spec-review"))).toEqual([]);
    }
  });

  it("says in the verdict line that a repository profile was used", () => {
    const r = cliIn(repo, "specs");
    expect(r.stdout).toMatch(/pager\.md: .*\[runbook\/\w+\].*\(repository profile\)$/m);
  });

  it("--profiles adds to the built-ins and the repository's, and replaces by key", () => {
    const extra = join(dir, "extra-profiles");
    writeProfile(extra, "prd", "prd", { slug: "no-search", phrases: ["search"] });
    const r = cliIn(repo, "specs", "-f", "json", "--profiles", extra);
    const report = json(r.stdout);
    expect(report.docs.find((d) => d.path.endsWith("pager.md"))?.profile_key).toBe("runbook");
    const checks = prdDoc(report)!.findings.map((f) => (f as { check?: string }).check);
    expect(checks).not.toContain("no-users");
    expect((prdDoc(report) as unknown as { profile_source: string }).profile_source).toBe("option");
    // Only the built-ins' keys under --profiles: the others are still there.
    const builtinsOnly = cli("ready", "-f", "json", "--profiles", extra);
    expect(
      json(builtinsOnly.stdout)
        .docs.map((d) => d.profile_key)
        .sort(),
    ).toEqual(
      json(cli("ready", "-f", "json").stdout)
        .docs.map((d) => d.profile_key)
        .sort(),
    );
  });

  it("stops on a repository profile that does not load, with its file and line", () => {
    const bad = join(repo, ".spec-review", "profiles", "bad");
    mkdirSync(bad, { recursive: true });
    writeFileSync(join(bad, "profile.yaml"), "key: bad\ntitle: Bad\nradar: []\nchecks: []\n");
    writeFileSync(join(bad, "template.md"), "# T\n");
    try {
      const r = cliIn(repo, "specs");
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/\.spec-review\/profiles\/bad\/profile\.yaml:3:8 radar/);
    } finally {
      rmSync(bad, { recursive: true, force: true });
    }
  });
});
