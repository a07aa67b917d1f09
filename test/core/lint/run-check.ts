/** Test helper: run one check kind over a doc with a one-check profile. */
import { lintBundle, type LintResult } from "../../../core/lint/engine.js";
import { parseProfile } from "../../../core/profile/load.js";
import type { Profile } from "../../../core/profile/schema.js";

export function oneCheckProfile(kind: string, params: unknown, extra: Record<string, unknown> = {}): Profile {
  const yaml = JSON.stringify({
    key: "test",
    title: "Test",
    radar: [{ key: "structure", title: "Structure" }],
    verify_prefixes: ["REQ"],
    checks: [{ slug: "the-check", kind, level: "MUST", category: "structure", params }],
    ...extra,
  });
  const r = parseProfile(yaml);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.profile;
}

export function runCheck(kind: string, text: string, params: unknown, files: string[] = []): LintResult {
  const profile = oneCheckProfile(kind, params);
  const map = new Map<string, string>(files.map((f) => [f, ""]));
  map.set("doc.md", text);
  return lintBundle({ files: map, mainPath: "doc.md", profile });
}

/** Compact view of the findings of the check under test: [1-based line, quote]. */
export function hits(text: string, result: LintResult): [number, string][] {
  return result.findings
    .filter((f) => f.check === "the-check")
    .map((f) => {
      const before = Buffer.from(text, "utf8").subarray(0, f.anchor.start).toString("utf8");
      return [before.split("\n").length, f.anchor.quote];
    });
}

/** A frontmatter naming type and size, so no adoption happens. */
export const FM = "---\ntype: test\nsize: standard\n---\n";
