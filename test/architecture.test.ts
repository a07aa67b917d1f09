/**
 * Imports point one way (ARCHITECTURE.md): core imports nothing of ours; server imports
 * core; app imports server and core; action imports core only. cli may use core and server.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "..");

const ALLOWED: Record<string, string[]> = {
  core: ["core"],
  server: ["server", "core"],
  app: ["app", "server", "core"],
  action: ["action", "core"],
  cli: ["cli", "core", "server"],
};

function tsFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.name === "dist" || e.name === "node_modules" || e.name === "migrations") return [];
    const p = join(dir, e.name);
    return e.isDirectory() ? tsFiles(p) : e.name.endsWith(".ts") ? [p] : [];
  });
}

/** The top-level folder of ours that a relative import lands in. */
function targetFolder(file: string, spec: string): string {
  return relative(root, resolve(file, "..", spec)).split("/")[0]!;
}

describe("import direction", () => {
  it.each(Object.keys(ALLOWED))("%s imports only what it may", (folder) => {
    const bad: string[] = [];
    for (const file of tsFiles(join(root, folder))) {
      const source = readFileSync(file, "utf8");
      for (const m of source.matchAll(
        /(?:^|\n)\s*(?:import|export)[^'"]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g,
      )) {
        const spec = (m[1] ?? m[2])!;
        if (!spec.startsWith(".")) continue;
        const target = targetFolder(file, spec);
        if (!ALLOWED[folder]!.includes(target))
          bad.push(`${relative(root, file)} imports ${spec} (${target})`);
      }
    }
    expect(bad).toEqual([]);
  });

  it("core has no file system, network, environment or clock of its own", () => {
    const bad: string[] = [];
    for (const file of tsFiles(join(root, "core"))) {
      const source = readFileSync(file, "utf8");
      for (const m of source.matchAll(/from\s+["'](node:(?:fs|net|http|https|child_process)[^"']*)["']/g))
        bad.push(`${relative(root, file)}: ${m[1]}`);
      if (/\bprocess\.env\b|\bDate\.now\(|new Date\(\)/.test(source))
        bad.push(`${relative(root, file)}: env or clock`);
    }
    expect(bad).toEqual([]);
  });
});
