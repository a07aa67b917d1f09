/**
 * A pull request's full review through the App: a real Probot against the local fake
 * GitHub, the models a local fake OpenAI server answering with the scripted review model.
 * The Build Ready check is posted in progress and completed (PATCH) with the full verdict;
 * no model, a budget the estimate exceeds, a model server failing, and a newer push each
 * leave the check completed with the reason.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { FakeGitHub, type FakeRepo } from "../helpers/fake-github.js";
import { startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { answerFor, configureModels as sharedConfigureModels } from "../core/review/e2e-helpers.js";
import { folderFiles, REPO_FIXTURE } from "../server/repohost/helpers.js";
import { json } from "../helpers/app.js";
import { as } from "../helpers/actors.js";
import { adhocReviews } from "../../server/db/schema.js";
import type { AdhocResult } from "../../server/review/service.js";
import { clearGitHub, payload, specsPullRequest, startHarness, type AppHarness } from "./helpers.js";

const API_MD = folderFiles(REPO_FIXTURE)["specs/checkout-api/api.md"]!;

interface CheckBody {
  name?: string;
  head_sha?: string;
  status?: string;
  conclusion?: string;
  output: {
    title: string;
    summary: string;
    annotations?: Array<{ path: string; start_line: number; message: string; title?: string }>;
  };
}

describe("GitHub App: a pull request's full review", () => {
  const gh = new FakeGitHub();
  let fake: FakeOpenAI;
  let h: AppHarness;
  let repo: FakeRepo;
  let base: string;
  let head: string;

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
    ({ repo, base, head } = specsPullRequest(
      gh,
      "## Limits\n\nAt most 20 quotes a minute per cart.\n\nTODO: name the window the limit resets in.\n\n",
    ));
    h = await startHarness(gh);
  });
  afterEach(async () => {
    await h.close();
  });

  const configureModels = () => sharedConfigureModels(h.t, fake.baseUrl, false, as("admin"));

  const opened = (id: string, sha = head) =>
    h.probot.receive({
      id,
      name: "pull_request",
      payload: payload("pull_request.opened", { HEAD_SHA: sha, BASE_SHA: base }),
    } as never);

  /** The PATCH bodies sent to a check run, in order. */
  const patches = (checkId: number) =>
    gh.calls
      .filter((c) => c.method === "PATCH" && c.path === `/repos/acme/specs/check-runs/${checkId}`)
      .map((c) => c.body as CheckBody);

  it("posts the check in progress, reviews the touched bundle at the head, and completes the check with the full verdict", async () => {
    await h.t.services.repohost!.create("acme/specs");
    await configureModels();
    const versionsBefore = await json<{ items: Array<{ slug: string; docs: Array<{ id: string }> }> }>(
      h.t.req("GET", "/bundles", undefined, as("admin")),
    );
    const docId = versionsBefore.items.find((b) => b.slug === "specs/checkout-api")!.docs[0]!.id;

    await opened("r-1");
    // The webhook is answered before the review ends: the check is in progress.
    expect(gh.checkRuns).toHaveLength(1);
    const posted = gh.checkRuns[0]!;
    expect(posted.body).toMatchObject({ name: "Build Ready", head_sha: head, status: "in_progress" });
    expect((posted.body as unknown as CheckBody).conclusion).toBeUndefined();
    expect((posted.body as unknown as CheckBody).output.summary).toMatch(
      /The full review of 1 spec doc is running \(about [\d,]+ tokens\)/,
    );

    await h.pullReviews.idle();
    expect(fake.completions.length).toBeGreaterThan(0);
    const [done] = patches(posted.id);
    expect(patches(posted.id)).toHaveLength(1);
    // The review the service held for it (an ad-hoc review: the pull request's files).
    const rows = await h.t.services.db.select().from(adhocReviews);
    expect(rows).toHaveLength(1);
    const result = rows[0]!.result as AdhocResult;
    expect(result.verdict.kind).toBe("full");
    expect(result.main_path).toBe("api.md");
    expect(
      rows[0]!.files.some((f) => Buffer.from(f.content, "base64").toString().includes("At most 20 quotes")),
    ).toBe(true);
    expect(done).toMatchObject({
      status: "completed",
      conclusion: result.verdict.result === "build_ready" ? "success" : "failure",
    });
    expect(done!.output.title).toMatch(/\(full review\)$/);
    expect(done!.output.summary).toMatch(
      /^Reviewed in full \(the lint and the models\) the bundles pull request #7 touches/,
    );
    expect(done!.output.summary).toContain("specs/checkout-api/api.md");
    expect(done!.output.summary).toContain(
      `| ${result.verdict.score} | ${result.verdict.must} | ${result.verdict.should} |`,
    );
    expect(done!.output.summary).toContain(`Full review: ${result.findings.length} finding`);
    // One annotation per finding of the full review (lint and models), on the repo path.
    const annotations = done!.output.annotations ?? [];
    expect(annotations).toHaveLength(Math.min(50, result.findings.length));
    // The model's finding (the scripted reviewer flags the TODO) is on its line of the head.
    const headText = repo.commits.get(head)!.files.get("specs/checkout-api/api.md")!;
    const todoLine = headText.split("\n").findIndex((l) => l.startsWith("TODO:")) + 1;
    const ai = result.findings.filter((f) => f.stage !== "lint");
    expect(ai.length).toBeGreaterThan(0);
    expect(annotations.some((a) => a.start_line === todoLine && a.message === ai[0]!.message)).toBe(true);
    expect(annotations.every((a) => a.path === "specs/checkout-api/api.md")).toBe(true);
    expect(new Set(annotations.map((a) => a.title))).toEqual(
      new Set(
        result.findings.slice(0, 50).map((f) => `${f.level} ${f.check_slug}${f.relaxed ? " (relaxed)" : ""}`),
      ),
    );
    // The sticky comment says the full verdict too.
    expect(gh.comments.get(7)).toHaveLength(1);
    expect(gh.comments.get(7)![0]!.body).toContain(`| ${result.verdict.score} |`);

    // The branch's bundle is untouched: the pull request's content is no version of it.
    const versions = await json<{ items: unknown[] }>(
      h.t.req("GET", `/docs/${docId}/versions`, undefined, as("admin")),
    );
    expect(versions.items).toHaveLength(1);
  });

  it("without a model: the lint alone, and the summary says a full review needs one", async () => {
    await opened("r-2");
    await h.pullReviews.idle();
    expect(gh.checkRuns).toHaveLength(1);
    const check = gh.checkRuns[0]!.body as unknown as CheckBody;
    expect(check).toMatchObject({ status: "completed", conclusion: "failure" });
    expect(check.output.summary).toContain("The full review did not run: it needs a model");
    expect(check.output.summary).toContain("reviewer, reader, judge");
    expect(check.output.annotations?.length).toBeGreaterThan(0);
    expect(patches(gh.checkRuns[0]!.id)).toEqual([]);
    expect(fake.completions).toHaveLength(0);
  });

  it("a budget the estimate exceeds: the lint alone, with the estimate and what is left", async () => {
    await configureModels();
    expect((await h.t.req("PUT", "/admin/budget", { limit_tokens: 1000 }, as("admin"))).status).toBe(200);
    await opened("r-3");
    await h.pullReviews.idle();
    expect(gh.checkRuns).toHaveLength(1);
    const check = gh.checkRuns[0]!.body as unknown as CheckBody;
    expect(check).toMatchObject({ status: "completed", conclusion: "failure" });
    expect(check.output.summary).toMatch(
      /The full review did not run: it would take about [\d,]+ tokens and this month's budget has 1,000 left/,
    );
    expect(patches(gh.checkRuns[0]!.id)).toEqual([]);
    expect(fake.completions).toHaveLength(0);
  });

  it("a model server answering 500: the check is completed as failed, with the reason", async () => {
    await configureModels();
    fake.handler = () => ({ status: 500 });
    await opened("r-4");
    expect(gh.checkRuns[0]!.body).toMatchObject({ status: "in_progress" });
    await h.pullReviews.idle();
    const bodies = patches(gh.checkRuns[0]!.id);
    expect(bodies).toHaveLength(1);
    expect(bodies[0]).toMatchObject({
      status: "completed",
      conclusion: "failure",
      output: { title: "The full review failed" },
    });
    expect(bodies[0]!.output.summary).toMatch(/The full review failed: model_failed: .*500/);
    // The lint's table and annotations are still there.
    expect(bodies[0]!.output.summary).toContain("specs/checkout-api/api.md");
    expect(bodies[0]!.output.annotations?.length).toBeGreaterThan(0);
  }, 60_000);

  it("a newer push while the review runs: the older check is completed as cancelled, the newer reviewed", async () => {
    await configureModels();
    let first = true;
    fake.handler = async (req) => {
      // The first review is slow enough for the push to land while it runs.
      if (first) await new Promise((r) => setTimeout(r, 300));
      return answerFor(req);
    };
    await opened("r-5");
    const older = gh.checkRuns[0]!;
    const next = gh.commit(
      repo,
      {
        "specs/checkout-api/api.md": API_MD.replace(
          "## Authentication",
          "## Limits\n\nTen a minute.\n\n## Authentication",
        ),
      },
      { branch: "quote-errors", message: "Fewer quotes", author: "dana" },
    );
    repo.pulls.set(7, { files: ["specs/checkout-api/api.md"], head: next });
    first = false;
    await h.probot.receive({
      id: "r-6",
      name: "pull_request",
      payload: payload("pull_request.synchronize", { HEAD_SHA: next, BASE_SHA: base }),
    } as never);
    await h.pullReviews.idle();
    expect(gh.checkRuns).toHaveLength(2);
    expect(patches(older.id)).toEqual([
      expect.objectContaining({
        status: "completed",
        conclusion: "cancelled",
        output: expect.objectContaining({
          summary: expect.stringContaining(`a newer push (${next.slice(0, 7)}) started a new check`),
        }) as unknown,
      }),
    ]);
    const newer = gh.checkRuns[1]!;
    expect(newer.body).toMatchObject({ head_sha: next, status: "in_progress" });
    expect(patches(newer.id)).toEqual([
      expect.objectContaining({
        status: "completed",
        conclusion: expect.stringMatching(/^(success|failure)$/) as unknown,
      }),
    ]);
  }, 60_000);
});
