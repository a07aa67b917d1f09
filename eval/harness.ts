/**
 * The review eval's service: the same app and worker `spec-review serve` runs, in process on
 * an embedded PGlite, serving a working copy of `fixtures/eval`. Every bundle is reviewed
 * through `POST /docs/{docId}/runs`, exactly as a user's would be.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { createApp } from "../server/app.js";
import { silentLogger } from "../server/deps.js";
import { createServices } from "../server/services.js";
import type { EvalFinding } from "./scoring.js";

export interface ModelTarget {
  baseUrl: string;
  /** One model for the three roles. */
  model: string;
  /** The API key ("none" for servers that need none). */
  secret: string;
}

export interface HarnessOptions {
  /** A folder of bundles (copied; the copy is served). */
  corpus: string;
  /** The built-in profiles folder (copied when `readers` is set). */
  profiles: string;
  /** Readers per question for every profile (default: each profile's own). */
  readers?: number;
  parallel: number;
  /** Per model call, in ms. */
  callTimeoutMs?: number;
}

export interface RunResult {
  bundle: string;
  run_id: string;
  status: string;
  error?: string;
  findings: EvalFinding[];
  calls: number;
  tokens_in: number;
  tokens_out: number;
  answers_by_stage: Record<string, Record<string, number>>;
  wall_ms: number;
}

type Json = Record<string, unknown>;

export async function openHarness(opts: HarnessOptions) {
  const root = mkdtempSync(join(tmpdir(), "sr-eval-"));
  const served = join(root, "bundles");
  cpSync(opts.corpus, served, { recursive: true });
  let profilesDir = opts.profiles;
  if (opts.readers !== undefined) {
    profilesDir = join(root, "profiles");
    cpSync(opts.profiles, profilesDir, { recursive: true });
    for (const key of readdirSync(profilesDir)) {
      const file = join(profilesDir, key, "profile.yaml");
      try {
        const text = readFileSync(file, "utf8");
        writeFileSync(file, text.replace(/^(\s+readers:)\s*\d+\s*$/m, `$1 ${opts.readers}`));
      } catch {
        // not a profile folder
      }
    }
  }
  // The same service graph as `spec-review serve`, on an embedded in-memory database.
  const services = await createServices({
    mode: "local",
    folder: served,
    database: "memory://",
    secretKey: randomBytes(32),
    logger: silentLogger,
    profilesDir,
    serverVersion: "eval",
    worker: { pollMs: 20, concurrency: 2 },
    ...(opts.callTimeoutMs ? { models: { callTimeoutMs: opts.callTimeoutMs } } : {}),
  });
  const { profiles } = services;
  const app = createApp(services);

  const call = async (method: string, path: string, body?: unknown): Promise<Json> => {
    const res = await app.request("/api/v1" + path, {
      method,
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return (text ? JSON.parse(text) : {}) as Json;
  };

  return {
    profileKeys: () => profiles.list().map((p) => p.key),

    async configure(target: ModelTarget): Promise<void> {
      const backend = await call("POST", "/admin/backends", {
        kind: "provider_1",
        name: "eval",
        base_url: target.baseUrl,
        secret: target.secret,
      });
      for (const role of ["reviewer", "reader", "judge"])
        await call("PUT", `/admin/roles/${role}`, { backend_id: backend["id"], model: target.model });
      const settings = await call("GET", "/admin/settings");
      await call("PUT", "/admin/settings", { ...settings, parallel_calls: opts.parallel });
    },

    /** Doc id by bundle slug. */
    async docs(): Promise<Map<string, string>> {
      const list = await call("GET", "/bundles?limit=200");
      const out = new Map<string, string>();
      for (const b of list["items"] as Json[]) {
        const doc = (b["docs"] as Json[])[0];
        if (doc) out.set(String(b["slug"]), String(doc["id"]));
      }
      return out;
    },

    /** What a full review of the doc would cost (GET /docs/{docId}/runs/estimate). */
    estimate: (docId: string) => call("GET", `/docs/${docId}/runs/estimate`),

    /** Review one doc through POST /docs/{docId}/runs and wait for the run's end. */
    async review(bundle: string, docId: string, timeoutMs: number): Promise<RunResult> {
      const t0 = performance.now();
      const queued = await call("POST", `/docs/${docId}/runs`);
      const runId = String(queued["id"]);
      let run: Json;
      for (;;) {
        run = await call("GET", `/runs/${runId}`);
        if (run["status"] === "done" || run["status"] === "failed") break;
        if (performance.now() - t0 > timeoutMs)
          throw new Error(`${bundle}: run ${runId} still ${String(run["status"])}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      const wall_ms = Math.round(performance.now() - t0);
      const found = await call("GET", `/runs/${runId}/findings?limit=200`);
      const report = await call("GET", `/runs/${runId}/report`);
      const findings = (found["items"] as Json[]).map((f) => {
        const anchor = (f["anchor"] ?? {}) as Json;
        return {
          id: String(f["id"]),
          stage: String(f["stage"]),
          check: String(f["check_slug"]),
          level: String(f["level"]),
          message: String(f["message"]),
          heading_path: (anchor["heading_path"] as string[] | undefined) ?? [],
          quote: typeof anchor["quote"] === "string" ? anchor["quote"] : "",
        };
      });
      return {
        bundle,
        run_id: runId,
        status: String(run["status"]),
        ...(typeof run["error"] === "string" ? { error: run["error"] } : {}),
        findings,
        calls: Number(report["calls"] ?? 0),
        tokens_in: Number(report["tokens_in"] ?? 0),
        tokens_out: Number(report["tokens_out"] ?? 0),
        answers_by_stage: (report["answers_by_stage"] ?? {}) as Record<string, Record<string, number>>,
        wall_ms,
      };
    },

    async close(): Promise<void> {
      await services.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
