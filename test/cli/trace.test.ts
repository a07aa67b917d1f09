/** `spec-review trace`: the same matrices and gaps as the server, from a folder on disk. */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../node/package.js";
import { traceFolder } from "../../node/trace.js";
import { loadLayers, profileLayers } from "../../cli/lint-fs.js";

const FIXTURE = resolve(import.meta.dirname, "../../fixtures/trace");
const profiles = loadLayers(profileLayers(packageRoot()), packageRoot()).profiles;

function cli(args: string[], cwd = packageRoot()) {
  const r = spawnSync("npx", ["tsx", join(packageRoot(), "cli", "main.ts"), "trace", ...args], {
    cwd,
    encoding: "utf8",
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr.replace(/^npm warn .*\n/gm, "") };
}

describe("spec-review trace", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "sr-trace-"));
    cpSync(FIXTURE, dir, { recursive: true });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("builds the PRD's matrix, its gaps, link problems and suggested IDs", () => {
    const t = traceFolder(FIXTURE, profiles);
    const prd = t.matrices.find((m) => m.upstream === "shop/prd")!;
    expect(prd.columns).toEqual(["shop/api", "shop/design"]);
    expect(prd.rows.map((r) => [r.id, r.line])).toEqual([
      ["REQ-001", 28],
      ["REQ-002", 29],
      ["REQ-003", 30],
      ["REQ-004", 31],
      ["REQ-005", 32],
    ]);
    expect(prd.cells[3]).toEqual(["referenced", "missing"]);
    expect(t.gaps.filter((g) => g.upstream === "shop/prd").map((g) => g.id)).toEqual(["REQ-005"]);
    expect(t.problems).toEqual([
      expect.objectContaining({ slug: "decisions/rfc-0042-retry-queue", code: "link_unresolved" }),
    ]);
    expect(t.suggestions.map((s) => [s.slug, s.id, s.line])).toEqual([["shop/prd", "REQ-006", 33]]);
  });

  it("reports a cycle on each doc in it, and stops", () => {
    const d = mkdtempSync(join(tmpdir(), "sr-cycle-"));
    try {
      for (const [slug, type, up] of [
        ["a", "design", "b"],
        ["b", "design", "c"],
        ["c", "prd", "a"],
      ] as const) {
        cpSync(join(FIXTURE, "shop/design"), join(d, slug), { recursive: true });
        writeFileSync(
          join(d, slug, "design.md"),
          `---\ntype: ${type}\nimplements: ${up}\n---\n\n# ${slug}\n\n## Context\n\nText.\n`,
        );
      }
      const t = traceFolder(d, profiles);
      expect(t.problems.filter((p) => p.code === "link_cycle").map((p) => p.message)).toEqual([
        "links form a cycle: a implements b implements c implements a",
        "links form a cycle: b implements c implements a implements b",
        "links form a cycle: c implements a implements b implements c",
      ]);
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });

  it("prints text and JSON, and exits 1 on a broken link (2 on a usage error)", () => {
    const text = cli([dir]);
    expect(text.code).toBe(1);
    // The cells in the words of the API and the JSON output.
    expect(text.stdout).toMatch(/^ {2}REQ-001 +missing +covered$/m);
    expect(text.stdout).toMatch(/^ {2}REQ-002 +missing +referenced$/m);
    expect(text.stdout).toMatch(/^ {2}REQ-004 +referenced +missing$/m);
    expect(text.stdout).not.toMatch(/\bnamed\b/);
    expect(text.stdout).toContain("gaps (IDs no downstream doc references or covers):\n");
    expect(text.stdout).toMatch(/^ {2}shop\/prd:32 REQ-005$/m);
    expect(text.stdout).toContain("problems (links):\n");
    expect(text.stdout).toContain("link_unresolved");
    expect(text.stdout).toContain("suggestions (requirements without an ID):\n");
    const json = cli(["--format", "json", dir]);
    const out = JSON.parse(json.stdout) as { folders: { matrices: { upstream: string }[] }[] };
    expect(out.folders[0]!.matrices.map((m) => m.upstream)).toEqual(["shop/design", "shop/prd"]);
    expect(cli(["--format", "xml", dir]).code).toBe(2);
    expect(cli([join(dir, "nope")]).code).toBe(2);
  }, 180_000);
});
