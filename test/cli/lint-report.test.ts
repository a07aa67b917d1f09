/**
 * `spec-review lint` as a subprocess: the report formats for other tools, `--output`,
 * `--no-specs-ok` and `--changed-since` (in a temporary git repository).
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../node/package.js";

const root = packageRoot();
const TSX = join(root, "node_modules", ".bin", "tsx");
let dir: string;

function lint(cwd: string, ...args: string[]) {
  const r = spawnSync(TSX, [join(root, "cli", "main.ts"), "lint", ...args], { cwd, encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function git(cwd: string, ...args: string[]) {
  const r = spawnSync("git", ["-c", "user.name=Test", "-c", "user.email=test@example.com", ...args], {
    cwd,
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout.trim();
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "lint-report-"));
  cpSync(join(root, "fixtures", "examples"), join(dir, "specs"), { recursive: true });
  cpSync(join(root, "fixtures", "report", "offline-sync"), join(dir, "specs", "offline-sync"), {
    recursive: true,
  });
  writeFileSync(join(dir, "README.md"), "# Field apps\n\nNotes for the team.\n");
  git(dir, "init", "-q", "-b", "main");
  git(dir, "add", "-A");
  git(dir, "commit", "-qm", "specs");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("spec-review lint --format", () => {
  it("codeclimate: an array of issues with paths from the folder linted from", () => {
    const r = lint(dir, "specs", "--format", "codeclimate");
    expect(r.code).toBe(1);
    const issues = JSON.parse(r.stdout) as { location: { path: string }; severity: string }[];
    expect(issues).toHaveLength(3);
    expect(new Set(issues.map((i) => i.location.path))).toEqual(new Set(["specs/offline-sync/prd.md"]));
  });

  it("junit: a test case per doc, one failed", () => {
    const r = lint(dir, "specs", "-f", "junit");
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites /);
    expect(r.stdout.match(/<testcase /g)).toHaveLength(5);
    expect(r.stdout.match(/<failure /g)).toHaveLength(1);
  });

  it("github: workflow commands, then the verdicts", () => {
    const r = lint(dir, "specs", "--format", "github");
    expect(r.code).toBe(1);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines.filter((l) => l.startsWith("::error file=specs/offline-sync/prd.md,line=31,"))).toHaveLength(
      1,
    );
    expect(lines.filter((l) => l.startsWith("::warning "))).toHaveLength(2);
    expect(lines.filter((l) => l.includes(": Build Ready ["))).toHaveLength(4);
  });

  it("rdjson: UTF-8 columns read from the docs", () => {
    const r = lint(dir, "specs", "--format", "rdjson");
    expect(r.code).toBe(1);
    const result = JSON.parse(r.stdout) as {
      diagnostics: { code: { value: string }; location: { range: { start: { column: number } } } }[];
    };
    const vague = result.diagnostics.find((d) => d.code.value === "prd/vague-wording")!;
    const line = readFileSync(join(dir, "specs", "offline-sync", "prd.md"), "utf8").split("\n")[29]!;
    expect(vague.location.range.start.column).toBe(
      Buffer.byteLength(line.slice(0, line.indexOf("fast"))) + 1,
    );
  });

  it("rdjson: a check's fix as a suggestion (a missing section inserted where the profile puts it)", () => {
    const own = mkdtempSync(join(tmpdir(), "lint-rdjson-"));
    try {
      const text = readFileSync(join(root, "fixtures", "report", "offline-sync", "prd.md"), "utf8").replace(
        "## Non-goals\n\n- Editing the same note on two phones at once.\n\n",
        "",
      );
      mkdirSync(join(own, "offline-sync"));
      writeFileSync(join(own, "offline-sync", "prd.md"), text);
      const r = lint(own, ".", "--format", "rdjson");
      const result = JSON.parse(r.stdout) as {
        diagnostics: {
          code: { value: string };
          suggestions?: { range: { start: { line: number; column: number } }; text: string }[];
        }[];
      };
      const missing = result.diagnostics.find((d) => d.code.value === "prd/non-goals")!;
      expect(missing.suggestions).toHaveLength(1);
      expect(missing.suggestions![0]!.text).toMatch(/^## Non-goals\n/);
      // Between Goals and Users, as the PRD template orders them.
      const users = text.split("\n").indexOf("## Users") + 1;
      expect(missing.suggestions![0]!.range.start).toEqual({ line: users, column: 1 });
      expect(result.diagnostics.filter((d) => d.suggestions)).toHaveLength(1);
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });

  it("names every format in the error for an unknown one", () => {
    const r = lint(dir, "specs", "--format", "gitlab");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("text, json, sarif, codeclimate, junit, github, rdjson");
  });
});

describe("spec-review lint --output", () => {
  it("writes the report to the file and prints the summary line", () => {
    const out = join(dir, "reports", "gl-code-quality-report.json");
    const r = lint(dir, "specs", "--format", "codeclimate", "--output", out);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(`5 docs: 4 Build Ready, 1 Not Build Ready (codeclimate report in ${out})\n`);
    expect(JSON.parse(readFileSync(out, "utf8"))).toHaveLength(3);
    // Written under a temporary name and renamed: nothing else is left beside it.
    expect(readdirSync(join(dir, "reports"))).toEqual(["gl-code-quality-report.json"]);
  });

  it("writes nothing on a usage error", () => {
    const out = join(dir, "never.json");
    expect(lint(dir, "nowhere", "--output", out).code).toBe(2);
    expect(() => readFileSync(out)).toThrow();
  });
});

describe("spec-review lint --no-specs-ok", () => {
  it("exits 0 with an empty report when the paths hold no spec doc", () => {
    mkdirSync(join(dir, "notes"), { recursive: true });
    writeFileSync(join(dir, "notes", "todo.md"), "# Todo\n\n- call Ann\n");
    expect(lint(dir, "notes").code).toBe(2);
    const r = lint(dir, "notes", "--no-specs-ok", "--format", "codeclimate");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
  }, 60_000);

  it("skips a markdown file given by path that names no type, instead of adopting a profile", () => {
    const readme = lint(dir, "README.md", "--format", "json");
    expect((JSON.parse(readme.stdout) as { docs: unknown[] }).docs).toHaveLength(1);
    const r = lint(dir, "README.md", "specs/prd/saved-searches.md", "--no-specs-ok", "--format", "json");
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as { docs: { path: string }[]; skipped: string[] };
    expect(report.docs.map((d) => d.path)).toEqual(["specs/prd/saved-searches.md"]);
    expect(report.skipped).toEqual(["README.md"]);
  }, 60_000);
});

describe("spec-review lint --changed-since", () => {
  it("lints only the bundles changed since the ref, committed, staged, unstaged or untracked", () => {
    const base = git(dir, "rev-parse", "HEAD");
    git(dir, "checkout", "-q", "-b", "change");
    // An asset of the PRD's bundle, committed on the branch.
    writeFileSync(join(dir, "specs", "prd", "notes.txt"), "search limits\n");
    git(dir, "add", "-A");
    git(dir, "commit", "-qm", "notes");
    let r = lint(dir, "specs", "--changed-since", base, "--format", "json");
    expect(r.code).toBe(0);
    const paths = (out: string) => (JSON.parse(out) as { docs: { path: string }[] }).docs.map((d) => d.path);
    expect(paths(r.stdout)).toEqual(["specs/prd/saved-searches.md"]);
    // Unstaged: the not-ready doc joins.
    const doc = join(dir, "specs", "offline-sync", "prd.md");
    writeFileSync(doc, readFileSync(doc, "utf8").replace("## Goals", "Seen in the 2024 survey.\n\n## Goals"));
    r = lint(dir, "specs", "--changed-since", base, "--format", "json");
    expect(r.code).toBe(1);
    expect(paths(r.stdout).sort()).toEqual(["specs/offline-sync/prd.md", "specs/prd/saved-searches.md"]);
    // From a subfolder, with a path relative to it.
    r = lint(join(dir, "specs"), "adr", "offline-sync", "--changed-since", "main", "--format", "json");
    expect(paths(r.stdout)).toEqual(["offline-sync/prd.md"]);
    // Untracked: a new bundle.
    mkdirSync(join(dir, "specs", "new-adr"));
    cpSync(
      join(dir, "specs", "adr", "0007-first-match-timestamp-for-digests.md"),
      join(dir, "specs", "new-adr", "0008-x.md"),
    );
    r = lint(dir, "specs", "--changed-since", base, "--format", "json");
    expect(paths(r.stdout)).toContain("specs/new-adr/0008-x.md");
    git(dir, "checkout", "-q", "--", ".");
    rmSync(join(dir, "specs", "new-adr"), { recursive: true });
    // The configuration changed: every doc.
    mkdirSync(join(dir, ".spec-review"));
    writeFileSync(join(dir, ".spec-review", "config.yaml"), "types: {}\n");
    r = lint(dir, "specs", "--changed-since", "HEAD", "--format", "json");
    expect(paths(r.stdout)).toHaveLength(5);
    rmSync(join(dir, ".spec-review"), { recursive: true });
  }, 120_000);

  it("exits 0 when no spec doc changed, with the empty report, and says so", () => {
    writeFileSync(join(dir, "README.md"), "# Field apps\n\nNotes for the whole team.\n");
    const r = lint(dir, "specs", "--changed-since", "HEAD", "--format", "codeclimate");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
    expect(r.stderr).toMatch(/no spec doc changed since HEAD \(\d+ unchanged under specs\)/);
    git(dir, "checkout", "-q", "--", "README.md");
  }, 60_000);

  it("answers a ref that names no commit with exit 2 and a clear message", () => {
    const r = lint(dir, "specs", "--changed-since", "origin/nope");
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("--changed-since: 'origin/nope' names no commit here");
    expect(lint(dir, "specs", "--changed-since", "--help").code).toBe(2);
    const outside = mkdtempSync(join(tmpdir(), "lint-nogit-"));
    try {
      cpSync(join(root, "fixtures", "examples", "adr"), join(outside, "adr"), { recursive: true });
      const r2 = lint(outside, ".", "--changed-since", "main");
      expect(r2.code).toBe(2);
      expect(r2.stderr).toContain("is not in a git repository");
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  }, 60_000);
});
