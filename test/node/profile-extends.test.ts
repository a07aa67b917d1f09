/** `extends` across the profile layers on disk: a repository profile over a built-in. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { builtinProfilesDir } from "../../node/package.js";
import { loadProfileLayers } from "../../node/profiles.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function repo(files: Record<string, string>): string {
  const d = mkdtempSync(join(tmpdir(), "sr-extends-"));
  dirs.push(d);
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(join(d, p, ".."), { recursive: true });
    writeFileSync(join(d, p), text);
  }
  return d;
}
const layers = (dir: string) => [
  { dir: builtinProfilesDir(), origin: "built-in" as const },
  { dir, origin: "repository" as const },
];

describe("extends in the profile layers", () => {
  it("a repository profile with a built-in's key extends that built-in: a short file, not a copy", () => {
    const dir = repo({
      "madr/profile.yaml":
        "key: madr\ntitle: Our MADR\nextends: madr\nchecks:\n  - slug: decision\n    level: SHOULD\n",
      "team-adr/profile.yaml": "key: team-adr\ntitle: Team ADR\nextends: madr\n",
    });
    const loaded = loadProfileLayers(layers(dir));
    expect(loaded.errors).toEqual([]);
    const madr = loaded.profiles.find((p) => p.key === "madr")!;
    expect(madr.title).toBe("Our MADR");
    expect(madr.checks.find((c) => c.slug === "decision")!.level).toBe("SHOULD");
    expect(madr.checks.length).toBeGreaterThan(5);
    expect(madr.templateText).toMatch(/Decision outcome/i); // the built-in's template: the folder has none
    // Another key names the profile as the repository has it: its own madr.
    const team = loaded.profiles.find((p) => p.key === "team-adr")!;
    expect(team.checks.find((c) => c.slug === "decision")!.level).toBe("SHOULD");
  });

  it("reports an unknown parent and a cycle with the file, line and column of `extends`", () => {
    const dir = repo({
      "a/profile.yaml": "key: a\ntitle: A\nextends: b\n",
      "b/profile.yaml": "key: b\ntitle: B\nextends: a\n",
      "c/profile.yaml": "key: c\ntitle: C\nextends: nosuch\n",
    });
    const loaded = loadProfileLayers(layers(dir));
    expect(loaded.profiles.map((p) => p.key)).not.toContain("a");
    const byFile = new Map(loaded.errors.map((e) => [e.file, e]));
    expect(byFile.get(join(dir, "a/profile.yaml"))).toMatchObject({ line: 3, column: 10, path: "extends" });
    expect(byFile.get(join(dir, "a/profile.yaml"))!.message).toMatch(/leads back/);
    expect(byFile.get(join(dir, "c/profile.yaml"))!.message).toMatch(/no profile 'nosuch' to extend/);
  });
});
