/**
 * tsx bench/app-reconcile.ts [--bundles N] [--pushes N] [--pulls N]
 *
 * The App's reconciliation after an outage (app/reconcile.ts), against the local fake
 * GitHub over HTTP (test/helpers/fake-github.ts, its webhook deliveries from
 * test/helpers/fake-github-hooks.ts) on the real service graph (hosted, embedded PGlite),
 * the App on a real Probot reached over HTTP:
 *
 *   1. an outage GitHub kept the deliveries of: `pushes` pushes to the source's branch and
 *      `pulls` new pull requests, none delivered; one pass asks for them again;
 *   2. an outage longer than GitHub keeps deliveries: as many pushes and pull requests,
 *      whose deliveries are gone; one pass runs the safety net.
 *
 * Aim (issue 30): a pass's own calls (finding what was missed and asking for it: the
 * deliveries list, redeliveries; in the safety net the branch head, the pull request list
 * and each new pull request's files) are at most 1 + 1 per changed source or pull
 * request (the safety net: one more per repository, its list of pull requests),
 * conditional reads answered 304 aside (GitHub does not count them against the
 * rate limit); after the pass everything is in step, with no second check run, comment
 * or version. What a redelivery or a sync then does costs what its webhook costs: printed
 * apart. Exits 1 when an aim is missed.
 */
import { createServer } from "node:http";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { Probot } from "probot";
import specReview, { type AppDeps } from "../app/index.js";
import { appAuth } from "../app/main.js";
import { PullReviews } from "../app/pr-review.js";
import { Reconciler } from "../app/reconcile.js";
import { loggingThreadSink } from "../app/threads-port.js";
import { localAuthenticator } from "../server/auth/actor.js";
import { silentLogger } from "../server/deps.js";
import { packageRoot } from "../server/paths.js";
import { createServices } from "../server/services.js";
import { FakeGitHub, type FakeRepo } from "../test/helpers/fake-github.js";
import { FakeHooks } from "../test/helpers/fake-github-hooks.js";

export interface ReconcileBenchOptions {
  bundles?: number;
  pushes?: number;
  pulls?: number;
}

export interface PassFigures {
  /** The pass's own calls, all of them, and those GitHub counts (not a 304). */
  passCalls: number;
  passCounted: number;
  /** The aim: 1 + 1 per changed source or pull request. */
  aim: number;
  /** Every call until the redeliveries and syncs were done (the webhooks' work included). */
  totalCalls: number;
  ms: number;
  redelivered: number;
  checks: number;
  inStep: boolean;
  /** A second pass over the same state: its calls, and whether it added a check, comment or version. */
  secondPassCalls: number;
  duplicates: boolean;
}

export interface ReconcileBenchResult {
  withDeliveries: PassFigures;
  safetyNet: PassFigures;
}

const SECRET = "bench-reconcile-secret";

function prd(i: number, extra = ""): string {
  return [
    "---",
    "type: prd",
    "size: small",
    `title: Feature ${i}`,
    "---",
    `# Feature ${i}`,
    "",
    "## Problem",
    "",
    `Area ${i} is slow.`,
    "",
    "## Goals",
    "",
    `- F${i}-1: Results MUST appear within 300 ms.`,
    extra,
    "",
  ].join("\n");
}

const folder = (i: number) => `specs/f${String(i).padStart(4, "0")}`;

export async function runReconcileBench(o: ReconcileBenchOptions = {}): Promise<ReconcileBenchResult> {
  const BUNDLES = o.bundles ?? 50;
  const PUSHES = o.pushes ?? 20;
  const PULLS = o.pulls ?? 5;
  const gh = new FakeGitHub();
  await gh.start();
  const hooks = new FakeHooks(gh, SECRET);
  const repo = gh.addRepo("acme", "specs", { installationId: 42 });
  const files: Record<string, string> = { "README.md": "# Specs\n" };
  for (let i = 0; i < BUNDLES; i++) files[`${folder(i)}/prd.md`] = prd(i);
  let main = gh.commit(repo, files, { message: "Import specs" });
  const dir = mkdtempSync(join(tmpdir(), "bench-reconcile-"));
  const services = await createServices({
    mode: "hosted",
    database: join(dir, "db"),
    secretKey: randomBytes(32),
    auth: localAuthenticator(),
    repohost: { apiUrl: gh.url },
  });
  const probot = new Probot({
    appId: 123,
    privateKey: generateKeyPairSync("rsa", { modulusLength: 2048 })
      .privateKey.export({ type: "pkcs1", format: "pem" })
      .toString(),
    secret: SECRET,
    baseUrl: gh.url,
    logLevel: "fatal",
  });
  const pullReviews = new PullReviews({ db: services.db, clock: services.clock, logger: silentLogger });
  const deps: AppDeps = {
    db: services.db,
    clock: services.clock,
    logger: silentLogger,
    repohost: services.repohost!,
    threads: loggingThreadSink(silentLogger),
    builtinProfilesDir: join(packageRoot(), "profiles"),
    checkName: "Build Ready",
    serverUrl: "https://github.example",
    apiUrl: gh.url,
    review: services.review,
    budget: services.budget,
    pullReviews,
    profiles: services.profiles,
    metrics: services.metrics,
  };
  await probot.load(specReview(deps));
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      probot.webhooks
        .verifyAndReceive({
          id: String(req.headers["x-github-delivery"]),
          name: String(req.headers["x-github-event"]),
          payload: Buffer.concat(chunks).toString("utf8"),
          signature: String(req.headers["x-hub-signature-256"]),
        })
        .then(
          () => res.writeHead(200).end(),
          () => res.writeHead(500).end(),
        );
    });
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  hooks.target = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const source = await services.repohost!.create("https://github.com/acme/specs/tree/main/specs");
  let pullNo = 100;

  const repository = {
    id: 812345,
    name: "specs",
    full_name: "acme/specs",
    private: false,
    owner: { login: "acme" },
  };
  /** An outage: pushes to main and new pull requests, each sent while the App is down. */
  async function outage(r: FakeRepo, keep: boolean): Promise<number[]> {
    hooks.down = true;
    for (let i = 0; i < PUSHES; i++) {
      const before = main;
      const n = i % BUNDLES;
      main = gh.commit(
        r,
        { [`${folder(n)}/prd.md`]: prd(n, `\nEdit ${before.slice(0, 6)}.\n`) },
        { message: `Edit ${n}` },
      );
      await hooks.send("push", {
        ref: "refs/heads/main",
        before,
        after: main,
        deleted: false,
        repository,
        installation: { id: 42 },
        commits: [],
      });
    }
    const numbers: number[] = [];
    for (let i = 0; i < PULLS; i++) {
      const number = ++pullNo;
      const path = `${folder((i * 7) % BUNDLES)}/prd.md`;
      const head = gh.commit(
        r,
        { [path]: prd(i, `\nProposal ${number}.\n`) },
        { branch: `pr-${number}`, message: `Proposal ${number}` },
      );
      r.pulls.set(number, { files: [path], head });
      hooks.updatedAt.set(`acme/specs#${number}`, new Date().toISOString());
      numbers.push(number);
      await hooks.send("pull_request", {
        action: "opened",
        number,
        pull_request: { number, head: { sha: head, ref: `pr-${number}` }, base: { sha: main, ref: "main" } },
        repository,
        installation: { id: 42 },
      });
    }
    hooks.down = false;
    if (!keep) hooks.deliveries.length = 0; // GitHub no longer has them
    return numbers;
  }

  async function measure(r: Reconciler, numbers: number[]): Promise<PassFigures> {
    const checksBefore = gh.checkRuns.length;
    const from = gh.calls.length;
    const t0 = performance.now();
    const report = (await r.pass())!;
    await hooks.idle();
    await pullReviews.idle();
    const ms = performance.now() - t0;
    const calls = gh.since(from);
    const own = calls.filter(
      (c) =>
        c.path.startsWith("/app/hook/") ||
        (report.safetyNet &&
          (c.path.includes("/git/ref/heads/") ||
            /\/pulls\?/.test(c.path) ||
            /\/pulls\/\d+\/files/.test(c.path))),
    );
    // A safety net's sync reads the head once per source; the work after it is the sync's.
    const counted = own.filter((c) => c.status !== 304);
    const checks = gh.checkRuns.length - checksBefore;
    const heads = new Set(numbers.map((n) => repo.pulls.get(n)!.head));
    const checked = gh.checkRuns.slice(checksBefore).map((c) => (c.body as { head_sha: string }).head_sha);
    const view = await services.repohost!.get(source.id);
    const inStep =
      view.lastCommit === main && [...heads].every((h) => checked.filter((x) => x === h).length === 1);
    const comments = [...gh.comments.values()].reduce((n, l) => n + l.length, 0);
    const second = gh.calls.length;
    await r.pass();
    await hooks.idle();
    await pullReviews.idle();
    const secondPassCalls = gh.calls.length - second;
    const duplicates =
      gh.checkRuns.length !== checksBefore + checks ||
      [...gh.comments.values()].reduce((n, l) => n + l.length, 0) !== comments ||
      (await services.repohost!.get(source.id)).lastCommit !== main;
    return {
      passCalls: own.length,
      passCounted: counted.length,
      // The deliveries list, one per changed source and pull request; the safety net lists each repository's pull requests too.
      aim: 1 + 1 + PULLS + (report.safetyNet ? 1 : 0),
      totalCalls: calls.length,
      ms: Math.round(ms),
      redelivered: report.redelivered.length,
      checks,
      inStep,
      secondPassCalls,
      duplicates,
    };
  }

  try {
    const withDeliveries = new Reconciler(appAuth(probot), deps, { staleMs: 60_000 });
    await withDeliveries.pass();
    const a = await measure(withDeliveries, await outage(repo, true));
    const longOutage = new Reconciler(appAuth(probot), deps, { retentionMs: 1 });
    await new Promise((ok) => setTimeout(ok, 5));
    const b = await measure(longOutage, await outage(repo, false));
    return { withDeliveries: a, safetyNet: b };
  } finally {
    await new Promise<void>((ok) => server.close(() => ok()));
    await pullReviews.stop();
    await services.close();
    await gh.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

function line(name: string, f: PassFigures): string {
  return (
    `${name}: the pass ${f.passCalls} calls (${f.passCounted} counted by GitHub; aim ≤ ${f.aim}), ` +
    `${f.redelivered} redelivered, ${f.checks} checks, ${f.totalCalls} calls with the webhooks' work, ${f.ms} ms; ` +
    `in step: ${f.inStep ? "yes" : "NO"}; next pass ${f.secondPassCalls} calls, duplicates: ${f.duplicates ? "YES" : "none"}`
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      bundles: { type: "string", default: "50" },
      pushes: { type: "string", default: "20" },
      pulls: { type: "string", default: "5" },
    },
  });
  const r = await runReconcileBench({
    bundles: Number(values.bundles),
    pushes: Number(values.pushes),
    pulls: Number(values.pulls),
  });
  console.log(
    `reconciliation after an outage of ${values.pushes} pushes and ${values.pulls} new pull requests`,
  );
  console.log(line("deliveries kept by GitHub", r.withDeliveries));
  console.log(line("deliveries gone (safety net)", r.safetyNet));
  const ok = [r.withDeliveries, r.safetyNet].every(
    (f) => f.passCounted <= f.aim && f.inStep && !f.duplicates,
  );
  console.log(ok ? "aims met" : "AIM MISSED");
  if (!ok) process.exitCode = 1;
}
