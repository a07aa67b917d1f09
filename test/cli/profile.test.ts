/**
 * `spec-review profile infer`: writes the learned profile and template into the
 * repository's .spec-review/profiles, maps the folder in .spec-review/config.yaml, refuses
 * to overwrite without --force, and answers usage errors with exit code 2.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { profileCommand } from "../../cli/profile.js";
import { configTypes } from "../../server/repohost/config.js";
import { languageProposals, madrRecords } from "../core/profile/infer-fixtures.js";

let repo: string;
let out: string[];
let err: string[];
beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), "sr-infer-"));
  mkdirSync(join(repo, ".git"));
  for (const f of [...languageProposals(), ...madrRecords()]) {
    mkdirSync(dirname(join(repo, f.path)), { recursive: true });
    writeFileSync(join(repo, f.path), f.text);
  }
  out = [];
  err = [];
  vi.spyOn(process.stdout, "write").mockImplementation((s) => (out.push(String(s)), true));
  vi.spyOn(process.stderr, "write").mockImplementation((s) => (err.push(String(s)), true));
});
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(repo, { recursive: true, force: true });
});

describe("spec-review profile infer", { timeout: 60_000 }, () => {
  it("writes profile.yaml and template.md into the repository and maps the folder to the key", async () => {
    mkdirSync(join(repo, ".spec-review"));
    writeFileSync(join(repo, ".spec-review/config.yaml"), "# ours\ntypes:\n  docs/spec.md: prd\n");
    const code = await profileCommand(["infer", join(repo, "proposals"), "--key", "lang-proposal"]);
    expect(code, err.join("")).toBe(0);
    const dir = join(repo, ".spec-review/profiles/lang-proposal");
    expect(readFileSync(join(dir, "profile.yaml"), "utf8")).toMatch(/^key: lang-proposal$/m);
    expect(readFileSync(join(dir, "template.md"), "utf8")).toMatch(/## Detailed design/);
    const config = readFileSync(join(repo, ".spec-review/config.yaml"), "utf8");
    expect(config).toMatch(/# ours/);
    expect(configTypes(config)).toEqual({ "docs/spec.md": "prd", "proposals/[0-9]*.md": "lang-proposal" });
    const printed = out.join("");
    expect(printed).toMatch(/design-section\s+100%\s+Detailed design/);
    expect(printed).toMatch(/metadata\s+100%\s+Status/);
  });

  it("names the docs that did not fit, and writes elsewhere with --out without touching the config", async () => {
    const target = join(repo, "elsewhere");
    const code = await profileCommand([
      "infer",
      join(repo, "docs/decisions"),
      "--key",
      "team-adr",
      "--out",
      target,
    ]);
    expect(code, err.join("")).toBe(0);
    expect(existsSync(join(target, "team-adr/profile.yaml"))).toBe(true);
    expect(existsSync(join(repo, ".spec-review/config.yaml"))).toBe(false);
    expect(out.join("")).toMatch(/did not fit[\s\S]*docs\/decisions\/README\.md/);
  });

  it("refuses to overwrite an existing profile without --force", async () => {
    expect(await profileCommand(["infer", join(repo, "proposals"), "--key", "lang-proposal"])).toBe(0);
    const file = join(repo, ".spec-review/profiles/lang-proposal/profile.yaml");
    writeFileSync(file, "key: lang-proposal # edited\n");
    expect(await profileCommand(["infer", join(repo, "proposals"), "--key", "lang-proposal"])).toBe(1);
    expect(err.join("")).toMatch(/exists: pass --force/);
    expect(readFileSync(file, "utf8")).toMatch(/# edited/);
    expect(
      await profileCommand(["infer", join(repo, "proposals"), "--key", "lang-proposal", "--force"]),
    ).toBe(0);
    expect(readFileSync(file, "utf8")).not.toMatch(/# edited/);
  });

  it("extends a built-in with --extends", async () => {
    const code = await profileCommand([
      "infer",
      join(repo, "proposals"),
      "--key",
      "lang-proposal",
      "--extends",
      "rfc",
    ]);
    expect(code, err.join("")).toBe(0);
    expect(readFileSync(join(repo, ".spec-review/profiles/lang-proposal/profile.yaml"), "utf8")).toMatch(
      /^extends: rfc$/m,
    );
  });

  it("answers bad arguments with exit code 2", async () => {
    expect(await profileCommand(["infer", join(repo, "proposals")])).toBe(2);
    expect(err.join("")).toMatch(/--key is required/);
    expect(await profileCommand(["infer", join(repo, "proposals"), "--key", "Bad Key"])).toBe(2);
    expect(await profileCommand(["infer", join(repo, "nope"), "--key", "x"])).toBe(2);
    expect(await profileCommand(["infer", join(repo, "proposals"), "--key", "x", "--extends", "nope"])).toBe(
      2,
    );
    expect(await profileCommand(["frobnicate"])).toBe(2);
  });
});
