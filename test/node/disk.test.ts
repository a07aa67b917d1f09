/** node/: the walker and the profile layers every disk reader shares. */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { builtinProfilesDir } from "../../node/package.js";
import { findRepositoryProfiles, loadProfileLayers, readProfileFiles } from "../../node/profiles.js";
import { walkFiles } from "../../node/walk.js";

const dirs: string[] = [];
function temp(): string {
  const d = mkdtempSync(join(tmpdir(), "sr-node-"));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function write(root: string, path: string, text = "x\n") {
  mkdirSync(join(root, path, ".."), { recursive: true });
  writeFileSync(join(root, path), text);
}

describe("walkFiles", () => {
  it("lists files sorted, posix, leaving out dot-folders, dot-files, node_modules and symlinks", () => {
    const root = temp();
    for (const p of [
      "b/doc.md",
      "a/img/ü 1.png",
      "a/prd.md",
      ".git/HEAD",
      ".spec-review/profiles/x/template.md",
      "a/.DS_Store",
      "node_modules/pkg/README.md",
      "a/node_modules/x.md",
    ])
      write(root, p);
    symlinkSync(join(root, "b"), join(root, "link"));
    expect(walkFiles(root)).toEqual(["a/img/ü 1.png", "a/prd.md", "b/doc.md"]);
  });

  it("lists nothing for a missing folder", () => {
    expect(walkFiles(join(temp(), "missing"))).toEqual([]);
  });
});

describe("profile layers", () => {
  const builtin = builtinProfilesDir();

  it("adds a repository's profiles to the built-ins and replaces one by key", () => {
    const repo = temp();
    const own = join(repo, ".spec-review", "profiles");
    cpSync(join(builtin, "adr"), join(own, "adr"), { recursive: true });
    const yaml = join(own, "adr", "profile.yaml");
    writeFileSync(yaml, readFileSync(yaml, "utf8").replace(/^title: .*$/m, "title: Our decisions"));
    cpSync(join(builtin, "adr"), join(own, "decision"), { recursive: true });
    const dyaml = join(own, "decision", "profile.yaml");
    writeFileSync(dyaml, readFileSync(dyaml, "utf8").replace(/^key: adr$/m, "key: decision"));

    const loaded = loadProfileLayers([
      { dir: builtin, origin: "built-in" },
      { dir: own, origin: "repository" },
    ]);
    expect(loaded.errors).toEqual([]);
    const keys = loaded.profiles.map((p) => p.key);
    expect(keys).toEqual([...keys].sort());
    expect(keys).toEqual(expect.arrayContaining(["adr", "decision", "prd"]));
    expect(loaded.profiles.find((p) => p.key === "adr")?.title).toBe("Our decisions");
    expect(loaded.origins.get("adr")?.origin).toBe("repository");
    expect(loaded.origins.get("prd")?.origin).toBe("built-in");

    const files = readProfileFiles([
      { dir: builtin, origin: "built-in" },
      { dir: own, origin: "repository" },
    ]);
    expect(files.find((f) => f.key === "adr")).toMatchObject({ origin: "repository", builtin: true });
    expect(files.find((f) => f.key === "decision")).toMatchObject({ origin: "repository", builtin: false });
    expect(files.find((f) => f.key === "adr")?.yaml).toContain("title: Our decisions");
  });

  it("reports a profile that does not load with its full path, and keeps the others", () => {
    const dir = temp();
    write(dir, "bad/profile.yaml", "key: bad\ntitle: [\n");
    write(dir, "bad/template.md", "# T\n");
    const loaded = loadProfileLayers([
      { dir: builtin, origin: "built-in" },
      { dir, origin: "option" },
    ]);
    expect(loaded.errors.length).toBeGreaterThan(0);
    expect(loaded.errors[0]!.file).toBe(join(dir, "bad", "profile.yaml"));
    expect(loaded.profiles.map((p) => p.key)).not.toContain("bad");
    expect(loaded.profiles.length).toBeGreaterThan(0);
  });

  it("finds the nearest .spec-review/profiles, not past the repository's root", () => {
    const outer = temp();
    mkdirSync(join(outer, ".spec-review", "profiles"), { recursive: true });
    const repo = join(outer, "repo");
    mkdirSync(join(repo, ".git"), { recursive: true });
    mkdirSync(join(repo, "specs", "deep"), { recursive: true });
    expect(findRepositoryProfiles(join(repo, "specs", "deep"))).toBeUndefined();
    mkdirSync(join(repo, ".spec-review", "profiles"), { recursive: true });
    expect(findRepositoryProfiles(join(repo, "specs", "deep"))).toBe(join(repo, ".spec-review", "profiles"));
  });
});
