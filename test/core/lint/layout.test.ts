/** Every check kind has a doc page; the lint core stays pure (imports only core and packages, no node builtins). */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { CHECK_KINDS } from "../../../core/lint/checks/index.js";
import { packageRoot } from "../../../server/paths.js";

const root = packageRoot();

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

describe("lint layout", () => {
  it.each(CHECK_KINDS.map((k) => k.kind))("%s has docs/checks/<kind>.md and a table test", (kind) => {
    expect(existsSync(join(root, "docs", "checks", `${kind}.md`))).toBe(true);
    expect(existsSync(join(root, "test", "core", "lint", "checks", `${kind}.test.ts`))).toBe(true);
  });

  it("check kinds are unique and each has a description", () => {
    const kinds = CHECK_KINDS.map((k) => k.kind);
    expect(new Set(kinds).size).toBe(kinds.length);
    for (const k of CHECK_KINDS) expect(k.description.length).toBeGreaterThan(10);
  });

  const folders = ["markdown", "anchor", "profile", "lint", "verdict"];
  it.each(folders)("core/%s imports nothing outside core and no node builtins", (folder) => {
    const bad: string[] = [];
    for (const file of tsFiles(join(root, "core", folder))) {
      const source = readFileSync(file, "utf8");
      for (const m of source.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+["']([^"']+)["']/g)) {
        const spec = m[1]!;
        if (spec.startsWith("node:") || ["fs", "path", "os", "crypto", "child_process"].includes(spec))
          bad.push(`${file}: ${spec}`);
        if (spec.startsWith(".") && relative(join(root, "core"), resolve(file, "..", spec)).startsWith(".."))
          bad.push(`${file}: ${spec}`);
      }
      if (/\bprocess\.env\b|\bDate\.now\(|new Date\(\)/.test(source)) bad.push(`${file}: env or clock`);
    }
    expect(bad).toEqual([]);
  });
});
