/**
 * Nothing missed while the App was down (app/reconcile.ts): deliveries GitHub could not
 * make are found in its list and asked for again, each once; missed pushes of a repository
 * are one redelivery; after an outage longer than GitHub keeps deliveries, the safety net
 * syncs moved heads and checks new pull requests, with no second check, comment or
 * version on the pass after. Real HTTP both ways: the fake GitHub delivers signed webhooks
 * to the App's listener; the App calls the fake's API.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DB_KINDS, json } from "../helpers/app.js";
import { as } from "../helpers/actors.js";
import { FakeGitHub, type FakeRepo } from "../helpers/fake-github.js";
import { FakeHooks } from "../helpers/fake-github-hooks.js";
import { folderFiles, REPO_FIXTURE } from "../server/repohost/helpers.js";
import {
  clearGitHub,
  payload,
  specsPullRequest,
  startHarness,
  WEBHOOK_SECRET,
  type AppHarness,
} from "./helpers.js";
import { issueComment, reconcilerOf, webhookServer } from "./hooks-helpers.js";

const API_MD = folderFiles(REPO_FIXTURE)["specs/checkout-api/api.md"]!;

describe.each(DB_KINDS)("GitHub App: nothing missed (%s)", (kind) => {
  const gh = new FakeGitHub();
  const hooks = new FakeHooks(gh, WEBHOOK_SECRET);
  let h: AppHarness;
  let hookServer: { url: string; close(): Promise<void> };
  let repo: FakeRepo;
  let base: string;
  let head: string;

  beforeAll(async () => {
    await gh.start();
  });
  afterAll(async () => {
    await gh.stop();
  });
  beforeEach(async () => {
    clearGitHub(gh);
    hooks.reset();
    ({ repo, base, head } = specsPullRequest(gh, "## Limits\n\nAt most 20 quotes a minute per cart.\n\n"));
    h = await startHarness(gh, kind);
    hookServer = await webhookServer(h.probot);
    hooks.target = hookServer.url;
    await h.t.services.repohost!.create("https://github.com/acme/specs/tree/main/specs");
    // The repository's members speak for the workspace (docs/app.md, "Review comments and people").
    const settings = await h.t.services.settings.read();
    const set = await h.t.req(
      "PUT",
      "/admin/settings",
      { ...settings, github_association_role: "member" },
      as("admin"),
    );
    expect(set.status).toBe(200);
  });
  afterEach(async () => {
    await hookServer.close();
    await h.close();
  });

  const apiVersion = async () => {
    const list = await json<{
      items: Array<{ slug: string; docs: Array<{ current_version: { number: number; message: string } }> }>;
    }>(h.t.req("GET", "/bundles", undefined, as("admin")));
    return list.items.find((b) => b.slug === "specs/checkout-api")!.docs[0]!.current_version;
  };

  it("asks GitHub again for the deliveries it missed, each once; the pushes of a repository are one", async () => {
    const r = reconcilerOf(h, { staleMs: 60_000 });
    // A first pass: nothing to do, and where the next starts.
    expect(await r.pass()).toMatchObject({ redelivered: [], safetyNet: true });

    hooks.down = true;
    const pushes: string[] = [];
    let before = base;
    for (let i = 1; i <= 3; i++) {
      const after = gh.commit(
        repo,
        { "specs/checkout-api/api.md": API_MD + `\n## Changelog\n\n- Change ${i}.\n` },
        { message: `Change ${i}`, author: "sam" },
      );
      pushes.push((await hooks.send("push", payload("push", { BEFORE_SHA: before, AFTER_SHA: after }))).guid);
      before = after;
    }
    const opened = await hooks.send(
      "pull_request",
      payload("pull_request.opened", { HEAD_SHA: head, BASE_SHA: base }),
    );
    const help = await hooks.send(
      "issue_comment",
      issueComment({ id: 501, body: "@spec-review help", login: "lee", association: "MEMBER" }),
    );
    // An event the App does not handle is not asked for again.
    await hooks.send("pull_request", {
      ...payload("pull_request.opened", { HEAD_SHA: head, BASE_SHA: base }),
      action: "labeled",
    });
    expect(gh.checkRuns).toHaveLength(0);
    hooks.down = false;

    const from = gh.calls.length;
    const report = (await r.pass())!;
    // The pass's own calls (what the redeliveries then do is the webhooks' work, meanwhile):
    // one listing, then one redelivery per changed repository and per pull request event.
    const passCalls = gh
      .since(from)
      .filter((c) => c.path.startsWith("/app/hook/"))
      .map((c) => `${c.method} ${c.path}`);
    expect(passCalls).toEqual([
      "GET /app/hook/deliveries?per_page=100",
      ...report.redelivered.map((g) => `POST /app/hook/deliveries/${hooks.attempts(g)[0]!.id}/attempts`),
    ]);
    expect(report.redelivered.sort()).toEqual([pushes[2]!, opened.guid, help.guid].sort());
    expect(report).toMatchObject({ covered: 2, safetyNet: false });
    const redelivered = await h.t.services.metrics.registry.getSingleMetricAsString(
      "spec_review_deliveries_redelivered_total",
    );
    expect(redelivered).toContain('event="push"} 1');
    expect(redelivered).toContain('event="pull_request"} 1');
    expect(redelivered).toContain('event="issue_comment"} 1');
    await hooks.idle();
    await h.pullReviews.idle();

    // The newest push synced the source through all three commits: one version per commit.
    expect(await apiVersion()).toMatchObject({ number: 4, message: "Change 3" });
    expect(gh.checkRuns).toHaveLength(1);
    expect(gh.checkRuns[0]!.body).toMatchObject({ head_sha: head });
    const comments = gh.comments.get(7)!;
    expect(comments.filter((c) => c.body.includes("spec-review:build-ready"))).toHaveLength(1);
    expect(comments.filter((c) => c.body.includes("Commands for @spec-review"))).toHaveLength(1);
    for (const g of report.redelivered) expect(hooks.attempts(g).map((d) => d.status_code)).toEqual([0, 200]);

    // The next pass: everything done, one call.
    const again = gh.calls.length;
    expect(await r.pass()).toMatchObject({ redelivered: [], covered: 0, gaveUp: [] });
    expect(gh.since(again).map((c) => c.path)).toEqual(["/app/hook/deliveries?per_page=100"]);
    expect(gh.checkRuns).toHaveLength(1);
    expect(hooks.redeliveryRequests).toHaveLength(3);
  });

  it("a redelivery that does not arrive is not asked for twice: the next pass checks heads instead", async () => {
    const r = reconcilerOf(h, { staleMs: 1 });
    await r.pass();
    hooks.down = true;
    const after = gh.commit(
      repo,
      { "specs/checkout-api/api.md": API_MD + "\n## Changelog\n\n- Once.\n" },
      { message: "Once", author: "sam" },
    );
    const push = await hooks.send("push", payload("push", { BEFORE_SHA: base, AFTER_SHA: after }));
    // Still down when the pass asks: the redelivery fails too.
    expect((await r.pass())!.redelivered).toEqual([push.guid]);
    await hooks.idle();
    hooks.down = false;
    await new Promise((ok) => setTimeout(ok, 5));
    const second = (await r.pass())!;
    expect(second).toMatchObject({ redelivered: [], gaveUp: [push.guid] });
    expect(hooks.redeliveryRequests).toHaveLength(1);
    // The pass after a gap is a safety net pass: the moved head is synced.
    const third = (await r.pass())!;
    expect(third).toMatchObject({ redelivered: [], safetyNet: true, sourcesSynced: 1 });
    expect(await apiVersion()).toMatchObject({ number: 2, message: "Once" });
    expect(hooks.redeliveryRequests).toHaveLength(1);
  });

  it("after an outage longer than GitHub keeps deliveries: moved heads synced, new pull requests checked, once", async () => {
    const r = reconcilerOf(h, { retentionMs: 1 });
    await r.pass();
    await new Promise((ok) => setTimeout(ok, 5));
    // While down, longer than GitHub keeps deliveries: pushes, and two new pull requests.
    for (let i = 1; i <= 3; i++)
      gh.commit(
        repo,
        { "specs/checkout-api/api.md": API_MD + `\n## Changelog\n\n- Change ${i}.\n` },
        { message: `Change ${i}`, author: "sam" },
      );
    const readme = gh.commit(repo, { "README.md": "# Specs\n\nNew words.\n" }, { branch: "readme" });
    repo.pulls.set(8, { files: ["README.md"], head: readme });
    const now = new Date().toISOString();
    hooks.updatedAt.set("acme/specs#7", now);
    hooks.updatedAt.set("acme/specs#8", now);

    const report = (await r.pass())!;
    await h.pullReviews.idle();
    expect(report).toMatchObject({ redelivered: [], safetyNet: true, sourcesSynced: 1, pullsChecked: [7] });
    expect(await apiVersion()).toMatchObject({ number: 4, message: "Change 3" });
    expect(gh.checkRuns.map((c) => (c.body as { head_sha: string }).head_sha)).toEqual([head]);
    expect(gh.comments.get(7)).toHaveLength(1);

    // A second pass over the same state: no check, comment or version more.
    const from = gh.calls.length;
    const next = (await r.pass())!;
    expect(next).toMatchObject({ safetyNet: true, pullsChecked: [] });
    expect(gh.checkRuns).toHaveLength(1);
    expect(gh.comments.get(7)).toHaveLength(1);
    expect(await apiVersion()).toMatchObject({ number: 4 });
    const paths = gh
      .since(from)
      .map((c) => `${c.method} ${c.path.replace(/[0-9a-f]{40}/g, "<sha>")} ${c.status}`);
    expect(paths.filter((p) => p.startsWith("POST /repos"))).toEqual([]);
    expect(paths).toContain("GET /repos/acme/specs/git/ref/heads/main 304");
  });

  it("one instance at a time: a pass while another holds the lease does nothing", async () => {
    const a = reconcilerOf(h);
    const b = reconcilerOf(h);
    const [x, y] = await Promise.all([a.pass(), b.pass()]);
    expect([x, y].filter((p) => p === undefined)).toHaveLength(1);
    const metrics = await h.t.services.metrics.registry.getSingleMetricAsString(
      "spec_review_reconcile_passes_total",
    );
    expect(metrics).toContain('outcome="done"} 1');
    expect(metrics).toContain('outcome="skipped"} 1');
  });
});
