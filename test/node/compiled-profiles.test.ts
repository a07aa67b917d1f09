/**
 * The built-in profiles parsed at build time (dist/profiles.json) answer exactly what
 * parsing their YAML answers, and only for the exact text and key they were made from.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseProfile } from "../../core/profile/load.js";
import { builtinProfilesDir } from "../../node/package.js";
import {
  compileProfiles,
  folderProfileSource,
  loadProfileLayers,
  parseProfileFast,
  useCompiledProfiles,
} from "../../node/profiles.js";

const dir = builtinProfilesDir();
const yamlOf = (key: string) => readFileSync(join(dir, key, "profile.yaml"), "utf8");

describe("compiled built-in profiles", () => {
  const compiled = compileProfiles(dir);
  const keys = folderProfileSource(dir).keys();
  afterAll(() => useCompiledProfiles(null));

  it("holds every built-in, and each answers what parsing its YAML answers", () => {
    expect(Object.keys(compiled).sort()).toEqual(keys);
    useCompiledProfiles(compiled);
    for (const key of keys) {
      const parsed = parseProfile(yamlOf(key), { key, templateText: "# T" });
      expect(parseProfileFast(yamlOf(key), { key, templateText: "# T" })).toEqual(parsed);
    }
    // Each answer is a fresh object: a caller that sets templateText changes no other.
    const a = parseProfileFast(yamlOf("prd"), { key: "prd" });
    const b = parseProfileFast(yamlOf("prd"), { key: "prd" });
    expect(a.ok && b.ok && a.profile !== b.profile).toBe(true);
    // Loading the built-in layer gives the same profiles, template included.
    const fast = loadProfileLayers([{ dir, origin: "built-in" }]).profiles;
    useCompiledProfiles(null);
    expect(fast).toEqual(loadProfileLayers([{ dir, origin: "built-in" }]).profiles);
  });

  it("parses an edited profile, or one under another key, instead of trusting the table", () => {
    useCompiledProfiles(compiled);
    const yaml = yamlOf("prd");
    const edited = yaml.replace(/^title: .*$/m, "title: Our own PRD");
    expect(edited).not.toBe(yaml);
    const r = parseProfileFast(edited, { key: "prd" });
    expect(r.ok && r.profile.title).toBe("Our own PRD");
    // A broken edit is reported with its line, as parsing does.
    const broken = parseProfileFast(`${yaml}\nchecks: [`, { key: "prd" });
    expect(broken).toEqual(parseProfile(`${yaml}\nchecks: [`, { key: "prd" }));
    expect(broken.ok).toBe(false);
    // The prd text under another key must carry that key, which the table cannot give.
    expect(parseProfileFast(yaml, { key: "design" })).toEqual(parseProfile(yaml, { key: "design" }));
  });
});
