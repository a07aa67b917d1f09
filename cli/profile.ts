/**
 * spec-review profile infer <folder or file>... --key <key> [--out <dir>] [--extends <built-in>]
 *
 * Learns a profile from a team's own accepted docs (core/profile/infer.ts) and writes
 * `<dir>/<key>/profile.yaml` and `template.md` (default: the repository's
 * `.spec-review/profiles`); when it writes into the repository it also maps the input
 * folders to the key in `.spec-review/config.yaml` (`types:`). docs/profiles.md,
 * "Adopting on your existing specs".
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { inferProfile, type InferredProfile } from "../core/profile/infer.js";
import { REPO_CONFIG_PATH, withTypes } from "../server/repohost/config.js";
import { builtinProfilesDir } from "../node/package.js";
import { readInferInputs, repositoryRoot, typesGlobs } from "../node/profile-infer.js";
import { loadProfileLayers, repositoryProfilesDir } from "../node/profiles.js";
import { commandArgs, usageError } from "./args.js";

const USAGE = `spec-review profile <command> [options]

Commands:
  infer <folder or file>...  learn a profile from a team's accepted docs

spec-review profile infer <folder or file>... --key <key> [options]

Reads the docs (markdown, with or without frontmatter; sibling files such as kep.yaml
too) and writes <dir>/<key>/profile.yaml and template.md: the sections the docs write,
in their usual order, which one holds the design, the metadata they carry and where,
their ID and link patterns. Levels are chosen so that the docs learned from are Build
Ready. Prints each learned element with the share of docs that have it, and the docs
that did not fit.

Options:
  --key KEY          the profile key (lowercase words joined by '-'), e.g. swift-proposal
  --out DIR          where to write <key>/ (default: the repository's .spec-review/profiles;
                     then the input folders are also mapped to KEY in .spec-review/config.yaml)
  --extends KEY      extend this built-in (or repository) profile: keep its generic checks,
                     override what was learned
  --title TEXT       the profile's title
  --force            replace an existing profile of that key
  --json             print the result as JSON
  -h, --help         show this help

Exit codes: 0 written, 1 nothing written (an existing profile, no docs), 2 bad arguments.
`;

const SLUG = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
const toPosix = (p: string) => (sep === "/" ? p : p.split(sep).join("/"));

function printResult(r: InferredProfile, out: (s: string) => void): void {
  const w = Math.max(8, ...r.elements.map((e) => e.name.length));
  out("Learned:\n");
  for (const e of r.elements)
    out(
      `  ${e.kind.padEnd(14)}  ${`${Math.round(e.share * 100)}%`.padStart(4)}  ${e.name.padEnd(w)}${e.detail ? `  ${e.detail}` : ""}\n`,
    );
  if (r.misfits.length > 0) {
    out(`\nDocs that did not fit (${r.misfits.length}):\n`);
    for (const m of r.misfits) out(`  ${m.path}: ${m.why}\n`);
  }
}

export function profileCommand(argv: string[]): Promise<number> {
  return Promise.resolve(profileInfer(argv));
}

function profileInfer(argv: string[]): number {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === "-h" || sub === "--help" || sub === "help") {
    process.stdout.write(USAGE);
    return sub === undefined ? 2 : 0;
  }
  if (sub !== "infer") return usageError("profile", `unknown command '${sub}'`);
  const parsed = commandArgs(
    "profile infer",
    rest,
    {
      key: { type: "string" },
      out: { type: "string" },
      extends: { type: "string" },
      title: { type: "string" },
      force: { type: "boolean", default: false },
      json: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
    USAGE,
  );
  if (typeof parsed === "number") return parsed;
  const { values, positionals } = parsed;
  const key = values.key;
  if (!key) return usageError("profile infer", "--key is required");
  if (!SLUG.test(key))
    return usageError("profile infer", `--key '${key}' is not lowercase words joined by '-'`);
  if (positionals.length === 0)
    return usageError("profile infer", "name at least one folder or file of docs");
  for (const p of positionals)
    if (!existsSync(p)) return usageError("profile infer", `no such file or folder: ${p}`);

  const cwd = process.cwd();
  const root = repositoryRoot(positionals[0]!);
  const repoProfiles = repositoryProfilesDir(root);
  const outDir = values.out ? resolve(values.out) : repoProfiles;
  const intoRepository = resolve(outDir) === resolve(repoProfiles);
  const target = join(outDir, key);
  if (existsSync(join(target, "profile.yaml")) && !values.force) {
    process.stderr.write(
      `spec-review profile infer: ${toPosix(relative(cwd, join(target, "profile.yaml")))} exists: pass --force to replace it\n`,
    );
    return 1;
  }

  let parent;
  if (values.extends) {
    const layers = [
      { dir: builtinProfilesDir(), origin: "built-in" as const },
      ...(existsSync(repoProfiles) ? [{ dir: repoProfiles, origin: "repository" as const }] : []),
    ];
    const loaded = loadProfileLayers(layers);
    parent = loaded.profiles.find((p) => p.key === values.extends);
    if (!parent)
      return usageError(
        "profile infer",
        `--extends '${values.extends}' names no profile (${loaded.profiles.map((p) => p.key).join(", ")})`,
      );
  }

  const docs = readInferInputs(positionals, root);
  let result: InferredProfile;
  try {
    result = inferProfile(docs, {
      key,
      ...(values.extends ? { extends: values.extends } : {}),
      ...(values.title ? { title: values.title } : {}),
      ...(parent ? { parent } : {}),
    });
  } catch (err) {
    process.stderr.write(`spec-review profile infer: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }

  mkdirSync(target, { recursive: true });
  writeFileSync(join(target, "profile.yaml"), result.yaml);
  writeFileSync(join(target, "template.md"), result.template);
  const written = [join(target, "profile.yaml"), join(target, "template.md")];
  let types: Record<string, string> = {};
  if (intoRepository) {
    const skipped = new Set(
      result.misfits.filter((m) => m.why.includes("not learned from")).map((m) => m.path),
    );
    const learned = docs.map((d) => d.path).filter((p) => /\.(?:md|markdown)$/i.test(p) && !skipped.has(p));
    types = Object.fromEntries(typesGlobs(positionals, root, learned).map((g) => [g, key]));
    if (Object.keys(types).length > 0) {
      const configPath = join(root, REPO_CONFIG_PATH);
      const before = existsSync(configPath) ? readFileSync(configPath, "utf8") : undefined;
      let text: string;
      try {
        text = withTypes(before, types);
      } catch (err) {
        process.stderr.write(
          `spec-review profile infer: ${err instanceof Error ? err.message : String(err)}\n`,
        );
        return 1;
      }
      writeFileSync(configPath, text);
      written.push(configPath);
    }
  }

  if (values.json) {
    process.stdout.write(
      `${JSON.stringify({ key, written: written.map((f) => toPosix(relative(cwd, f))), types, ...result }, null, 2)}\n`,
    );
    return 0;
  }
  const out = (s: string) => process.stdout.write(s);
  printResult(result, out);
  out(`\nWrote ${written.map((f) => toPosix(relative(cwd, f))).join(", ")}\n`);
  for (const [glob, k] of Object.entries(types)) out(`  types: "${glob}": ${k}\n`);
  out(
    `Next: spec-review lint ${positionals.map((p) => toPosix(relative(cwd, resolve(p))) || ".").join(" ")}${intoRepository ? "" : ` --profiles ${toPosix(relative(cwd, outDir)) || "."} --profile ${key}`}\n`,
  );
  return 0;
}
