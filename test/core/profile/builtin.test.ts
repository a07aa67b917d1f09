/** The built-in profiles load; each filled example and each filled-in template passes its own checks, while the bare template does not. */
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

/** Each profile's filled example: folder and main doc. */
const EXAMPLES: Record<string, [string, string]> = {
  prd: ["fixtures/examples/prd", "saved-searches.md"],
  design: ["fixtures/examples/design", "saved-searches-design.md"],
  api: ["fixtures/examples/api", "saved-searches-api.md"],
  adr: ["fixtures/examples/adr", "0007-first-match-timestamp-for-digests.md"],
  kep: ["profiles/kep/example", "README.md"],
  rfc: ["profiles/rfc/example", "0000-scoped-task-cancellation.md"],
  madr: ["profiles/madr/example", "0012-store-feature-flags-in-postgres.md"],
  nygard: ["profiles/nygard/example", "0004-use-event-sourcing-for-ledger.md"],
};
const KEYS = Object.keys(EXAMPLES).sort();

function lintFolder(dir: string, main: string, replace?: (text: string) => string) {
  const files = new Map<string, Uint8Array | string>(
    walkFiles(dir).map((f) => [f, readFileSync(join(dir, f))]),
  );
  if (replace) files.set(main, replace(readFileSync(join(dir, main), "utf8")));
  return lintBundle({ files, mainPath: main, profiles });
}

/** What an author does with a template: every placeholder replaced by a sentence, the guidance comments deleted. */
function fillIn(template: string): string {
  let n = 0;
  return template
    .replace(/<!--[\s\S]*?-->\n*/g, "")
    .replace(/"\{\{YYYY-MM-DD\}\}"|\{\{YYYY-MM-DD\}\}/g, "2026-01-15")
    .replace(/\{\{NUMBER\}\}|\{\{number\}\}/g, "42")
    .replace(/\{\{[^}\n]*\}\}/g, () => `Filled-in answer number ${++n} with a few words`);
}

describe("built-in profiles", () => {
  it("load without errors", () => {
    expect(errors).toEqual([]);
    expect(profiles.map((p) => p.key)).toEqual(KEYS);
  });

  it.each(KEYS)("%s: the filled example passes every check", (key) => {
    const [dir, main] = EXAMPLES[key]!;
    const r = lintFolder(join(root, dir), main);
    expect(r.profile_key).toBe(key);
    expect(r.adopt).toBeUndefined();
    expect(r.findings.map((f) => `${f.check}: ${f.message}`)).toEqual([]);
  });

  it.each(KEYS)("%s: the template, filled in, has every section and no MUST finding", (key) => {
    const r = lintFolder(join(root, "profiles", key), "template.md", fillIn);
    expect(r.profile_key).toBe(key);
    const p = profiles.find((x) => x.key === key)!;
    const structural = new Set(
      p.checks.filter((c) => c.kind === "required-section" || c.kind === "empty-section").map((c) => c.slug),
    );
    // Filler words cannot carry RFC 2119 keywords or allowed metadata values; the structure must hold.
    expect(
      r.findings
        .filter((f) => f.level === "MUST" || structural.has(f.check))
        .map((f) => `${f.level} ${f.check}: ${f.message}`),
    ).toEqual([]);
  });

  it.each(KEYS)("%s: the bare template fails its MUST checks", (key) => {
    const r = lintFolder(join(root, "profiles", key), "template.md");
    expect(r.profile_key).toBe(key);
    const must = r.findings.filter((f) => f.level === "MUST").map((f) => f.check);
    expect(must).toContain("template-placeholder");
  });

  it.each(KEYS)("%s: its example is guessed from its headings alone", (key) => {
    const [dir, main] = EXAMPLES[key]!;
    const body = readFileSync(join(root, dir, main), "utf8").replace(/^---[\s\S]*?\n---\n/, "");
    expect(guessProfile(body, profiles)?.key).toBe(key);
  });

  it.each(KEYS)(
    "%s: every MUST check stays MUST in adoption (relaxed only for structure and style)",
    (key) => {
      const p = profiles.find((x) => x.key === key)!;
      const relaxedMust = p.checks.filter((c) => c.level === "MUST" && c.relaxed).map((c) => c.slug);
      expect(relaxedMust).toEqual([]);
    },
  );
});
