/**
 * The container as the Dockerfile makes it, without a container runtime (none runs on
 * these machines): the final stage's `COPY --from=build` paths are copied from the built
 * tree into an empty folder (node_modules linked), and the image's ENTRYPOINT + CMD run
 * there as its user would, on a test Postgres: it serves hosted mode, answers /healthz,
 * /readyz and /metrics, logs JSON lines with request ids and no secret, and stops cleanly
 * on SIGTERM. Needs the build (`npm run build`: CI builds first) and TEST_DATABASE_URL.
 */
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { freshPostgres } from "../helpers/app.js";

const ROOT = resolve(import.meta.dirname, "../..");
const PG = process.env.TEST_DATABASE_URL;
const BUILT = existsSync(join(ROOT, "dist/cli/main.js"));
const DOCKERFILE = readFileSync(join(ROOT, "Dockerfile"), "utf8");

/** The final stage of the Dockerfile: its COPY sources, user, entrypoint and command. */
function finalStage() {
  const stages = DOCKERFILE.split(/^FROM /m);
  const last = stages.at(-1)!;
  const copies = [...last.matchAll(/^COPY --from=build \/app\/(\S+) \.\/(\S+)$/gm)].map((m) => ({
    from: m[1]!,
    to: m[2]!,
  }));
  const json = (key: string) =>
    JSON.parse(new RegExp(`^${key} (\\[.*\\])$`, "m").exec(last)![1]!) as string[];
  return { copies, user: /^USER (\S+)$/m.exec(last)?.[1], entrypoint: json("ENTRYPOINT"), cmd: json("CMD") };
}

function freePort(): Promise<number> {
  return new Promise((ok) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => ok(port));
    });
  });
}

describe("the Dockerfile", () => {
  it("is multi-stage, runs as a non-root user, ships the built output and the dashboard's, and stays short", () => {
    const stage = finalStage();
    expect(DOCKERFILE.match(/^FROM /gm)).toHaveLength(2);
    expect(stage.user).toBeDefined();
    expect(stage.user).not.toMatch(/^(root|0)$/);
    expect(stage.copies.map((c) => c.from)).toEqual(
      expect.arrayContaining(["dist", "node_modules", "server/db/migrations", "profiles", "package.json"]),
    );
    expect(stage.entrypoint).toEqual(["node", "dist/cli/main.js"]);
    expect(DOCKERFILE.split("\n").length).toBeLessThan(40);
  });
});

describe.skipIf(!PG || !BUILT)("the image's entry command on the built output", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("serves hosted mode on Postgres: healthz, readyz, metrics, JSON logs with request ids; SIGTERM stops it", async () => {
    const pg = await freshPostgres();
    const app = mkdtempSync(join(tmpdir(), "sr-image-"));
    dirs.push(app);
    const stage = finalStage();
    for (const c of stage.copies) {
      if (c.from === "node_modules") symlinkSync(join(ROOT, "node_modules"), join(app, c.to), "dir");
      else cpSync(join(ROOT, c.from), join(app, c.to), { recursive: true });
    }
    // The image listens on 8787; here a free port (the one thing changed: a shared machine).
    const port = await freePort();
    const cmd = stage.cmd.map((a, i) => (stage.cmd[i - 1] === "--port" ? String(port) : a));
    const secret = randomBytes(32).toString("base64");
    const proc = spawn(process.execPath, [...stage.entrypoint.slice(1), ...cmd], {
      cwd: app,
      env: {
        PATH: process.env.PATH,
        HOME: app,
        NODE_ENV: "production",
        DATABASE_URL: pg.url,
        SPEC_REVIEW_SECRET_KEY: secret,
        PUBLIC_URL: `http://localhost:${port}`,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    proc.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((r) => proc.once("exit", (code) => r(code)));
    try {
      const base = `http://127.0.0.1:${port}`;
      let ready: Response | undefined;
      for (let i = 0; i < 300; i++) {
        ready = await fetch(`${base}/readyz`).catch(() => undefined);
        if (ready?.status === 200) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(ready?.status, stderr).toBe(200);
      expect(await ready!.json()).toMatchObject({
        status: "ready",
        checks: { database: "ok", migrations: "ok" },
      });
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      const listed = await fetch(`${base}/api/v1/bundles`, { headers: { "x-request-id": "probe-123" } });
      expect(listed.headers.get("x-request-id")).toBe("probe-123");
      const metrics = await (await fetch(`${base}/metrics`)).text();
      expect(metrics).toContain("spec_review_http_request_duration_seconds_bucket");
      expect(metrics).toContain("spec_review_queue_depth 0");
      expect(metrics).toContain("spec_review_process_resident_memory_bytes");
      proc.kill("SIGTERM");
      expect(await exited).toBe(0);
      const lines = stderr
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines.find((l) => l.msg === "listening")).toMatchObject({ level: "info", mode: "hosted" });
      expect(lines.find((l) => l.msg === "request" && l.req_id === "probe-123")).toMatchObject({
        route: "/api/v1/bundles",
        status: expect.any(Number) as number,
      });
      expect(lines.find((l) => l.msg === "stopped")).toBeDefined();
      expect(stderr).not.toContain(secret);
    } finally {
      if (proc.exitCode === null) proc.kill("SIGKILL");
      await pg.drop();
    }
  }, 120_000);
});
