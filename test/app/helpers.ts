/**
 * The App under test: a real Probot instance (its own JWT and installation tokens) whose
 * GitHub is the local fake (test/helpers/fake-github.ts), on a hosted test app. Webhook
 * payloads are the recorded ones in fixtures/app/, with the fake repo's commit ids put in.
 */
import { generateKeyPairSync } from "node:crypto";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { Probot } from "probot";
import specReview, { type AppDeps } from "../../app/index.js";
import { PullReviews } from "../../app/pr-review.js";
import type { ReviewCommentInput, ThreadSink } from "../../app/threads-port.js";
import { githubReplies, serviceThreadSink } from "../../app/threads-sink.js";
import { packageRoot } from "../../server/paths.js";
import { makeTestApp, type TestApp } from "../helpers/app.js";
import { testAuthenticator } from "../helpers/actors.js";
import type { FakeGitHub, FakeRepo } from "../helpers/fake-github.js";
import { folderFiles, REPO_FIXTURE } from "../server/repohost/helpers.js";

export const FIXTURES = resolve(import.meta.dirname, "../../fixtures/app");
export const WEBHOOK_SECRET = "whsec-test-7d1f";

let pem: string | undefined;
/** An RSA key for the App's JWTs (the fake accepts any; Probot signs with it for real). */
export function appPrivateKey(): string {
  pem ??= generateKeyPairSync("rsa", { modulusLength: 2048 })
    .privateKey.export({ type: "pkcs1", format: "pem" })
    .toString();
  return pem;
}

/** A recorded payload with placeholders (HEAD_SHA, …) replaced. */
export function payload(name: string, shas: Record<string, string> = {}): Record<string, unknown> {
  let text = readFileSync(resolve(FIXTURES, `${name}.json`), "utf8");
  for (const [k, v] of Object.entries(shas)) text = text.split(k).join(v);
  return JSON.parse(text) as Record<string, unknown>;
}

export class RecordingThreads implements ThreadSink {
  opened: ReviewCommentInput[] = [];
  replies: Array<{ inReplyTo: number; commentId: number; body: string }> = [];
  openFromComment(input: ReviewCommentInput) {
    this.opened.push(input);
    return Promise.resolve({ threadId: `t-${input.commentId}` });
  }
  addReply(input: { inReplyTo: number; commentId: number; body: string }) {
    this.replies.push(input);
    return Promise.resolve();
  }
}

export interface AppHarness {
  t: TestApp;
  probot: Probot;
  threads: RecordingThreads;
  /** The pull requests' full reviews running in the background (`idle()` waits for them). */
  pullReviews: PullReviews;
  /** What the App was given (a reconciliation made in a test takes the same). */
  deps: AppDeps;
  close(): Promise<void>;
}

export interface HarnessOptions {
  /** The service's public URL (the check links to the review's report there). */
  publicUrl?: string;
  /** The lease of a review in flight (a leftover's heartbeat must be older to be taken). */
  leaseMs?: number;
  /** How handler runs are recorded (app/deliveries.ts). */
  deliveries?: { worker: string; exclusive: boolean; staleMs: number };
}

/** The App loaded on a Probot of its own, over the service graph `t` (a second instance shares it). */
export async function loadApp(
  gh: FakeGitHub,
  t: TestApp,
  threads: ThreadSink,
  opts: HarnessOptions = {},
): Promise<{ probot: Probot; pullReviews: PullReviews; deps: AppDeps }> {
  const probot = new Probot({
    appId: 123,
    privateKey: appPrivateKey(),
    secret: WEBHOOK_SECRET,
    baseUrl: gh.url,
    logLevel: "fatal",
  });
  const pullReviews = new PullReviews({
    db: t.services.db,
    clock: t.services.clock,
    logger: t.services.logger,
    ...(opts.leaseMs !== undefined ? { leaseMs: opts.leaseMs } : {}),
  });
  const deps: AppDeps = {
    db: t.services.db,
    clock: t.services.clock,
    logger: t.services.logger,
    repohost: t.services.repohost!,
    threads,
    builtinProfilesDir: resolve(packageRoot(), "profiles"),
    checkName: "Build Ready",
    serverUrl: "https://github.example",
    apiUrl: gh.url,
    review: t.services.review,
    budget: t.services.budget,
    ...(opts.publicUrl !== undefined ? { publicUrl: opts.publicUrl } : {}),
    pullReviews,
    waivers: { store: t.services.store, area: t.services.waivers },
    profiles: t.services.profiles,
    metrics: t.services.metrics,
    ...(opts.deliveries ? { deliveries: opts.deliveries } : {}),
  };
  await probot.load(specReview(deps));
  return { probot, pullReviews, deps };
}

export async function startHarness(
  gh: FakeGitHub,
  kind: "pglite" | "postgres" = "pglite",
  /** Where review comments go (default: recorded only); `service`: the service's own threads. */
  sink: "recorded" | "service" = "recorded",
  opts: HarnessOptions = {},
): Promise<AppHarness> {
  const auth = testAuthenticator();
  const t = await makeTestApp({ kind, mode: "hosted", auth, repohost: { apiUrl: gh.url } });
  auth.bind(t.services);
  const threads = new RecordingThreads();
  if (sink === "service") githubReplies(t.services, t.services.repohost!);
  const { probot, pullReviews, deps } = await loadApp(
    gh,
    t,
    sink === "service" ? serviceThreadSink(t.services) : threads,
    opts,
  );
  return {
    t,
    probot,
    threads,
    pullReviews,
    deps,
    close: async () => {
      await pullReviews.stop();
      await t.close();
    },
  };
}

/** Empties what the fake GitHub recorded (calls, check runs, comments) and its repositories. */
export function clearGitHub(gh: FakeGitHub): void {
  gh.calls.length = 0;
  gh.checkRuns.length = 0;
  gh.comments.clear();
  gh.repos.clear();
}

/**
 * acme/specs (private, installation 42) with the repohost fixture on main, and pull
 * request 7 from `quote-errors`: one commit by dana that puts `limits` (a section) before
 * the API doc's "## Authentication".
 */
export function specsPullRequest(
  gh: FakeGitHub,
  limits: string,
): { repo: FakeRepo; base: string; head: string } {
  const files = folderFiles(REPO_FIXTURE);
  const repo = gh.addRepo("acme", "specs", { private: true, installationId: 42 });
  const base = gh.commit(repo, files, { message: "Import specs", author: "lee" });
  const api = "specs/checkout-api/api.md";
  const head = gh.commit(
    repo,
    { [api]: files[api]!.replace("## Authentication", `${limits}## Authentication`) },
    { branch: "quote-errors", message: "Document limits", author: "dana" },
  );
  repo.pulls.set(7, { files: [api], head });
  return { repo, base, head };
}
