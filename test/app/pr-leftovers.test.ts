/**
 * A pull request's full review that a process left in flight when it died (kill -9, a
 * deploy): its row in pr_reviews is still there, its check still in progress on GitHub.
 * The dead process is simulated by its row (held by an instance that no longer beats);
 * the App starting again settles it: on the same head the review runs again and completes
 * the same check, with a moved head the check is completed with the reason. Several
 * instances starting at once on one database settle it once. "Re-run" on the check in
 * GitHub (check_run rerequested) runs the lint and the full review again.
 */
import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { FakeGitHub, type FakeRepo } from "../helpers/fake-github.js";
import { startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { answerFor, configureModels as sharedConfigureModels } from "../core/review/e2e-helpers.js";
import { DB_KINDS } from "../helpers/app.js";
import { as } from "../helpers/actors.js";
import { adhocReviews, prReviews } from "../../server/db/schema.js";
import type { PullReviews } from "../../app/pr-review.js";
import { clearGitHub, loadApp, payload, specsPullRequest, startHarness, type AppHarness } from "./helpers.js";

const PUBLIC_URL = "https://specs.example.com";

interface CheckBody {
  name?: string;
  head_sha?: string;
  status?: string;
  conclusion?: string;
  details_url?: string;
  output: { title: string; summary: string };
}

describe.each(DB_KINDS)("GitHub App: pull request reviews left in flight (%s)", (kind) => {
  const gh = new FakeGitHub();
  let fake: FakeOpenAI;
  let h: AppHarness;
  let repo: FakeRepo;
  let base: string;
  let head: string;
  /** Instances started in a test besides the harness's (stopped after it). */
  let others: PullReviews[] = [];

  beforeAll(async () => {
    await gh.start();
    fake = await startFakeOpenAI({ handler: answerFor });
  });
  afterAll(async () => {
    await fake.close();
    await gh.stop();
  });
  beforeEach(async () => {
    clearGitHub(gh);
    fake.reset();
    fake.handler = answerFor;
    ({ repo, base, head } = specsPullRequest(gh, "## Limits\n\nAt most 20 quotes a minute per cart.\n\n"));
    others = [];
    h = await startHarness(gh, kind, "recorded", { publicUrl: PUBLIC_URL });
  });
  afterEach(async () => {
    for (const p of others) await p.stop();
    await h.close();
  });

  const configureModels = () => sharedConfigureModels(h.t, fake.baseUrl, false, as("admin"));

  /** The row a process that died left: held by an instance that stopped beating 10 minutes ago. */
  async function leftover(sha: string, checkRunId: number, beatAgoMs = 600_000): Promise<string> {
    const id = randomUUID();
    const now = h.t.services.clock.now();
    await h.t.services.db.insert(prReviews).values({
      id,
      installationId: 42,
      owner: "acme",
      repo: "specs",
      pullNumber: 7,
      headSha: sha,
      checkRunId,
      startedAt: new Date(now.getTime() - beatAgoMs - 5000),
      status: "running",
      worker: `app-${randomUUID()}`,
      heartbeatAt: new Date(now.getTime() - beatAgoMs),
    });
    return id;
  }

  /** The App starting (again) on the same database: its first sweep runs at load. */
  async function startInstance(): Promise<PullReviews> {
    const { pullReviews } = await loadApp(gh, h.t, h.threads, { publicUrl: PUBLIC_URL });
    others.push(pullReviews);
    return pullReviews;
  }

  /**
   * Every instance on the database has settled what it claimed: the harness's own App is
   * one too, and its sweep (at start, or every half lease) can claim a leftover before the
   * instances a test starts do, so waiting for those alone can see no patch yet.
   */
  async function settled(apps: PullReviews[]): Promise<void> {
    const all = [h.pullReviews, ...apps];
    await Promise.all(all.map((a) => a.idle()));
    // A sweep that began after those waits started (the harness's timer) settles its claim too.
    for (let i = 0; i < 100; i++) {
      const claimed = await h.t.services.db.select().from(prReviews).where(eq(prReviews.status, "settling"));
      if (claimed.length === 0) return;
      await new Promise((r) => setTimeout(r, 20));
      await Promise.all(all.map((a) => a.idle()));
    }
  }

  const patches = (checkId: number) =>
    gh.calls
      .filter((c) => c.method === "PATCH" && c.path === `/repos/acme/specs/check-runs/${checkId}`)
      .map((c) => c.body as CheckBody);

  it("on the same head: the App starting again runs the review again and completes the same check", async () => {
    await configureModels();
    await leftover(head, 9001);
    await settled([await startInstance()]);

    // No second check: the one left in progress is set running again, then completed.
    expect(gh.checkRuns).toHaveLength(0);
    const sent = patches(9001);
    expect(sent[0]).toMatchObject({ status: "in_progress" });
    const done = sent.at(-1)!;
    expect(done).toMatchObject({
      status: "completed",
      conclusion: expect.stringMatching(/^(success|failure)$/) as unknown,
      output: expect.objectContaining({
        title: expect.stringContaining("(full review)") as unknown,
      }) as unknown,
    });
    expect(sent.filter((p) => p.status === "completed")).toHaveLength(1);
    expect(fake.completions.length).toBeGreaterThan(0);
    // The check links to the review's report under the public URL, which the API serves.
    const [review] = await h.t.services.db.select().from(adhocReviews);
    expect(done.details_url).toBe(`${PUBLIC_URL}/api/v1/reviews/${review!.id}/report`);
    expect(done.output.summary).toContain(`[specs/checkout-api/api.md](${done.details_url})`);
    const report = await h.t.req("GET", `/reviews/${review!.id}/report`, undefined, as("admin"));
    expect(report.status).toBe(200);
    // Nothing is left in flight.
    expect(await h.t.services.db.select().from(prReviews)).toEqual([]);
  }, 60_000);

  it("with a moved head: the check is completed as cancelled with the reason, and nothing is reviewed", async () => {
    await configureModels();
    await leftover(base, 9002);
    await settled([await startInstance()]);

    expect(patches(9002)).toEqual([
      expect.objectContaining({
        status: "completed",
        conclusion: "cancelled",
        output: expect.objectContaining({
          summary: expect.stringContaining(
            `the service restarted before the review finished, and the pull request has moved on to ${head.slice(0, 7)}`,
          ) as unknown,
        }) as unknown,
      }),
    ]);
    expect(fake.completions).toHaveLength(0);
    expect(await h.t.services.db.select().from(prReviews)).toEqual([]);
  });

  it("a review whose holder is alive is not taken by an instance starting", async () => {
    const id = await leftover(head, 9003, 1000);
    await settled([await startInstance()]);
    expect(patches(9003)).toEqual([]);
    expect(await h.t.services.db.select().from(prReviews).where(eq(prReviews.id, id))).toHaveLength(1);
  });

  it("interrupted again after a re-run: completed as failed, not run a third time", async () => {
    await configureModels();
    const id = await leftover(head, 9004);
    await h.t.services.db.update(prReviews).set({ attempts: 2 }).where(eq(prReviews.id, id));
    await settled([await startInstance()]);
    expect(patches(9004)).toEqual([
      expect.objectContaining({
        status: "completed",
        conclusion: "failure",
        output: expect.objectContaining({
          summary: expect.stringMatching(
            /the service restarted before the review finished, 2 times/,
          ) as unknown,
        }) as unknown,
      }),
    ]);
    expect(fake.completions).toHaveLength(0);
  });

  it("several instances starting at once on one database settle a leftover once", async () => {
    await leftover(base, 9005);
    const apps = await Promise.all([startInstance(), startInstance(), startInstance()]);
    await settled(apps);
    expect(patches(9005)).toHaveLength(1);
    expect(patches(9005)[0]).toMatchObject({ status: "completed", conclusion: "cancelled" });
    expect(await h.t.services.db.select().from(prReviews)).toEqual([]);
  });

  it("Re-run on the check (check_run rerequested) runs the lint and the full review again, on a new check", async () => {
    await configureModels();
    const rerequested = (id: string, name: string) =>
      h.probot.receive({
        id,
        name: "check_run",
        payload: payload("check_run.rerequested", { HEAD_SHA: head, BASE_SHA: base, CHECK_NAME: name }),
      } as never);

    // Another App's check re-requested is not ours to run.
    await rerequested("cr-0", "Some other check");
    expect(gh.checkRuns).toHaveLength(0);

    await rerequested("cr-1", "Build Ready");
    expect(gh.checkRuns).toHaveLength(1);
    const posted = gh.checkRuns[0]!;
    expect(posted.body).toMatchObject({ name: "Build Ready", head_sha: head, status: "in_progress" });
    // While it runs, the review is written down as in flight.
    expect(await h.t.services.db.select().from(prReviews)).toHaveLength(1);
    await h.pullReviews.idle();
    expect(patches(posted.id)).toEqual([
      expect.objectContaining({
        status: "completed",
        conclusion: expect.stringMatching(/^(success|failure)$/) as unknown,
      }),
    ]);
    expect(await h.t.services.db.select().from(prReviews)).toEqual([]);
  }, 60_000);

  it("Re-run where the event names no pull request (a fork's): GitHub's list for the commit is asked", async () => {
    const fromFork = (id: string) => {
      const p = payload("check_run.rerequested", {
        HEAD_SHA: head,
        BASE_SHA: base,
        CHECK_NAME: "Build Ready",
      });
      (p.check_run as { pull_requests: unknown[] }).pull_requests = [];
      return h.probot.receive({ id, name: "check_run", payload: p } as never);
    };
    // Pull request #7 has the commit at its head: it is checked (the lint alone: no model here).
    await fromFork("cr-2");
    expect(gh.calls.some((c) => c.path === `/repos/acme/specs/commits/${head}/pulls`)).toBe(true);
    expect(gh.checkRuns).toHaveLength(1);
    expect(gh.checkRuns[0]!.body).toMatchObject({ head_sha: head, status: "completed" });
    expect(gh.comments.get(7)).toHaveLength(1);

    // Once the pull request moved on, no open pull request has it: a failed check says so.
    repo.pulls.set(7, { files: ["specs/checkout-api/api.md"], head: base });
    await fromFork("cr-3");
    expect(gh.checkRuns).toHaveLength(2);
    expect(gh.checkRuns[1]!.body).toMatchObject({
      head_sha: head,
      status: "completed",
      conclusion: "failure",
      output: expect.objectContaining({
        summary: expect.stringContaining(`no open pull request has ${head.slice(0, 7)} at its head`),
      }) as unknown,
    });
  });
});
