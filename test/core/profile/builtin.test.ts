/** The built-in profiles load, and each filled example passes its own checks while the bare template does not. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fsProfileSource, walkFiles } from "../../../cli/lint-fs.js";
import { lintBundle } from "../../../core/lint/engine.js";
import { loadProfiles } from "../../../core/profile/load.js";
import { guessProfile } from "../../../core/profile/guess.js";
import { packageRoot } from "../../../server/paths.js";

const root = packageRoot();
const { profiles, errors } = loadProfiles(fsProfileSource(join(root, "profiles")));

function lintFolder(dir: string, main: string) {
  const files = new Map<string, Uint8Array>(walkFiles(dir).map((f) => [f, readFileSync(join(dir, f))]));
  return lintBundle({ files, mainPath: main, profiles });
}

describe("built-in profiles", () => {
  it("load without errors", () => {
    expect(errors).toEqual([]);
    expect(profiles.map((p) => p.key)).toEqual(["adr", "api", "design", "prd"]);
  });

  it.each(["prd", "design", "api", "adr"])("%s: the filled example passes every check", (key) => {
    const dir = join(root, "fixtures", "examples", key);
    const main = walkFiles(dir).find((f) => f.endsWith(".md"))!;
    const r = lintFolder(dir, main);
    expect(r.profile_key).toBe(key);
    expect(r.adopt).toBeUndefined();
    expect(r.findings.map((f) => `${f.check}: ${f.message}`)).toEqual([]);
  });

  it.each(["prd", "design", "api", "adr"])("%s: the bare template fails its MUST checks", (key) => {
    const r = lintFolder(join(root, "profiles", key), "template.md");
    expect(r.profile_key).toBe(key);
    const must = r.findings.filter((f) => f.level === "MUST").map((f) => f.check);
    expect(must).toContain("template-placeholder");
    expect(new Set(must).size).toBeGreaterThan(2);
  });

  it.each(["prd", "design", "api", "adr"])("%s: its example is guessed from its headings alone", (key) => {
    const dir = join(root, "fixtures", "examples", key);
    const main = walkFiles(dir).find((f) => f.endsWith(".md"))!;
    const body = readFileSync(join(dir, main), "utf8").replace(/^---[\s\S]*?\n---\n/, "");
    expect(guessProfile(body, profiles)?.key).toBe(key);
  });
});
