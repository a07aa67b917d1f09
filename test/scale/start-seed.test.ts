/**
 * Several instances starting at once on one empty database (issue 28): the seed (built-in
 * profiles and their first versions, the first admin invite) runs under the migrations'
 * lock and idempotently, so every instance comes up serving, and the workspace gets one
 * admin invite. A newer build starting on a database an older one seeded adds a profile
 * version only for a built-in that changed, once, however many instances start with it.
 * Needs TEST_DATABASE_URL (skipped without it: several instances need a server).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { appendFileSync, cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface, type Interface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshPostgres } from "../helpers/app.js";
import { silentLogger } from "../../server/deps.js";
import { createServices, type Services } from "../../server/services.js";
import { BUILTIN_PROFILES } from "./instances.js";

const PG = process.env.TEST_DATABASE_URL;
const ROOT = resolve(import.meta.dirname, "../..");
const INSTANCES = 5;
const ROUNDS = 10;

/** One process of test/scale/start-main.ts: starts hosted spec-review on the database it is told. */
interface Child {
  proc: ChildProcess;
  lines: Interface;
  ask(message: object): Promise<Record<string, unknown>>;
}

function spawnChild(secretKey: string): Child {
  const proc = spawn(process.execPath, ["--import", "tsx", resolve(import.meta.dirname, "start-main.ts")], {
    cwd: ROOT,
    env: { ...process.env, SPEC_REVIEW_SECRET_KEY: secretKey, DATABASE_POOL_MAX: "4" },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const lines = createInterface({ input: proc.stdout });
  const queue: Array<(v: Record<string, unknown>) => void> = [];
  lines.on("line", (line) => queue.shift()?.(JSON.parse(line) as Record<string, unknown>));
  return {
    proc,
    lines,
    ask: (message) =>
      new Promise((ok, fail) => {
        const exited = () => fail(new Error(`start-main exited (${proc.exitCode})`));
        proc.once("exit", exited);
        queue.push((v) => {
          proc.off("exit", exited);
          ok(v);
        });
        proc.stdin.write(JSON.stringify(message) + "\n");
      }),
  };
}

async function count(url: string, query: string): Promise<number> {
  const { default: postgres } = await import("postgres");
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql.unsafe<Array<{ n: number }>>(query);
    return row!.n;
  } finally {
    await sql.end();
  }
}

describe.skipIf(!PG)("instances starting at once on an empty database", () => {
  const children: Child[] = [];

  beforeAll(() => {
    const key = randomBytes(32).toString("base64");
    for (let i = 0; i < INSTANCES; i++) children.push(spawnChild(key));
  });
  afterAll(() => {
    for (const c of children) c.proc.kill("SIGKILL");
  });

  it(`${ROUNDS} rounds of ${INSTANCES} instances: every one serves, with one seed and one admin invite`, async () => {
    for (let round = 1; round <= ROUNDS; round++) {
      const pg = await freshPostgres();
      try {
        // Told in the same turn: the five starts race on the migrations and the seed.
        const started = await Promise.all(children.map((c) => c.ask({ start: pg.url })));
        for (const s of started) expect(s.error, `round ${round}`).toBeUndefined();
        for (const s of started) {
          const ready = await fetch(`${s.url as string}/readyz`);
          expect(ready.status, `round ${round}`).toBe(200);
        }
        // One admin invite for the workspace: the first start makes it, the others say it is open.
        const startup = started.map((s) => s.startup as Record<string, unknown>);
        expect(
          startup.filter((r) => typeof r.admin_invite === "string"),
          `round ${round}`,
        ).toHaveLength(1);
        expect(startup.filter((r) => typeof r.admin_invite_open_since === "string")).toHaveLength(
          INSTANCES - 1,
        );
        expect(await count(pg.url, "select count(*)::int as n from invites")).toBe(1);
        const profiles = await count(pg.url, "select count(*)::int as n from profiles");
        expect(profiles).toBeGreaterThan(0);
        expect(await count(pg.url, "select count(*)::int as n from profile_versions")).toBe(profiles);
        await Promise.all(children.map((c) => c.ask({ close: true })));
      } finally {
        await pg.drop();
      }
    }
  }, 600_000);
});

describe.skipIf(!PG)("a newer build starting on a database an older one seeded", () => {
  let pg: { url: string; drop: () => Promise<void> };
  const dirs: string[] = [];
  const secretKey = randomBytes(32);

  beforeAll(async () => {
    pg = await freshPostgres();
  });
  afterAll(async () => {
    await pg?.drop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  /** `n` instances started together with these built-in profiles, then stopped. */
  async function startTogether(n: number, profilesDir: string): Promise<void> {
    const started = await Promise.allSettled(
      Array.from({ length: n }, () =>
        createServices({
          mode: "hosted",
          database: pg.url,
          secretKey,
          logger: silentLogger,
          profilesDir,
          serverVersion: "0.0.0-test",
        }),
      ),
    );
    const up = started.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
    await Promise.all(up.map((s: Services) => s.close()));
    for (const s of started) if (s.status === "rejected") throw s.reason;
  }

  const versions = (key?: string) =>
    count(pg.url, `select count(*)::int as n from profile_versions${key ? ` where key = '${key}'` : ""}`);

  it("adds no version for unchanged profiles, and exactly one for a changed built-in", async () => {
    await startTogether(1, BUILTIN_PROFILES);
    const seeded = await versions();
    expect(seeded).toBeGreaterThan(0);

    // The same build again, several instances at once: nothing new.
    await startTogether(INSTANCES, BUILTIN_PROFILES);
    expect(await versions()).toBe(seeded);

    // A newer build whose adr profile changed: one version, whoever of the five writes it.
    const newer = mkdtempSync(join(tmpdir(), "sr-profiles-"));
    dirs.push(newer);
    cpSync(BUILTIN_PROFILES, newer, { recursive: true });
    appendFileSync(join(newer, "adr", "profile.yaml"), "\n# changed in a newer release\n");
    await startTogether(INSTANCES, newer);
    expect(await versions()).toBe(seeded + 1);
    expect(await versions("adr")).toBe(2);
    expect(await count(pg.url, "select head_number as n from profiles where key = 'adr'")).toBe(2);

    // And that build started again: still one.
    await startTogether(INSTANCES, newer);
    expect(await versions()).toBe(seeded + 1);
  }, 120_000);
});
