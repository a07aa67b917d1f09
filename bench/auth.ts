/**
 * npm run bench:auth
 *
 * What authentication costs a request. In one run, on in-memory PGlite, with the demo
 * bundles served by two graphs of this process (local mode and hosted mode, each on its
 * own port), loads GET /api/v1/bundles with autocannon:
 *   1. local mode (no sign-in: the baseline);
 *   2. hosted mode, a signed-in member's session cookie;
 *   3. hosted mode, the same member's API token (Authorization: Bearer);
 * and prints each p50/p99 and the difference to the baseline. Aim: authentication adds
 * under 1 ms p50. Sign-in itself is slow on purpose (scrypt, N = 2^15, 32 MiB): its time,
 * one at a time, is printed too.
 *
 * Options: --seconds N (10 per load), --connections N (10), --sign-ins N (10).
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, sep } from "node:path";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { serve } from "@hono/node-server";
import { createApp } from "../server/app.js";
import { createServices, type Services } from "../server/services.js";
import { packageRoot } from "../server/paths.js";
import { load, quantile, statusText, warmUp, type LoadFigures } from "./lib/load.js";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "10" },
    connections: { type: "string", default: "10" },
    "sign-ins": { type: "string", default: "10" },
  },
});
const SECONDS = Number(values.seconds);
const CONNECTIONS = Number(values.connections);
const SIGN_INS = Number(values["sign-ins"]);
const PASSWORD = "load test passphrase 2026";

async function listen(services: Services): Promise<{ url: string; close: () => Promise<void> }> {
  const app = createApp(services);
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
  });
  const port = (server.address() as AddressInfo).port;
  return {
    // The app answers only loopback names; `localhost` keeps the Host header one of them.
    url: `http://localhost:${port}/api/v1`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

async function graph(mode: "local" | "hosted", folder: string): Promise<Services> {
  const services = await createServices({
    mode,
    ...(mode === "local" ? { folder } : {}),
    database: "memory://",
    secretKey: new Uint8Array(32).fill(7),
  });
  if (mode === "hosted") {
    // The same bundles, held in the database: each top-level folder of the demo added as it is.
    for (const name of readdirSync(folder)) {
      if (name.startsWith(".") || !statSync(join(folder, name)).isDirectory()) continue;
      const files = new Map<string, Uint8Array>();
      for (const rel of readdirSync(join(folder, name), { recursive: true, encoding: "utf8" })) {
        const path = join(folder, name, rel);
        if (statSync(path).isFile()) files.set(rel.split(sep).join("/"), readFileSync(path));
      }
      // A folder with no spec doc (notes) is skipped in local mode too.
      await services.store.addFolder(name, files, { author: "bench" }).catch((err: unknown) => {
        if ((err as { code?: string }).code !== "no_spec_doc") throw err;
      });
    }
    await services.runs.idle();
  }
  return services;
}

function row(name: string, f: LoadFigures, base?: LoadFigures): string {
  const delta = base ? `  (+${(f.p50 - base.p50).toFixed(2)} ms p50 vs local)` : "";
  return `${name.padEnd(28)} p50 ${f.p50.toFixed(2).padStart(6)} ms  p99 ${f.p99.toFixed(2).padStart(6)} ms  ${Math.round(f.rps)} req/s  [${statusText(f)}]${delta}`;
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), "sr-bench-auth-"));
  const demo = join(packageRoot(), "fixtures", "demo");
  cpSync(demo, join(root, "local"), { recursive: true });
  cpSync(demo, join(root, "hosted"), { recursive: true });
  const local = await graph("local", join(root, "local"));
  const hosted = await graph("hosted", join(root, "hosted"));
  const l = await listen(local);
  const h = await listen(hosted);
  try {
    // A member: invited, signed up, with a token.
    const invite = await hosted.accounts.createInvite("member", "bench");
    const token = invite.url.split("/invite/")[1]!;
    const signedUp = await fetch(`${h.url}/auth/signup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token, name: "Bench", email: "bench@example.com", password: PASSWORD }),
    });
    if (signedUp.status !== 201) throw new Error(`sign-up: ${signedUp.status} ${await signedUp.text()}`);
    const cookie = signedUp.headers.getSetCookie()[0]!.split(";")[0]!;
    const made = await fetch(`${h.url}/me/tokens`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie, origin: new URL(h.url).origin },
      body: JSON.stringify({ name: "bench" }),
    });
    const apiToken = ((await made.json()) as { token: string }).token;

    // Sign-in, one at a time.
    const signIns: number[] = [];
    for (let i = 0; i < SIGN_INS; i++) {
      const t0 = performance.now();
      const res = await fetch(`${h.url}/auth/sign-in`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "bench@example.com", password: PASSWORD }),
      });
      if (res.status !== 200) throw new Error(`sign-in: ${res.status} ${await res.text()}`);
      signIns.push(performance.now() - t0);
    }
    signIns.sort((a, b) => a - b);

    const opts = (url: string, headers: Record<string, string> = {}) => ({
      url: `${url}/bundles`,
      connections: CONNECTIONS,
      seconds: SECONDS,
      requests: [{ method: "GET" as const, headers }],
    });
    const runs: Array<[string, ReturnType<typeof opts>]> = [
      ["local mode (no sign-in)", opts(l.url)],
      ["hosted, session cookie", opts(h.url, { cookie })],
      ["hosted, bearer token", opts(h.url, { authorization: `Bearer ${apiToken}` })],
    ];
    const figures: LoadFigures[] = [];
    for (const [, o] of runs) {
      await warmUp(o);
      figures.push(await load(o));
    }
    console.log(
      `GET /api/v1/bundles, ${CONNECTIONS} connections, ${SECONDS} s each (one process, in-memory PGlite)`,
    );
    runs.forEach(([name], i) => console.log(row(name, figures[i]!, i === 0 ? undefined : figures[0])));
    const worst = Math.max(figures[1]!.p50, figures[2]!.p50) - figures[0]!.p50;
    console.log(
      `authentication adds ${worst.toFixed(2)} ms p50 (aim: under 1 ms) ${worst < 1 ? "OK" : "OVER"}`,
    );
    console.log(
      `sign-in (scrypt N=2^15, r=8): p50 ${quantile(signIns, 0.5).toFixed(0)} ms, max ${signIns.at(-1)!.toFixed(0)} ms over ${SIGN_INS}, one at a time`,
    );
  } finally {
    await l.close();
    await h.close();
    await local.close();
    await hosted.close();
    rmSync(root, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
