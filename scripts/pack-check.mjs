#!/usr/bin/env node
// The npm package as people install it (CI step "npm pack"): `npm pack` (its `prepack`
// builds), install the tarball into an empty folder with production dependencies only,
// from the registry, and run the installed `spec-review` from there: `lint` on a spec,
// `serve` on a folder (answers /healthz and the API, stops on SIGTERM), and `app --help`,
// `mcp --help`, `lsp --help` when this build has those commands (said so when it does not).
//
//   node scripts/pack-check.mjs [--no-pack]   (--no-pack: reuse ./spec-review-*.tgz)
import { execFileSync, spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const say = (line) => process.stdout.write(`pack-check: ${line}\n`);
const fail = (line) => {
  process.stderr.write(`pack-check: FAILED: ${line}\n`);
  process.exit(1);
};

let tarball;
if (process.argv.includes("--no-pack")) {
  tarball = readdirSync(root).find((f) => /^spec-review-.*\.tgz$/.test(f));
  if (!tarball) fail("no spec-review-*.tgz to reuse");
} else {
  say("npm pack (prepack builds)");
  const out = JSON.parse(
    execFileSync(npm, ["pack", "--json"], {
      cwd: root,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    }),
  );
  tarball = out[0].filename;
  const files = out[0].files.map((f) => f.path);
  for (const must of [
    "dist/cli/main.js",
    "dist/server/start.js",
    "server/db/migrations/meta/_journal.json",
    "profiles",
    "docs/checks/required-section.md",
  ]) {
    if (!files.some((f) => f === must || f.startsWith(must + "/"))) fail(`the tarball lacks ${must}`);
  }
  for (const f of files)
    if (/^(test|bench|eval)\//.test(f) || f.startsWith("dist/test/")) fail(`the tarball holds ${f}`);
  say(`${tarball}: ${files.length} files, ${Math.round(out[0].size / 1024)} kB packed`);
}

const dir = mkdtempSync(join(tmpdir(), "spec-review-pack-"));
const keep = process.argv.includes("--keep");
try {
  cpSync(join(root, tarball), join(dir, tarball));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "pack-check", private: true }));
  say(`npm i ./${tarball} --omit=dev in ${dir}`);
  execFileSync(npm, ["i", `./${tarball}`, "--omit=dev", "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd: dir,
    stdio: "inherit",
  });
  const bin = join(dir, "node_modules", ".bin", "spec-review");
  const run = (args, opts = {}) =>
    execFileSync(bin, args, {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, ...opts.env },
      stdio: ["ignore", "pipe", "pipe"],
    });

  say(`spec-review --version: ${run(["--version"]).trim()}`);

  // lint: a PRD with a CRLF and an emoji, linted from the installed package.
  mkdirSync(join(dir, "specs", "checkout"), { recursive: true });
  writeFileSync(
    join(dir, "specs", "checkout", "prd.md"),
    "---\r\ntype: prd\r\n---\r\n# Checkout 🛒\r\n\r\n## Problem\r\n\r\nPeople abandon carts at the payment step.\r\n",
  );
  let lint;
  try {
    lint = run(["lint", "specs", "--format", "json"]);
  } catch (err) {
    // Exit 1: findings that block; the JSON is still printed.
    if (err.status !== 1) fail(`lint exited ${err.status}: ${err.stderr}`);
    lint = err.stdout;
  }
  if (!lint.includes("checkout")) fail(`lint did not report the spec: ${lint.slice(0, 300)}`);
  say("lint: ok");

  // serve: a folder on a free port; /healthz and the API answer; SIGTERM stops it.
  await new Promise((ok, ko) => {
    const proc = spawn(bin, ["serve", "specs", "--port", "0"], {
      cwd: dir,
      stdio: ["ignore", "ignore", "pipe"],
    });
    let err = "";
    const timer = setTimeout(() => {
      proc.kill("SIGKILL");
      ko(new Error(`serve did not start: ${err}`));
    }, 60_000);
    proc.stderr.on("data", async (d) => {
      err += d;
      const m = /serving .* at (http:\/\/[^/\s]+)\/api\/v1/.exec(err);
      if (!m || proc.started) return;
      proc.started = true;
      try {
        const health = await fetch(`${m[1]}/healthz`);
        if (health.status !== 200) throw new Error(`/healthz answered ${health.status}`);
        const list = await (await fetch(`${m[1]}/api/v1/bundles`)).json();
        if (!list.items?.some((b) => b.slug === "checkout"))
          throw new Error(`GET /bundles: ${JSON.stringify(list)}`);
        proc.kill("SIGTERM");
      } catch (e) {
        proc.kill("SIGKILL");
        clearTimeout(timer);
        ko(e);
      }
    });
    proc.once("exit", (code, signal) => {
      clearTimeout(timer);
      if (proc.started && code === 0) ok();
      else ko(new Error(`serve exited ${code ?? signal}: ${err}`));
    });
  }).catch((e) => fail(`serve: ${e.message}`));
  say("serve: ok (healthz, GET /bundles, SIGTERM)");

  // app, mcp and lsp: built by other parts of the project; called when this build has them.
  const help = run(["--help"]);
  for (const command of ["app", "mcp", "lsp"]) {
    if (!new RegExp(`^\\s+${command}\\b`, "m").test(help)) {
      say(`${command} --help: skipped, this build has no \`${command}\` command`);
      continue;
    }
    const out = run([command, "--help"]);
    if (!out.trim()) fail(`${command} --help printed nothing`);
    say(`${command} --help: ok`);
  }
  say("the installed package works");
} finally {
  if (!keep) rmSync(dir, { recursive: true, force: true });
  if (!process.argv.includes("--no-pack")) rmSync(join(root, tarball), { force: true });
}
