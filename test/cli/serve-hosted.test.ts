/**
 * `spec-review serve --hosted` as a subprocess: the refusals at start (no secret key, a
 * folder, a non-loopback --host without --public-url, a bad public URL), and a running
 * hosted server on embedded PGlite in a temp data dir and on Postgres (TEST_DATABASE_URL):
 * `/meta` says hosted, everything but the public routes is 401 until someone signs in, and
 * the Host and Origin checks answer the public URL. What a signed-in caller does on a
 * hosted server is tested through the app (test/server/hosted.test.ts).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { packageRoot } from "../../node/package.js";
import { freshPostgres } from "../helpers/app.js";

const root = packageRoot();
const main = join(root, "cli", "main.ts");
const KEY = randomBytes(32).toString("base64");
const PUBLIC = "http://specs.example.test";

/** The CLI's environment: no DATABASE_URL, PUBLIC_URL or secret key unless a test gives them. */
function cliEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of ["DATABASE_URL", "PUBLIC_URL", "SPEC_REVIEW_SECRET_KEY", "LOG_LEVEL"]) delete env[k];
  return { ...env, ...extra };
}

const procs = new Set<ChildProcess>();
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
  procs.clear();
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "sr-hosted-"));
  cleanups.push(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

function runCli(args: string[], env: Record<string, string>) {
  const r = spawnSync(process.execPath, ["--import", "tsx", main, "serve", ...args], {
    cwd: root,
    env: cliEnv(env),
    encoding: "utf8",
    timeout: 60_000,
  });
  return { code: r.status, stderr: r.stderr };
}

interface Served {
  proc: ChildProcess;
  /** What the start line names: the public URL's API, and where it listens. */
  shown: string;
  port: number;
  exited: Promise<number | null>;
}

/** Start `serve --hosted` and wait (bounded) for the line that says where it listens. */
function serveHosted(args: string[], env: Record<string, string>): Promise<Served> {
  const proc = spawn(process.execPath, ["--import", "tsx", main, "serve", "--hosted", ...args], {
    cwd: root,
    env: cliEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  procs.add(proc);
  proc.stdout.resume();
  const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
  let err = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill("SIGKILL");
      reject(new Error(`serve --hosted did not say where it listens:\n${err}`));
    }, 240_000);
    proc.stderr.setEncoding("utf8");
    proc.stderr.on("data", (chunk: string) => {
      err += chunk;
      const m =
        /spec-review serving hosted mode at (\S+)\/api\/v1 .*listening on http:\/\/127\.0\.0\.1:(\d+)\)/.exec(
          err,
        );
      if (m) {
        clearTimeout(timer);
        resolve({ proc, shown: m[1]!, port: Number(m[2]), exited });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`serve --hosted exited (${code}) before listening:\n${err}`));
    });
  });
}

/** One request with the headers given (Host included, which fetch does not let a caller set). */
function call(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method, path: `/api/v1${path}`, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }),
      );
    });
    req.on("error", reject);
    req.setTimeout(20_000, () => req.destroy(new Error(`${method} ${path} timed out`)));
    req.end();
  });
}

async function stop(s: Served): Promise<number | null> {
  s.proc.kill("SIGTERM");
  return s.exited;
}

/** What a running hosted server answers, whatever its database. */
async function expectHosted(s: Served): Promise<void> {
  const meta = await call(s.port, "GET", "/meta");
  expect(meta).toMatchObject({ status: 200, body: { mode: "hosted" } });
  expect((await call(s.port, "GET", "/me")).body).toEqual({ signed_in: false, mode: "hosted" });
  // Nobody can sign in yet: everything but the public routes asks for it.
  for (const [method, path] of [
    ["GET", "/bundles"],
    ["POST", "/bundles"],
    ["GET", "/admin/settings"],
    ["GET", "/profiles"],
  ] as const)
    expect(await call(s.port, method, path), `${method} ${path}`).toMatchObject({
      status: 401,
      body: { code: "unauthenticated" },
    });
}

describe("spec-review serve --hosted: refusals at start", () => {
  it("refuses without SPEC_REVIEW_SECRET_KEY, saying what to set", () => {
    const r = runCli(["--hosted", "--port", "0", "--data-dir", tempDir()], {});
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/SPEC_REVIEW_SECRET_KEY is not set/);
    expect(r.stderr).toMatch(/openssl rand -base64 32/);
  });

  it("refuses a key that is not 32 bytes", () => {
    const r = runCli(["--hosted", "--port", "0", "--data-dir", tempDir()], {
      SPEC_REVIEW_SECRET_KEY: randomBytes(16).toString("base64"),
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/SPEC_REVIEW_SECRET_KEY/);
  });

  it("refuses a folder: hosted mode serves none", () => {
    const r = runCli(["--hosted", tempDir()], { SPEC_REVIEW_SECRET_KEY: KEY });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/hosted mode serves no folder/);
  });

  it("refuses an address other than loopback without --public-url, and says so", () => {
    const r = runCli(["--hosted", "--host", "0.0.0.0", "--port", "0"], { SPEC_REVIEW_SECRET_KEY: KEY });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--host 0\.0\.0\.0 is not a loopback address: give --public-url/);
  });

  it.each([["ftp://specs.example.test"], ["specs.example.test"], ["https://user:pw@specs.example.test"]])(
    "refuses the public URL %s",
    (url) => {
      const r = runCli(["--hosted", "--public-url", url], { SPEC_REVIEW_SECRET_KEY: KEY });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--public-url/);
    },
  );
});

describe("spec-review serve --hosted: running", () => {
  it("serves hosted mode on PGlite in the data dir; the public URL's Host and Origin are answered", async () => {
    const data = tempDir();
    const s = await serveHosted(["--port", "0", "--data-dir", data, "--public-url", `${PUBLIC}/`], {
      SPEC_REVIEW_SECRET_KEY: KEY,
    });
    expect(s.shown).toBe(PUBLIC);
    expect(existsSync(join(data, "db", "PG_VERSION"))).toBe(true);
    await expectHosted(s);
    // The public URL's host is answered (a proxy passing it on), another host is not.
    expect(await call(s.port, "GET", "/meta", { host: "specs.example.test" })).toMatchObject({ status: 200 });
    expect(await call(s.port, "GET", "/meta", { host: "specs.example.test:80" })).toMatchObject({
      status: 200,
    });
    expect(await call(s.port, "GET", "/meta", { host: "specs.example.test:8443" })).toMatchObject({
      status: 421,
      body: { code: "misdirected_request" },
    });
    expect(await call(s.port, "GET", "/meta", { host: "attacker.example" })).toMatchObject({
      status: 421,
      body: { code: "misdirected_request" },
    });
    // A write from the public URL's pages passes the origin check (and then needs a sign-in);
    // one from another origin is refused first.
    expect(
      await call(s.port, "POST", "/bundles", { host: "specs.example.test", origin: PUBLIC }),
    ).toMatchObject({ status: 401, body: { code: "unauthenticated" } });
    expect(
      await call(s.port, "POST", "/bundles", {
        host: "specs.example.test",
        origin: "http://attacker.example",
      }),
    ).toMatchObject({ status: 403, body: { code: "cross_origin" } });
    expect(await stop(s)).toBe(0);
  }, 600_000);

  it("takes PUBLIC_URL from the environment; without one, only loopback names are answered", async () => {
    const s = await serveHosted(["--port", "0", "--data-dir", tempDir()], {
      SPEC_REVIEW_SECRET_KEY: KEY,
      PUBLIC_URL: "https://specs.example.test",
    });
    expect(s.shown).toBe("https://specs.example.test");
    expect(await call(s.port, "GET", "/meta", { host: "specs.example.test:443" })).toMatchObject({
      status: 200,
    });
    expect(await stop(s)).toBe(0);

    const bare = await serveHosted(["--port", "0", "--data-dir", tempDir()], { SPEC_REVIEW_SECRET_KEY: KEY });
    expect(await call(bare.port, "GET", "/meta", { host: `localhost:${bare.port}` })).toMatchObject({
      status: 200,
    });
    expect(await call(bare.port, "GET", "/meta", { host: "specs.example.test" })).toMatchObject({
      status: 421,
    });
    expect(await stop(bare)).toBe(0);
  }, 600_000);

  it.skipIf(!process.env.TEST_DATABASE_URL)(
    "serves hosted mode on the Postgres server of DATABASE_URL, nothing in the data dir",
    async () => {
      const pg = await freshPostgres();
      cleanups.push(pg.drop);
      const data = tempDir();
      const s = await serveHosted(["--port", "0", "--data-dir", data], {
        SPEC_REVIEW_SECRET_KEY: KEY,
        DATABASE_URL: pg.url,
      });
      await expectHosted(s);
      expect(existsSync(join(data, "db"))).toBe(false);
      expect(await stop(s)).toBe(0);
      // Migrations ran on that database: its tables are there, with no bundle yet.
      const { default: postgres } = await import("postgres");
      const check = postgres(pg.url, { max: 1, onnotice: () => {} });
      try {
        const rows = await check<{ n: number }[]>`select count(*)::int as n from bundles`;
        expect(rows[0]!.n).toBe(0);
      } finally {
        await check.end();
      }
    },
    600_000,
  );
});
