/**
 * `spec-review serve` as a subprocess: usage errors, the data dir, answering HTTP on a
 * port it picks, the file watcher, SIGTERM, and Postgres when TEST_DATABASE_URL is set.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { packageRoot } from "../../node/package.js";

const root = packageRoot();
const main = join(root, "cli", "main.ts");
const DEMO = join(root, "fixtures", "demo");

/** Folders of fixtures/demo that directly hold markdown whose frontmatter names a type. */
function typedFolders(dir: string, rel = ""): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name.startsWith(".")) continue;
    const childRel = rel === "" ? e.name : `${rel}/${e.name}`;
    if (e.isDirectory()) out.push(...typedFolders(join(dir, e.name), childRel));
    else if (e.name.endsWith(".md")) {
      const fm = /^---\r?\n([\s\S]*?)\r?\n---/.exec(readFileSync(join(dir, e.name), "utf8"));
      if (fm && /^type:\s*\S/m.test(fm[1]!)) out.push(rel === "" ? "." : rel);
    }
  }
  return out;
}
const DEMO_SLUGS = [...new Set(typedFolders(DEMO))].sort();

/** The CLI from source (tsx), with DATABASE_URL only when a test gives one. */
function cliEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  if (!("DATABASE_URL" in extra)) delete env.DATABASE_URL;
  delete env.LOG_LEVEL;
  return env;
}

function runCli(...args: string[]) {
  const r = spawnSync(process.execPath, ["--import", "tsx", main, ...args], {
    cwd: root,
    env: cliEnv(),
    encoding: "utf8",
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const lines = (text: string) => text.split("\n").filter((l) => l.trim() !== "");

// ------------------------------------------------------------ running servers

interface Served {
  proc: ChildProcess;
  /** http://127.0.0.1:<port>/api/v1 */
  api: string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const procs = new Set<ChildProcess>();
const dirs: string[] = [];
const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
  procs.clear();
  for (const fn of cleanups.splice(0)) await fn();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}

/** A copy of the demo, without whatever a server may have left in the tracked one. */
function demoCopy(): string {
  const d = tempDir("sr-serve-");
  cpSync(DEMO, d, { recursive: true, filter: (src) => !src.slice(DEMO.length).includes(".spec-review") });
  return d;
}

/** Start `serve` and wait (bounded) for the line that names its URL. */
function serve(args: string[], env: Record<string, string> = {}, timeoutMs = 60_000): Promise<Served> {
  const proc = spawn(process.execPath, ["--import", "tsx", main, "serve", ...args], {
    cwd: root,
    env: cliEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  procs.add(proc);
  let err = "";
  proc.stdout.resume();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill("SIGKILL");
      reject(new Error(`serve did not say where it listens within ${timeoutMs} ms:\n${err}`));
    }, timeoutMs);
    proc.stderr.setEncoding("utf8");
    proc.stderr.on("data", (chunk: string) => {
      err += chunk;
      const m = /spec-review serving (.+) at (http:\/\/127\.0\.0\.1:\d+\/api\/v1)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve({ proc, api: m[2]!, stderr: () => err, exited });
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${code ?? signal}) before listening:\n${err}`));
    });
  });
}

/** SIGTERM, and the exit (bounded). */
async function terminate(s: Served, timeoutMs = 20_000) {
  s.proc.kill("SIGTERM");
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`serve did not stop within ${timeoutMs} ms of SIGTERM`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([s.exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url, { signal: AbortSignal.timeout(20_000) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

interface BundleList {
  items: Array<{
    id: string;
    slug: string;
    docs: Array<{ id: string; path: string; profile_key: string; current_version: { number: number } }>;
  }>;
}
interface VersionList {
  items: Array<{ id: string; number: number; created_by: string; message: string }>;
}

async function slugs(api: string): Promise<string[]> {
  const list = await getJson<BundleList>(`${api}/bundles?limit=500`);
  return list.items.map((b) => b.slug).sort();
}

// ---------------------------------------------------------------------- tests

describe("spec-review serve: usage", () => {
  it("--help prints the usage and exits 0", () => {
    const r = runCli("serve", "--help");
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/^Usage: spec-review serve \[folder\]/);
    for (const word of ["--port", "--host", "--data-dir", "--no-watch", "DATABASE_URL", ".spec-review"])
      expect(r.stdout).toContain(word);
  });

  it("an unknown flag exits 2 with one line on stderr", () => {
    const r = runCli("serve", "--bogus");
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toMatch(/^spec-review serve: .*--bogus/);
  });

  it("a model timeout that is not a number of seconds exits 2 with one line naming the variable", () => {
    const folder = tempDir("sr-serve-timeout-");
    for (const value of ["abc", "86400"]) {
      const r = spawnSync(process.execPath, ["--import", "tsx", main, "serve", folder, "--port", "0"], {
        cwd: root,
        env: cliEnv({ SPEC_REVIEW_MODEL_TIMEOUT_S: value }),
        encoding: "utf8",
        timeout: 60_000,
      });
      expect(r.status, value).toBe(2);
      expect(lines(r.stderr)).toHaveLength(1);
      expect(r.stderr).toContain(
        `spec-review serve: SPEC_REVIEW_MODEL_TIMEOUT_S must be a number of seconds from 1 to 3600, not "${value}"`,
      );
    }
    // Nothing was started or written.
    expect(readdirSync(folder)).toEqual([]);
  });

  it("a missing folder exits 2 with one line naming it", () => {
    const missing = join(tmpdir(), `sr-missing-${randomBytes(4).toString("hex")}`);
    const r = runCli("serve", missing);
    expect(r.code).toBe(2);
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toContain(missing);
    expect(existsSync(missing)).toBe(false);
  });

  it("a file where the folder goes exits 2 with one line", () => {
    const d = tempDir("sr-serve-file-");
    const file = join(d, "spec.md");
    writeFileSync(file, "---\ntype: prd\n---\n# A\n");
    const r = runCli("serve", file);
    expect(r.code).toBe(2);
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toMatch(/is not a folder/);
  });

  // root reads every folder whatever its mode, so this can only be seen as another user.
  it.skipIf(process.getuid?.() === 0 || process.platform === "win32")(
    "an unreadable folder exits 2 with one line",
    () => {
      const d = tempDir("sr-serve-locked-");
      const locked = join(d, "locked");
      mkdirSync(locked, { mode: 0o000 });
      try {
        const r = runCli("serve", locked);
        expect(r.code).toBe(2);
        expect(lines(r.stderr)).toHaveLength(1);
        expect(r.stderr).toMatch(/cannot read folder/);
      } finally {
        spawnSync("chmod", ["700", locked]);
      }
    },
  );

  it.each([["abc"], ["70000"], ["-1"], ["8.5"]])("--port %s exits 2 with one line", (port) => {
    const r = runCli("serve", root, "--port", port);
    expect(r.code).toBe(2);
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toMatch(/--port/);
  });

  it("two folders exit 2 with one line", () => {
    const r = runCli("serve", root, root);
    expect(r.code).toBe(2);
    expect(lines(r.stderr)).toHaveLength(1);
  });
});

describe("spec-review serve: running", () => {
  it("has demo bundles to look for", () => {
    expect(DEMO_SLUGS).toEqual(
      expect.arrayContaining(["checkout", "checkout/api", "decisions/0001-use-postgres"]),
    );
  });

  it("serves the demo on a port it picks, with the data dir in <folder>/.spec-review/data, and stops on SIGTERM with 0", async () => {
    const folder = demoCopy();
    const s = await serve([folder, "--port", "0"]);
    expect(s.stderr()).toContain(`spec-review serving ${folder} at`);

    const meta = await getJson<Record<string, unknown>>(`${s.api}/meta`);
    expect(meta).toMatchObject({ api_version: "0.1.0", mode: "local" });
    expect(await slugs(s.api)).toEqual(DEMO_SLUGS);

    const dataDir = join(folder, ".spec-review", "data");
    expect(readFileSync(join(dataDir, ".gitignore"), "utf8").trim()).toBe("*");
    expect(existsSync(join(dataDir, "db"))).toBe(true);
    // .spec-review/ itself is the repository's configuration: nothing there hides committed profiles.
    expect(readdirSync(join(folder, ".spec-review"))).toEqual(["data"]);

    expect(await terminate(s)).toEqual({ code: 0, signal: null });
    await expect(fetch(`${s.api}/meta`, { signal: AbortSignal.timeout(5_000) })).rejects.toThrow();
  }, 120_000);

  it("keeps its records in --data-dir elsewhere, and finds them again after a restart", async () => {
    const folder = demoCopy();
    const dataDir = join(tempDir("sr-serve-data-"), "state");
    const first = await serve([folder, "--port", "0", "--data-dir", dataDir]);
    const before = await getJson<BundleList>(`${first.api}/bundles?limit=500`);
    expect(before.items.map((b) => b.slug).sort()).toEqual(DEMO_SLUGS);
    expect((await terminate(first)).code).toBe(0);

    expect(readFileSync(join(dataDir, ".gitignore"), "utf8").trim()).toBe("*");
    expect(existsSync(join(dataDir, "db"))).toBe(true);
    expect(existsSync(join(folder, ".spec-review"))).toBe(false);

    const again = await serve([folder, "--port", "0", "--data-dir", dataDir]);
    const after = await getJson<BundleList>(`${again.api}/bundles?limit=500`);
    const ids = (l: BundleList) =>
      l.items.map((b) => [b.slug, b.id, b.docs[0]!.current_version.number]).sort();
    expect(ids(after)).toEqual(ids(before));
    expect((await terminate(again)).code).toBe(0);
  }, 120_000);

  it("moves the data of an earlier version from <folder>/.spec-review to .spec-review/data, nothing lost", async () => {
    const folder = demoCopy();
    const legacy = join(folder, ".spec-review");
    // An earlier version kept its database, secret key and a .gitignore of * in .spec-review/ itself.
    const first = await serve([folder, "--port", "0", "--data-dir", legacy]);
    const before = await getJson<BundleList>(`${first.api}/bundles?limit=500`);
    expect((await terminate(first)).code).toBe(0);
    expect(existsSync(join(legacy, "db"))).toBe(true);
    expect(readFileSync(join(legacy, ".gitignore"), "utf8").trim()).toBe("*");
    const secret = readdirSync(legacy).includes("secret.key")
      ? readFileSync(join(legacy, "secret.key"))
      : undefined;
    // A committed profile sits beside the old data; it stays where it is.
    mkdirSync(join(legacy, "profiles"), { recursive: true });
    cpSync(join(root, "profiles", "adr"), join(legacy, "profiles", "adr"), { recursive: true });

    const again = await serve([folder, "--port", "0"]);
    expect(again.stderr()).toContain(`moved the data of an earlier version from ${legacy}`);
    const after = await getJson<BundleList>(`${again.api}/bundles?limit=500`);
    const ids = (l: BundleList) =>
      l.items.map((b) => [b.slug, b.id, b.docs[0]!.current_version.number]).sort();
    expect(ids(after)).toEqual(ids(before));
    expect((await terminate(again)).code).toBe(0);

    expect(readdirSync(legacy).sort()).toEqual(["data", "profiles"]);
    const data = join(legacy, "data");
    expect(existsSync(join(data, "db"))).toBe(true);
    expect(readFileSync(join(data, ".gitignore"), "utf8").trim()).toBe("*");
    if (secret) expect(readFileSync(join(data, "secret.key"))).toEqual(secret);
    expect(existsSync(join(legacy, "profiles", "adr", "profile.yaml"))).toBe(true);
  }, 180_000);

  it("refuses to start when the old and the new data folder both hold a database", () => {
    const folder = demoCopy();
    mkdirSync(join(folder, ".spec-review", "db"), { recursive: true });
    mkdirSync(join(folder, ".spec-review", "data", "db"), { recursive: true });
    const r = runCli("serve", folder, "--port", "0");
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/both .*\.spec-review and .*data hold db/);
    expect(existsSync(join(folder, ".spec-review", "db"))).toBe(true);
  }, 60_000);

  it("adds the folder's .spec-review/profiles to the built-ins; their templates are not bundles", async () => {
    const folder = demoCopy();
    const own = join(folder, ".spec-review", "profiles");
    mkdirSync(own, { recursive: true });
    // A new doc type, and a prd of the repository's own that replaces the built-in.
    cpSync(join(root, "profiles", "design"), join(own, "runbook"), { recursive: true });
    const yaml = join(own, "runbook", "profile.yaml");
    writeFileSync(yaml, readFileSync(yaml, "utf8").replace(/^key: design$/m, "key: runbook"));
    cpSync(join(root, "profiles", "prd"), join(own, "prd"), { recursive: true });
    const prdYaml = join(own, "prd", "profile.yaml");
    writeFileSync(prdYaml, readFileSync(prdYaml, "utf8").replace(/^title: .*$/m, "title: Our PRD"));
    mkdirSync(join(folder, "ops", "pager"), { recursive: true });
    writeFileSync(
      join(folder, "ops", "pager", "pager.md"),
      "---\ntype: runbook\n---\n# Pager rotation\n\n## Context\n\nWho answers at night.\n",
    );

    const s = await serve([folder, "--port", "0"]);
    const runbook = await getJson<{ key: string; builtin: boolean }>(`${s.api}/profiles/runbook`);
    expect(runbook).toMatchObject({ key: "runbook", builtin: false });
    const prd = await getJson<{ title: string; builtin: boolean; current_version: { created_by: string } }>(
      `${s.api}/profiles/prd`,
    );
    expect(prd).toMatchObject({
      title: "Our PRD",
      builtin: true,
      current_version: { created_by: "repository" },
    });
    expect(await slugs(s.api)).toEqual([...DEMO_SLUGS, "ops/pager"].sort());
    const list = await getJson<BundleList>(`${s.api}/bundles?limit=500`);
    expect(list.items.find((b) => b.slug === "ops/pager")?.docs[0]?.profile_key).toBe("runbook");
    expect((await terminate(s)).code).toBe(0);
  }, 120_000);

  it("records an edit made on disk as a version by local, found by the watcher", async () => {
    const folder = demoCopy();
    const s = await serve([folder, "--port", "0"]);
    const checkoutDoc = async () =>
      (await getJson<BundleList>(`${s.api}/bundles?limit=500`)).items.find((b) => b.slug === "checkout")!
        .docs[0]!;
    const doc = await checkoutDoc();
    expect(doc.current_version.number).toBe(1);

    const file = join(folder, "checkout", doc.path);
    writeFileSync(file, readFileSync(file, "utf8") + "\n## Edited on disk\n\nA line from an editor.\n");

    // GET /bundles reads the records only (no refresh from the disk), so only the watcher
    // can move the version here.
    let current = doc;
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline && current.current_version.number === 1) {
      await new Promise((r) => setTimeout(r, 200));
      current = await checkoutDoc();
    }
    expect(current.current_version.number).toBe(2);
    const versions = await getJson<VersionList>(`${s.api}/docs/${doc.id}/versions`);
    expect(versions.items.map((v) => [v.number, v.created_by])).toEqual([
      [2, "local"],
      [1, "local"],
    ]);
    const content = await fetch(`${s.api}/docs/${doc.id}/files/content?path=${doc.path}`, {
      signal: AbortSignal.timeout(10_000),
    });
    expect(await content.text()).toContain("A line from an editor.");
    expect((await terminate(s)).code).toBe(0);
  }, 120_000);

  it("still sees an edit on disk after a save through the API to the same file", async () => {
    const folder = demoCopy();
    const s = await serve([folder, "--port", "0"]);
    const checkoutDoc = async () =>
      (await getJson<BundleList>(`${s.api}/bundles?limit=500`)).items.find((b) => b.slug === "checkout")!
        .docs[0]!;
    const doc = await checkoutDoc();
    const file = join(folder, "checkout", doc.path);
    const text = readFileSync(file, "utf8");
    const put = await fetch(
      `${s.api}/docs/${doc.id}/files/content?path=${doc.path}&base_version=${(await getJson<{ current_version: { id: string } }>(`${s.api}/docs/${doc.id}`)).current_version.id}`,
      { method: "PUT", body: text + "\nSaved through the API.\n", signal: AbortSignal.timeout(20_000) },
    );
    expect(put.status).toBe(200);
    expect(readFileSync(file, "utf8")).toContain("Saved through the API.");

    await new Promise((r) => setTimeout(r, 300));
    writeFileSync(file, text + "\nThen edited on disk.\n");
    let current = await checkoutDoc();
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline && current.current_version.number < 3) {
      await new Promise((r) => setTimeout(r, 200));
      current = await checkoutDoc();
    }
    expect(current.current_version.number).toBe(3);
    const versions = await getJson<VersionList>(`${s.api}/docs/${doc.id}/versions`);
    expect(versions.items.map((v) => [v.number, v.created_by])).toEqual([
      [3, "local"],
      [2, "admin"],
      [1, "local"],
    ]);
    expect((await terminate(s)).code).toBe(0);
  }, 120_000);

  it.skipIf(!process.env.TEST_DATABASE_URL)(
    "uses the Postgres server of DATABASE_URL instead of the embedded database",
    async () => {
      const { default: postgres } = await import("postgres");
      const base = process.env.TEST_DATABASE_URL!;
      const name = `sr_cli_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;
      const admin = postgres(base, { max: 1, onnotice: () => {} });
      await admin.unsafe(`CREATE DATABASE ${name}`);
      await admin.end();
      cleanups.push(async () => {
        const a = postgres(base, { max: 1, onnotice: () => {} });
        await a.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await a.end();
      });
      const url = new URL(base);
      url.pathname = "/" + name;

      const folder = demoCopy();
      const s = await serve([folder, "--port", "0"], { DATABASE_URL: url.toString() });
      expect(await slugs(s.api)).toEqual(DEMO_SLUGS);
      // The records live in Postgres: no embedded database in the data dir.
      expect(existsSync(join(folder, ".spec-review", "db"))).toBe(false);
      expect((await terminate(s)).code).toBe(0);

      const check = postgres(url.toString(), { max: 1, onnotice: () => {} });
      try {
        const rows = await check<{ n: number }[]>`select count(*)::int as n from bundles`;
        expect(rows[0]!.n).toBe(DEMO_SLUGS.length);
      } finally {
        await check.end();
      }
    },
    120_000,
  );
});
