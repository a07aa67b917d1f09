/**
 * Imports point one way: core imports nothing of ours and nothing of the platform;
 * node (the shared disk helpers) imports core; server imports core and node; action
 * imports core and node; lsp (the language server) imports core and node; cli imports
 * core, node, server and lsp. Bare-package imports that would break the layering are
 * refused too (a database or HTTP library in core, the server's libraries in node).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "..");

const ALLOWED: Record<string, string[]> = {
  core: ["core"],
  node: ["node", "core"],
  server: ["server", "core", "node"],
  app: ["app", "server", "core", "node"],
  action: ["action", "core", "node"],
  cli: ["cli", "core", "node", "server", "app", "lsp"],
  lsp: ["lsp", "core", "node"],
};

/** Packages (and prefixes ending in `/`) a layer must not import. */
const SERVER_LIBRARIES = ["hono", "@hono/", "drizzle-orm", "postgres", "@electric-sql/pglite", "chokidar"];
const PLATFORM = [
  "node:fs",
  "node:net",
  "node:http",
  "node:https",
  "node:child_process",
  "node:worker_threads",
  "node:os",
  "node:process",
  "fs",
  "child_process",
];
const FORBIDDEN: Record<string, string[]> = {
  core: [...SERVER_LIBRARIES, ...PLATFORM, "@actions/", "openai", "execa"],
  node: [...SERVER_LIBRARIES, "@actions/", "openai"],
  action: [...SERVER_LIBRARIES],
  lsp: [...SERVER_LIBRARIES, "@actions/", "openai"],
};

function tsFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.name === "dist" || e.name === "node_modules" || e.name === "migrations") return [];
    const p = join(dir, e.name);
    return e.isDirectory() ? tsFiles(p) : e.name.endsWith(".ts") ? [p] : [];
  });
}

/** Every module specifier a source imports or re-exports, static or dynamic. */
export function importsOf(source: string): string[] {
  return [
    ...source.matchAll(
      /(?:^|\n)\s*(?:import|export)[^'"]*?from\s+["']([^"']+)["']|(?:^|\n)\s*import\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g,
    ),
  ].map((m) => (m[1] ?? m[2] ?? m[3])!);
}

/** The top-level folder of ours that a relative import lands in. */
function targetFolder(file: string, spec: string): string {
  return relative(root, resolve(file, "..", spec)).split("/")[0]!;
}

function forbids(list: readonly string[], spec: string): boolean {
  return list.some((p) => (p.endsWith("/") ? spec.startsWith(p) : spec === p || spec.startsWith(`${p}/`)));
}

describe("import direction", () => {
  it.each(Object.keys(ALLOWED))("%s imports only what it may", (folder) => {
    const bad: string[] = [];
    for (const file of tsFiles(join(root, folder))) {
      for (const spec of importsOf(readFileSync(file, "utf8"))) {
        if (spec.startsWith(".")) {
          const target = targetFolder(file, spec);
          if (!ALLOWED[folder]!.includes(target))
            bad.push(`${relative(root, file)} imports ${spec} (${target})`);
        } else if (forbids(FORBIDDEN[folder] ?? [], spec))
          bad.push(`${relative(root, file)} imports ${spec}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it("core has no environment or clock of its own", () => {
    const bad: string[] = [];
    for (const file of tsFiles(join(root, "core"))) {
      const source = readFileSync(file, "utf8");
      if (/\bprocess\.env\b|\bDate\.now\(|new Date\(\)/.test(source))
        bad.push(`${relative(root, file)}: env or clock`);
    }
    expect(bad).toEqual([]);
  });

  it("finds the imports it must refuse", () => {
    const source = [
      'import { Hono } from "hono";',
      'import type { Context } from "hono";',
      "import { x } from '@hono/node-server';",
      'export { y } from "drizzle-orm/pg-core";',
      'import "node:fs";',
      'const m = await import("postgres");',
    ].join("\n");
    const specs = importsOf(source);
    expect(specs).toEqual([
      "hono",
      "hono",
      "@hono/node-server",
      "drizzle-orm/pg-core",
      "node:fs",
      "postgres",
    ]);
    expect(specs.filter((s) => forbids(FORBIDDEN.core!, s))).toEqual(specs);
    expect(forbids(FORBIDDEN.node!, "node:fs")).toBe(false);
    expect(forbids(FORBIDDEN.core!, "honorific")).toBe(false);
  });
});
